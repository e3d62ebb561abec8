import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import type { PaidOperation } from '@agent-memory/shared';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { AllowPasskey, type PasskeyAccess } from '../auth/allow-passkey.decorator';
import { ClaimedAgentGuard, HumanSessionGuard } from '../auth/human-session.guard';
import { RecordAccessGuard } from '../auth/record-access.guard';
import { WalletSignatureGuard } from '../auth/wallet-signature.guard';
import { PaidCall, PaidTopUp, PaymentAuthGuard } from '../billing/payment-auth.guard';
import { AgentRateLimitGuard, AnonymousRateLimitGuard, HumanRateLimitGuard, type RecordRateClass, RecordRateLimit, RecordRateLimitGuard } from '../rate-limit/rate-limit.guards';

/**
 * The kinds of gateway route. Each states in one place who may call a route, what it costs and which
 * limits count it (docs/authentication.md, docs/billing.md, docs/api.md "Rate limits"); its guards run in the
 * order listed: authentication, then the per-agent limit, then the record access check, then the
 * per-record limit. Every route of the gateway carries exactly one kind (checked by ./route-kinds.spec.ts).
 */

/** The name of a route's kind, kept on the handler under {@link ROUTE_KIND}. */
export type RouteKind = 'public' | 'agent' | 'record' | 'top-up' | 'human';
export const ROUTE_KIND = 'agent-memory:route-kind';
/** The options a route's kind was declared with ({@link RouteKindOptions}), kept on the handler under this key. */
export const ROUTE_KIND_OPTIONS = 'agent-memory:route-kind-options';

/** A route's kind and its options, as the OpenAPI document reads them (../openapi/openapi-document.ts). */
export type RouteKindOptions =
  | { kind: 'public'; options: PublicRouteOptions }
  | { kind: 'agent'; options: Record<string, never> }
  | { kind: 'record'; options: RecordRouteOptions }
  | { kind: 'top-up'; options: Record<string, never> }
  | { kind: 'human'; options: HumanRouteOptions };

const kind = (declared: RouteKindOptions) => applyDecorators(SetMetadata(ROUTE_KIND, declared.kind), SetMetadata(ROUTE_KIND_OPTIONS, declared));

/** Options of {@link PublicRoute}. */
export interface PublicRouteOptions {
  /** `'client'`: counted against the per-client-address limit of calls made without an agent. */
  limit?: 'client';
  /**
   * The handler itself reads an optional `Authorization: Passkey <session>` (none is fine; any other: 401),
   * e.g. the passkey registration that adds a passkey to a signed-in account (docs/authentication.md).
   */
  optionalPasskey?: boolean;
}

/**
 * A route without credentials. `limit: 'client'` counts it against the per-client-address limit of
 * calls made without an agent (create agent, wallet challenge, passkey ceremonies).
 */
export function PublicRoute(options: PublicRouteOptions = {}): MethodDecorator {
  return applyDecorators(kind({ kind: 'public', options }), ...(options.limit === 'client' ? [UseGuards(AnonymousRateLimitGuard)] : []));
}

/**
 * An agent's own route, free: `Bearer <agent key>` or, for `local`-mode agents, a wallet signature
 * (a passkey session: 403; none: 401), then 100 requests per minute per agent.
 */
export function AgentRoute(): MethodDecorator {
  return applyDecorators(kind({ kind: 'agent', options: {} }), UseGuards(AgentKeyGuard, AgentRateLimitGuard));
}

/** What a record route ({@link RecordRoute}) costs, which per-record limit counts it, and who may call it. */
export interface RecordRouteOptions {
  /**
   * The paid operation (docs/billing.md, "Prices"): the caller pays from its balance or with
   * `Authorization: Payment <credential>` (checked first, by PaymentAuthGuard; in `enforce` mode a call
   * without Authorization is 402 with a challenge). The handler charges it through UsageRecorder.
   */
  price?: PaidOperation;
  /** The per-record limit that counts the route: 30 writes or 60 queries per minute per record. */
  recordLimit?: RecordRateClass;
  /**
   * A human's passkey session may call it on a record of an agent the human claimed: `true` or `'read'`
   * (a read, charged to the agent like its own call), `'erase'` (forget, delete record: the owner's right
   * to erase, free for the session however the route is priced for agents; docs/billing.md).
   */
  passkey?: true | PasskeyAccess;
  /** `'signature'`: the wallet signature of a `local`-mode agent only (raw blob routes). Default: the agent credentials. */
  credential?: 'signature';
}

/**
 * A route on `/api/v1/records/:recordId/...`: an agent route ({@link AgentRoute}) on one of the caller's
 * own records (any other record id: 404, or 403 for a test key; RecordAccessGuard), with its price and
 * per-record limit ({@link RecordRouteOptions}).
 */
export function RecordRoute(options: RecordRouteOptions = {}): MethodDecorator {
  const { price, recordLimit, passkey, credential } = options;
  const authentication = credential === 'signature' ? [WalletSignatureGuard] : price ? [PaymentAuthGuard, AgentKeyGuard] : [AgentKeyGuard];
  return applyDecorators(
    kind({ kind: 'record', options }),
    UseGuards(...authentication, AgentRateLimitGuard, RecordAccessGuard, ...(recordLimit ? [RecordRateLimitGuard] : [])),
    ...(price ? [PaidCall(price)] : []),
    ...(recordLimit ? [RecordRateLimit(recordLimit)] : []),
    ...(passkey ? [AllowPasskey(passkey === true ? 'read' : passkey)] : []),
  );
}

/**
 * The top-up of an agent's live balance (docs/billing.md, "Balances"): `Bearer <agent key>` (answered
 * with a 402 challenge for the amount) or `Authorization: Payment` paying that challenge, then the
 * per-agent limit.
 */
export function TopUpRoute(): MethodDecorator {
  return applyDecorators(kind({ kind: 'top-up', options: {} }), UseGuards(PaymentAuthGuard, AgentKeyGuard, AgentRateLimitGuard), PaidTopUp());
}

/**
 * A signed-in human's route (`Authorization: Passkey <session>`; none or invalid: 401), counted per
 * human against the per-agent limit (HumanRateLimitGuard). `claimedAgent`: the route is under `.../agents/:agentId`, and that
 * agent must be one the human claimed (else 404); it becomes the request's principal.
 */
export function HumanRoute(options: HumanRouteOptions = {}): MethodDecorator {
  return applyDecorators(kind({ kind: 'human', options }), UseGuards(HumanSessionGuard, HumanRateLimitGuard, ...(options.claimedAgent ? [ClaimedAgentGuard] : [])));
}

/** Options of {@link HumanRoute}. */
export interface HumanRouteOptions {
  /** The route is under `.../agents/:agentId`, an agent the human claimed (else 404); it becomes the principal. */
  claimedAgent?: boolean;
}
