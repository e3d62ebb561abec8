import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import {
  AgentsGetWalletReplySchema,
  ForbiddenError,
  NotFoundError,
  type PaidOperation,
  PaymentRequiredError,
  RecordIdSchema,
  RecordsResolveOwnerReplySchema,
  SUBJECTS,
  TopUpBodySchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { type GatewayRequest, setPrincipal } from '../auth/request-context';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { validate } from '../http/validate';
import { PaymentProtocol, requestBindingOf } from './payment-protocol';
import { setPaymentState } from './payment-state';

/** What a route is paid for: a paid operation (docs/billing.md, "Prices"), or a top-up of the caller's balance. */
export type PaidRouteKind = { kind: 'call'; operation: PaidOperation } | { kind: 'top_up' };
const PAID_ROUTE = 'agent-memory:paid-route';
/** Marks a paid call (docs/billing.md, "Prices"); read by {@link PaymentAuthGuard}. */
export const PaidCall = (operation: PaidOperation) => SetMetadata(PAID_ROUTE, { kind: 'call', operation } satisfies PaidRouteKind);
/** Marks the top-up route (docs/billing.md). */
export const PaidTopUp = () => SetMetadata(PAID_ROUTE, { kind: 'top_up' } satisfies PaidRouteKind);

const PAYMENT_SCHEME = /^Payment\s+\S/i;

/**
 * Authentication of paid routes by `Authorization: Payment <credential>` (docs/authentication.md,
 * docs/billing.md). It runs first on a paid route, followed by {@link AgentKeyGuard}: when it sets the
 * principal (a verified credential) the agent key guard skips; on any other request it sets nothing and
 * returns true (Bearer keys, signatures and the 401 of a missing header are the agent key guard's), except:
 *
 * - Payment on a paid call: the credential must verify for this operation, record and price, and be
 *   signed by the wallet of the record's agent (otherwise NOT_FOUND, as for another agent's record); the
 *   caller is that agent, in the live environment (a test agent's record: FORBIDDEN, no real funds).
 * - Payment on a top-up: the challenge must have been issued to an agent (a Bearer top-up request first);
 *   any wallet may pay it, the money goes to that agent's live balance.
 * - No Authorization on a paid call in `enforce` mode: 402 PAYMENT_REQUIRED with a challenge, so that a
 *   payment-capable client can discover the price (docs/billing.md, "How a call is paid in `enforce` mode").
 *
 * Settlement and charging happen later (UsageRecorder, billing controller), after validation.
 */
@Injectable()
export class PaymentAuthGuard implements CanActivate {
  constructor(
    private readonly bus: BusClient,
    private readonly reflector: Reflector,
    private readonly payments: PaymentProtocol,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.reflector.get<PaidRouteKind | undefined>(PAID_ROUTE, context.getHandler());
    if (!route) throw new Error('PaymentAuthGuard on a route without @PaidCall or @PaidTopUp');
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const header = typeof req.headers.authorization === 'string' ? req.headers.authorization.trim() : undefined;
    return route.kind === 'call' ? this.call(req, reply, route.operation, header) : this.topUp(req, reply, header);
  }

  private async call(req: GatewayRequest, reply: FastifyReply, operation: PaidOperation, header: string | undefined): Promise<boolean> {
    const paying = !!header && PAYMENT_SCHEME.test(header);
    // A Bearer key, or no Authorization outside enforce mode: left to AgentKeyGuard, next on the route (401 first).
    if (!paying && (header || this.options.billingMode !== 'enforce')) return true;
    const recordId = RecordIdSchema.safeParse((req.params as Record<string, string>).recordId);
    if (!recordId.success) throw new NotFoundError('Record not found');
    const target = this.payments.callTarget(operation, recordId.data, requestBindingOf(req));
    if (!paying) {
      throw new PaymentRequiredError(`Payment required: ${target.description}. Pay the challenge with "Authorization: Payment <credential>", or call with "Authorization: Bearer <agent key>" and a prepaid balance`, await this.payments.challenge(target));
    }
    const verified = await this.payments.verify(header, target);
    const owner = await this.bus.request(SUBJECTS.records.resolveOwner, { recordId: recordId.data }, RecordsResolveOwnerReplySchema);
    const agent = await this.bus.request(SUBJECTS.agents.getWallet, { agentId: owner.agentId }, AgentsGetWalletReplySchema);
    // Paying is not owning: only the record's agent wallet may pay for a call on it (same answer as for another agent's record).
    if (agent.walletAddress.toLowerCase() !== verified.payer.toLowerCase()) throw new NotFoundError('Record not found');
    // Payment credentials move real funds; test agents pay from their sandbox balance only.
    if (agent.keyEnvironment === 'test') throw new ForbiddenError('A test agent pays from its sandbox balance: use its _test_ key; Payment credentials move real funds');
    setPrincipal(req, { agentId: agent.agentId, keyEnvironment: 'live', mode: agent.mode });
    setPaymentState(req, { reply, target, verified, ownerProvenFor: recordId.data });
    return true;
  }

  private async topUp(req: GatewayRequest, reply: FastifyReply, header: string | undefined): Promise<boolean> {
    if (!header || !PAYMENT_SCHEME.test(header)) return true;
    const { amount } = validate(TopUpBodySchema, req.body, 'body');
    const agentId = this.payments.boundAgentOf(header);
    if (!agentId) throw new PaymentRequiredError('A top-up credential must pay a challenge issued to an agent: send the top-up request with "Authorization: Bearer <agent key>" first');
    const target = this.payments.topUpTarget(agentId, amount);
    const verified = await this.payments.verify(header, target);
    const agent = await this.bus.request(SUBJECTS.agents.getWallet, { agentId }, AgentsGetWalletReplySchema);
    setPrincipal(req, { agentId: agent.agentId, keyEnvironment: 'live', mode: agent.mode });
    setPaymentState(req, { reply, target, verified });
    return true;
  }
}
