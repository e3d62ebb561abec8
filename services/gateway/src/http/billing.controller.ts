import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  BalanceResponseSchema,
  BalanceSchema,
  type BillingEnvironment,
  ForbiddenError,
  formatUsd,
  PAID_ROUTES,
  PRICE_LIST_MICRO_USD,
  PricesResponseSchema,
  randomBase62,
  SUBJECTS,
  TopUpResponseSchema,
  UsageResponseSchema,
  UsageSummarySchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { Principal } from '../auth/principal.decorator';
import type { GatewayRequest } from '../auth/request-context';
import { PaymentProtocol } from '../billing/payment-protocol';
import { UsageRecorder } from '../billing/usage-recorder';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { TopUpDto, UsageQueryDto } from './dto';
import { AgentRoute, PublicRoute, TopUpRoute } from './route-kinds';

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
  constructor(
    private readonly bus: BusClient,
    private readonly payments: PaymentProtocol,
    private readonly recorder: UsageRecorder,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  /** The price list (docs/billing.md, "Prices") and how to pay. No auth. */
  @Get('prices')
  @Returns(PricesResponseSchema, { summary: 'The price list and the payment method' })
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
  @Returns(BalanceResponseSchema, { summary: 'The caller\'s balance (live, or the sandbox for a test key)' })
  @AgentRoute()
  async balance(@Principal() { agentId, keyEnvironment }: Principal) {
    await this.recorder.settled(agentId);
    return this.balanceResponse(await this.bus.request(SUBJECTS.billing.balance, { agentId, environment: keyEnvironment }, BalanceSchema));
  }

  /** The caller's usage ledger in the key's environment: a page of entries, totals per operation and per UTC day. */
  @Get('usage')
  @Returns(UsageResponseSchema, { summary: 'The caller\'s usage ledger: a page of entries and totals' })
  @AgentRoute()
  async usage(@Principal() { agentId, keyEnvironment }: Principal, @Query() q: UsageQueryDto) {
    await this.recorder.settled(agentId);
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
  @Returns(TopUpResponseSchema, { summary: 'Top up the live balance with a Payment credential', description: 'With a live agent key: 402 with a `Payment` challenge for the amount. With `Authorization: Payment` paying that challenge: the new balance, with `Payment-Receipt`. Test keys: 403.' })
  @TopUpRoute()
  async topUp(@Req() req: GatewayRequest, @Body() { amount }: TopUpDto) {
    const topUp = await this.recorder.topUp(req, amount);
    return { ...this.balanceResponse(topUp.balance), creditedMicroUsd: topUp.creditedMicroUsd, reference: topUp.reference };
  }

  /** Free sandbox credit for the test environment (`_test_` keys only; live keys: 403). */
  @Post('sandbox/top-up')
  @HttpCode(200)
  @Returns(TopUpResponseSchema, { summary: 'Free sandbox credit for a test key', description: 'Live keys: 403.' })
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
