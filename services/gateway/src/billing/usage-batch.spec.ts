import { type BusClient, currentBusHeaders, runWithBusHeaders } from '@agent-memory/platform';
import { type BillingRecordUsageMessage, DomainError, LedgerEntrySchema, newId, RECORD_USAGE_BATCH_MAX_ENTRIES, SUBJECTS } from '@agent-memory/shared';
import { UsageBatch } from './usage-batch';

/** What the fake bus saw: each request's subject, payload and the bus headers it was sent under. */
interface Sent {
  subject: string;
  payload: unknown;
  headers: ReturnType<typeof currentBusHeaders>;
}

function fakeBus(answer: (subject: string, payload: unknown) => unknown = () => ({ recorded: 1 })) {
  const sent: Sent[] = [];
  return {
    sent,
    bus: {
      request: async (subject: string, payload: unknown, schema: { parse(v: unknown): unknown }) => {
        sent.push({ subject, payload, headers: currentBusHeaders() && { ...currentBusHeaders()! } });
        return schema.parse(answer(subject, payload));
      },
    } as unknown as Pick<BusClient, 'request'>,
  };
}

const agents = new Map<string, string>();
/** The agent id of a name used in a test. */
const agentOf = (name: string) => agents.get(name) ?? agents.set(name, newId('agent')).get(name)!;
const recordId = newId('record');
let n = 0;
function entry(agent = 'a'): BillingRecordUsageMessage {
  n++;
  return { chargeId: `chg_${n}`, requestId: `req-${n}`, agentId: agentOf(agent), environment: 'test', operation: 'recall', recordId, paymentMethod: 'agent_key' };
}
/** The billing service's answer to a single record-usage: the entry it wrote. */
const ledgerEntry = (m: BillingRecordUsageMessage) =>
  LedgerEntrySchema.parse({ ...m, id: `led_${m.chargeId}`, amountMicroUsd: 50_000, idempotencyKey: m.idempotencyKey ?? null, createdAt: new Date().toISOString() });
const silent = { error: jest.fn() };

afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
  silent.error.mockClear();
});

describe('UsageBatch', () => {
  it('sends the entries added within the window as one record-usage-batch, outside the context of the calls that added them', async () => {
    jest.useFakeTimers();
    const { bus, sent } = fakeBus();
    const batch = new UsageBatch(bus, silent, 50);
    const written = runWithBusHeaders({ requestId: 'req-call', agentId: agentOf('a'), keyEnvironment: 'test' }, () => [batch.add(entry('a')), batch.add(entry('b'))]);
    await jest.advanceTimersByTimeAsync(49);
    expect(sent).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    await Promise.all(written);
    expect(sent).toHaveLength(1);
    expect(sent[0].subject).toBe(SUBJECTS.billing.recordUsageBatch);
    expect((sent[0].payload as { entries: BillingRecordUsageMessage[] }).entries.map((e) => e.agentId)).toEqual([agentOf('a'), agentOf('b')]);
    // no caller's principal on a message that carries several agents' entries
    expect(sent[0].headers?.agentId).toBeUndefined();
    expect(sent[0].headers?.requestId).toMatch(/^usage-batch-/);
  });

  it('sends at once when the batch is full, and flush() sends what waits without waiting for the window', async () => {
    jest.useFakeTimers();
    const { bus, sent } = fakeBus();
    const batch = new UsageBatch(bus, silent, 60_000);
    const full = Array.from({ length: RECORD_USAGE_BATCH_MAX_ENTRIES + 1 }, () => batch.add(entry()));
    await Promise.all(full.slice(0, RECORD_USAGE_BATCH_MAX_ENTRIES));
    expect(sent.map((s) => (s.payload as { entries: unknown[] }).entries.length)).toEqual([RECORD_USAGE_BATCH_MAX_ENTRIES]);
    await batch.flush();
    await full[RECORD_USAGE_BATCH_MAX_ENTRIES];
    expect(sent.map((s) => (s.payload as { entries: unknown[] }).entries.length)).toEqual([RECORD_USAGE_BATCH_MAX_ENTRIES, 1]);
    await batch.flush(); // nothing waits: no message
    expect(sent).toHaveLength(2);
  });

  it('after sendAtOnce() each entry goes out as it is added', async () => {
    const { bus, sent } = fakeBus();
    const batch = new UsageBatch(bus, silent, 60_000);
    await batch.sendAtOnce();
    await batch.add(entry());
    await batch.add(entry());
    expect(sent.map((s) => (s.payload as { entries: unknown[] }).entries.length)).toEqual([1, 1]);
  });

  it('a batch the billing service refuses is sent again entry by entry, each under its own principal; only the refused entry is logged as lost', async () => {
    jest.useFakeTimers();
    const bad = entry('bad');
    const { bus, sent } = fakeBus((subject, payload) => {
      if (subject === SUBJECTS.billing.recordUsageBatch) throw new DomainError('VALIDATION_ERROR', 'one entry is wrong');
      const m = payload as BillingRecordUsageMessage;
      if (m.chargeId === bad.chargeId) throw new DomainError('VALIDATION_ERROR', 'this one');
      return ledgerEntry(m);
    });
    const batch = new UsageBatch(bus, silent, 60_000);
    const good = entry('good');
    const written = [batch.add(good), batch.add(bad)];
    // the retries' waits (about 3 s in all) pass on the fake clock
    await Promise.all([batch.flush(), jest.advanceTimersByTimeAsync(10_000)]);
    await Promise.all(written);
    expect(sent.map((s) => s.subject)).toEqual([SUBJECTS.billing.recordUsageBatch, SUBJECTS.billing.recordUsage, SUBJECTS.billing.recordUsage]);
    expect(sent.slice(1).map((s) => [s.headers?.agentId, s.headers?.requestId])).toEqual([
      [agentOf('good'), good.requestId],
      [agentOf('bad'), bad.requestId],
    ]);
    expect(silent.error).toHaveBeenCalledTimes(1);
    expect(silent.error.mock.calls[0][0]).toMatchObject({ chargeId: bad.chargeId, agentId: agentOf('bad') });

    // the next entries are batched again
    sent.length = 0;
    const next = batch.add(entry('good'));
    await Promise.all([batch.flush(), jest.advanceTimersByTimeAsync(10_000)]);
    await next;
    expect(sent[0].subject).toBe(SUBJECTS.billing.recordUsageBatch);
  });

  it('a batch that fails for a while is retried as one message and written once it is answered', async () => {
    jest.useFakeTimers();
    let failures = 2;
    const { bus, sent } = fakeBus(() => {
      if (failures-- > 0) throw new DomainError('INTERNAL_ERROR', 'billing restarting');
      return { recorded: 2 };
    });
    const batch = new UsageBatch(bus, silent, 60_000);
    const written = [batch.add(entry()), batch.add(entry())];
    await Promise.all([batch.flush(), jest.advanceTimersByTimeAsync(10_000)]);
    await Promise.all(written);
    expect(sent.map((s) => s.subject)).toEqual(Array(3).fill(SUBJECTS.billing.recordUsageBatch));
    expect(silent.error).not.toHaveBeenCalled();
  });
});
