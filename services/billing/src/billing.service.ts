import { Inject, Injectable } from '@nestjs/common';
import { type BillingRecordUsageMessage, type LedgerEntry, newId, PRICE_LIST_MICRO_USD, type UsageSummary } from '@agent-memory/shared';
import type { BillingPrismaClient } from './persistence/prisma';

export const BILLING_PRISMA = Symbol('BillingPrisma');

/**
 * The usage ledger (DESIGN.md §3): one entry per successful paid call at the price list's amount
 * (spec, "Prices": 0.05 USD = 50 000 micro-USD). `requestId` is unique, so a redelivered message is
 * recorded once.
 */
@Injectable()
export class BillingService {
  constructor(@Inject(BILLING_PRISMA) private readonly prisma: BillingPrismaClient) {}

  /** Records the charge of one call; returns the entry (the existing one for a repeated requestId). */
  async recordUsage(usage: BillingRecordUsageMessage): Promise<LedgerEntry> {
    const row = await this.prisma.ledgerEntry.upsert({
      where: { requestId: usage.requestId },
      update: {},
      create: {
        id: newId('ledgerEntry'),
        agentId: usage.agentId,
        operation: usage.operation,
        recordId: usage.recordId,
        amountMicroUsd: PRICE_LIST_MICRO_USD[usage.operation],
        requestId: usage.requestId,
        idempotencyKey: usage.idempotencyKey ?? null,
        paymentMethod: usage.paymentMethod,
      },
    });
    return { ...row, operation: row.operation as LedgerEntry['operation'], createdAt: row.createdAt.toISOString() };
  }

  /** An agent's ledger entries, newest first, with the count and sum over all of them. */
  async usage(agentId: string, limit: number, offset: number): Promise<UsageSummary> {
    const [rows, agg] = await Promise.all([
      this.prisma.ledgerEntry.findMany({ where: { agentId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
      this.prisma.ledgerEntry.aggregate({ where: { agentId }, _count: { _all: true }, _sum: { amountMicroUsd: true } }),
    ]);
    return {
      entries: rows.map((r) => ({ ...r, operation: r.operation as LedgerEntry['operation'], createdAt: r.createdAt.toISOString() })),
      total: agg._count._all,
      totalMicroUsd: agg._sum.amountMicroUsd ?? 0,
    };
  }
}
