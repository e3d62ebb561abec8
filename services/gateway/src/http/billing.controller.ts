import { Body, Controller, Get, HttpCode, Inject, Logger, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import {
  BalanceSchema,
  type BillingEnvironment,
  CompletePaymentReplySchema,
  DomainError,
  ForbiddenError,
  formatUsd,
  PAID_ROUTES,
  PaymentRecordSchema,
  PaymentRequiredError,
  PRICE_LIST_MICRO_USD,
  randomBase62,
  SUBJECTS,
  TopUpBodySchema,
  UsageSummarySchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Principal } from '../auth/principal.decorator';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { requestWithRetry } from '../billing/bus-retry';
import { PaymentProtocol, PaymentReconciliationError } from '../billing/payment-protocol';
import { paymentStateOf } from '../billing/payment-state';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { TopUpDto, UsageQueryDto } from './dto';
import { AgentRoute, PublicRoute, TopUpRoute } from './route-kinds';
import { validate } from './validate';

/** Endpoints that are free (docs/billing.md, "Prices"), listed by `GET /billing/prices`. */
const FREE_ENDPOINTS = [
  'POST /api/v1/agents',
  'GET /api/v1/agents',
  'POST /api/v1/records',
  'GET /api/v1/records',
  'GET /api/v1/records/{recordId}',
  'PATCH /api/v1/records/{recordId}',
  'DELETE /api/v1/records/{recordId}',
  'POST /api/v1/records/{recordId}/raw',
  'GET /api/v1/records/{recordId}/raw',
  'GET /api/v1/billing/prices',
  'GET /api/v1/billing/balance',
  'GET /api/v1/billing/usage',
  'POST /api/v1/billing/top-up',
  'POST /api/v1/billing/sandbox/top-up',
];

/**
 * Billing (docs/billing.md, "Endpoints"): the price list, the
 * caller's balance and usage, top-ups of the live balance paid with a Payment credential, and free
 * sandbox top-ups for test keys. All free; balance and usage are those of the key's environment.
 */
@ApiTags('billing')
@Controller('api/v1/billing')
export class BillingController {
  private readonly logger = new Logger(BillingController.name);

  constructor(
    private readonly bus: BusClient,
    private readonly payments: PaymentProtocol,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  /** The price list (docs/billing.md, "Prices") and how to pay. No auth. */
  @Get('prices')
  @PublicRoute()
  prices() {
    return {
      currency: 'USD' as const,
      billingMode: this.options.billingMode,
      paid: PAID_ROUTES.map((r) => ({ ...r, priceMicroUsd: PRICE_LIST_MICRO_USD[r.operation], priceUsd: formatUsd(PRICE_LIST_MICRO_USD[r.operation]) })),
      free: FREE_ENDPOINTS,
      payment: this.payments.describe(),
    };
  }

  /** The caller's balance: live for a live key, the sandbox for a `_test_` key. */
  @Get('balance')
  @AgentRoute()
  async balance(@Principal() { agentId, keyEnvironment }: Principal) {
    return this.balanceResponse(await this.bus.request(SUBJECTS.billing.balance, { agentId, environment: keyEnvironment }, BalanceSchema));
  }

  /** The caller's usage ledger in the key's environment: a page of entries, totals per operation and per UTC day. */
  @Get('usage')
  @AgentRoute()
  async usage(@Principal() { agentId, keyEnvironment }: Principal, @Query() q: UsageQueryDto) {
    const summary = await this.bus.request(
      SUBJECTS.billing.usage,
      { agentId, environment: keyEnvironment, limit: q.limit, offset: q.offset, operation: q.operation, from: q.from && toTimestamp(q.from), to: q.to && toTimestamp(q.to) },
      UsageSummarySchema,
    );
    return { environment: keyEnvironment, limit: q.limit, offset: q.offset, ...summary, totalUsd: formatUsd(summary.totalMicroUsd) };
  }

  /**
   * Top-up of the live balance. With a live Bearer key: 402 with a challenge for the amount, bound to the
   * agent. With `Authorization: Payment` paying that challenge: settle, credit, answer the new balance
   * with `Payment-Receipt`. Test keys cannot spend real funds (403). The settlement reference is stored on
   * the claimed payment before the money moves, and the credit is retried (5 attempts over ~3 s); when the
   * settlement's outcome is unknown or its credit cannot be recorded, the payment stays `claimed` with its
   * reference and the answer is 402 without a challenge, saying it is being reconciled (docs/billing.md).
   */
  @Post('top-up')
  @HttpCode(200)
  @TopUpRoute()
  @ApiBody({ type: TopUpDto })
  async topUp(@Req() req: GatewayRequest, @Body() body: unknown) {
    const { amount } = validate(TopUpBodySchema, body, 'body');
    const principal = principalOf(req);
    const payment = paymentStateOf(req);
    if (!payment?.verified) {
      if (principal.keyEnvironment === 'test') throw new ForbiddenError('Test keys cannot spend real funds: add sandbox credit with POST /api/v1/billing/sandbox/top-up');
      const target = this.payments.topUpTarget(principal.agentId, amount);
      throw new PaymentRequiredError(`Payment required: ${target.description}. Pay the challenge and repeat this request with "Authorization: Payment <credential>"`, await this.payments.challenge(target));
    }
    const { verified, target } = payment;
    try {
      await this.bus.request(
        SUBJECTS.billing.claimPayment,
        { challengeId: verified.challengeId, purpose: 'top_up', agentId: principal.agentId, amountMicroUsd: verified.amountMicroUsd, payer: verified.payer, requestId: String(req.id) },
        PaymentRecordSchema,
      );
    } catch (err) {
      if (err instanceof DomainError && err.code === 'PAYMENT_REQUIRED') throw new PaymentRequiredError(err.message, await this.payments.challenge(target));
      throw err;
    }
    const { challengeId } = verified;
    let settled;
    try {
      settled = await this.payments.settle(verified, target, async (reference) => {
        await requestWithRetry(this.bus, SUBJECTS.billing.completePayment, { challengeId, outcome: 'submitted', reference }, CompletePaymentReplySchema);
      });
    } catch (err) {
      if (err instanceof PaymentReconciliationError) {
        this.logger.error({ requestId: req.id, challengeId, reference: err.reference }, 'Top-up settlement not confirmed: left claimed for reconciliation');
      } else {
        await requestWithRetry(this.bus, SUBJECTS.billing.completePayment, { challengeId, outcome: 'failed' }, CompletePaymentReplySchema).catch((e: unknown) =>
          this.logger.error({ err: e, challengeId }, 'Failed top-up could not be recorded: the payment stays claimed'),
        );
      }
      throw err;
    }
    void payment.reply.header('Payment-Receipt', settled.receipt);
    let done;
    try {
      done = await requestWithRetry(this.bus, SUBJECTS.billing.completePayment, { challengeId, outcome: 'settled', reference: settled.reference }, CompletePaymentReplySchema);
    } catch (err) {
      this.logger.error({ err, requestId: req.id, challengeId, reference: settled.reference, amountMicroUsd: verified.amountMicroUsd }, 'Settled top-up could not be credited: left claimed for reconciliation');
      throw new PaymentReconciliationError(
        settled.reference,
        `Payment ${settled.reference} settled, but the credit could not be recorded yet: it is being reconciled. Do not pay again: the amount will be credited to the agent's live balance`,
      );
    }
    const balance = done.balance ?? { agentId: principal.agentId, environment: 'live' as BillingEnvironment, balanceMicroUsd: 0 };
    return { ...this.balanceResponse(balance), creditedMicroUsd: verified.amountMicroUsd, reference: settled.reference };
  }

  /** Free sandbox credit for the test environment (`_test_` keys only; live keys: 403). */
  @Post('sandbox/top-up')
  @HttpCode(200)
  @AgentRoute()
  async sandboxTopUp(@Principal() principal: Principal, @Body() { amount }: TopUpDto) {
    if (principal.keyEnvironment !== 'test') throw new ForbiddenError('Sandbox credit is for test keys only: top up a live balance with POST /api/v1/billing/top-up');
    const balance = await this.bus.request(
      SUBJECTS.billing.credit,
      { creditId: `sandbox_top_up:${randomBase62(22)}`, agentId: principal.agentId, environment: 'test', amountMicroUsd: amount, reason: 'sandbox_top_up' },
      BalanceSchema,
    );
    return { ...this.balanceResponse(balance), creditedMicroUsd: amount };
  }

  private balanceResponse(b: { agentId: string; environment: BillingEnvironment; balanceMicroUsd: number }) {
    return { ...b, balanceUsd: formatUsd(b.balanceMicroUsd), currency: 'USD' as const, billingMode: this.options.billingMode };
  }
}

/** A `YYYY-MM-DD` date is midnight UTC; a timestamp stays as it is. */
function toTimestamp(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : new Date(value).toISOString();
}
