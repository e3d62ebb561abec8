import { useEffect, useId, useState } from 'react';
import type { ClaimedAgentOverview, UsagePage } from '@agent-memory/client';
import { errorMessage } from '../../api';
import { useSession } from '../../session';
import { formatDateTime, formatUsd } from '../../components/account-format';
import { OperationsChart } from '../../components/account-operations-chart';
import { UsageChart } from '../../components/account-usage-chart';
import { ScrollRegion } from '../../components/scroll-region';

/** Ledger entries per page. */
const PAGE_SIZE = 20;

/**
 * An agent's balance and usage (docs/billing.md; docs/authentication.md, "Claiming and managing an
 * agent"): balances (live and test), totals, calls and spend per day and per operation (each a chart
 * and a table), and the ledger entries, newest first, a page at a time.
 */
export function UsagePanel({ agentId }: { agentId: string }) {
  const { client } = useSession();
  const ids = useId();
  const [agent, setAgent] = useState<ClaimedAgentOverview | undefined>();
  const [usage, setUsage] = useState<UsagePage | undefined>();
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    let current = true;
    client.humans.agent(agentId).then(
      (answer) => current && setAgent(answer),
      (caught: unknown) => current && setError(errorMessage(caught)),
    );
    return () => {
      current = false;
    };
  }, [agentId, client]);

  useEffect(() => {
    let current = true;
    client.humans.usagePage(agentId, { limit: PAGE_SIZE, offset }).then(
      (answer) => current && setUsage(answer),
      (caught: unknown) => current && setError(errorMessage(caught)),
    );
    return () => {
      current = false;
    };
  }, [agentId, client, offset]);

  const days = usage?.byDay ?? [];
  return (
    <section aria-labelledby={`${ids}-h`} className="panel">
      <h2 id={`${ids}-h`}>Usage</h2>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      {!usage && !error ? <p role="status">Loading usage…</p> : null}
      <dl className="facts">
        <dt>Balance (live)</dt>
        <dd>{agent ? formatUsd(agent.balance.live.balanceMicroUsd) : '…'}</dd>
        <dt>Balance (test)</dt>
        <dd>{agent ? formatUsd(agent.balance.test.balanceMicroUsd) : '…'}</dd>
        <dt>Calls</dt>
        <dd>{usage ? usage.total : '…'}</dd>
        <dt>Spent</dt>
        <dd>{usage ? formatUsd(usage.totalMicroUsd) : '…'}</dd>
      </dl>
      {usage ? (
        <>
          <h3>Per day</h3>
          <UsageChart days={days} />
          <ScrollRegion label="Calls and spend per day (table)">
            <table>
              <caption>Calls and spend per day (UTC), newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Calls</th>
                  <th scope="col">Spend</th>
                </tr>
              </thead>
              <tbody>
                {days.length === 0 ? (
                  <tr>
                    <td colSpan={3}>No calls yet.</td>
                  </tr>
                ) : (
                  days.map((day) => (
                    <tr key={day.date}>
                      <th scope="row">{day.date}</th>
                      <td>{day.count}</td>
                      <td>{formatUsd(day.amountMicroUsd)}</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </ScrollRegion>
          <h3>Per operation</h3>
          <OperationsChart operations={usage.byOperation} />
          <ScrollRegion label="Calls and spend per operation (table)">
            <table>
              <caption className="visually-hidden">Calls and spend per operation</caption>
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col">Calls</th>
                  <th scope="col">Spend</th>
                </tr>
              </thead>
              <tbody>
                {usage.byOperation.length === 0 ? (
                  <tr>
                    <td colSpan={3}>No calls yet.</td>
                  </tr>
                ) : (
                  usage.byOperation.map((row) => (
                    <tr key={row.operation}>
                      <th scope="row">{row.operation}</th>
                      <td>{row.count}</td>
                      <td>{formatUsd(row.amountMicroUsd)}</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </ScrollRegion>
          <h3 id={`${ids}-ledger`}>Ledger</h3>
          <ScrollRegion label="Ledger (table)">
            <table aria-labelledby={`${ids}-ledger`}>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Operation</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Paid with</th>
                  <th scope="col">Request</th>
                </tr>
              </thead>
              <tbody>
                {usage.entries.length === 0 ? (
                  <tr>
                    <td colSpan={6}>No entries.</td>
                  </tr>
                ) : (
                  usage.entries.map((entry) => (
                    <tr key={entry.id}>
                      <td>{formatDateTime(entry.createdAt)}</td>
                      <td>{entry.operation}</td>
                      <td>{entry.environment}</td>
                      <td>{formatUsd(entry.amountMicroUsd)}</td>
                      <td>{entry.paymentMethod}</td>
                      <td>
                        <code className="wrap">{entry.requestId}</code>
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </ScrollRegion>
          <nav className="pager" aria-label="Ledger pages">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Newer
            </button>
            <span>
              {usage.total === 0 ? '0' : `${offset + 1}–${Math.min(offset + PAGE_SIZE, usage.total)}`} of {usage.total}
            </span>
            <button type="button" disabled={offset + PAGE_SIZE >= usage.total} onClick={() => setOffset(offset + PAGE_SIZE)}>
              Older
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}
