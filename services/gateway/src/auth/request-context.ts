import type { FastifyRequest } from 'fastify';
import { setBusPrincipal } from '@agent-memory/platform';
import type { Principal, SessionMethod } from '@agent-memory/shared';

/** What the gateway's guards learn about a request, attached to the Fastify request. */
export interface GatewayRequestState {
  /** The agent the call acts for (its own key or wallet, or a claimed agent of a signed-in human). */
  principal?: Principal;
  /** How the caller authenticated; goes into the usage ledger. */
  authMethod?: 'agent_key' | 'signature' | 'passkey';
  /** The signed-in human (`Authorization: Passkey`) and the session it presented. */
  human?: HumanOnRequest;
  /**
   * The call is an erasure (forget, delete record) by the human who claimed the agent, with its passkey
   * session: free, neither charged nor recorded in the ledger (docs/billing.md, "Prices").
   */
  ownerErasure?: boolean;
  rateLimit?: Array<{ policy: string; limit: number; remaining: number; resetSeconds: number }>;
}

/**
 * A signed-in human as the session guard found it: the human, the session's id, how it was opened, the
 * wallet a Sign in with Ethereum session signed in with (null for a passkey session; such a session
 * reaches only that wallet's agents, which the agents service enforces: docs/authentication.md) and its expiry.
 */
export interface HumanOnRequest {
  humanId: string;
  sessionId: string;
  method: SessionMethod;
  walletAddress: string | null;
  expiresAt: string;
}

export type GatewayRequest = FastifyRequest & { gateway?: GatewayRequestState };

/** The request's gateway state, created on first use. */
export function stateOf(req: GatewayRequest): GatewayRequestState {
  req.gateway ??= {};
  return req.gateway;
}

/**
 * Sets the request's authenticated principal, and puts it in the bus context so that every message the
 * request sends carries it in its headers (agent id, key environment; docs/architecture.md, "Security of the bus").
 */
export function setPrincipal(req: GatewayRequest, principal: Principal): void {
  stateOf(req).principal = principal;
  setBusPrincipal(principal);
}

/** The authenticated principal; throws if a guard did not run (a programming error). */
export function principalOf(req: GatewayRequest): Principal {
  const p = req.gateway?.principal;
  if (!p) throw new Error('No principal on the request: is the auth guard missing?');
  return p;
}

/** The signed-in human; throws if the session guard did not run (a programming error). */
export function humanOf(req: GatewayRequest): HumanOnRequest {
  const h = req.gateway?.human;
  if (!h) throw new Error('No human on the request: is the session guard missing?');
  return h;
}
