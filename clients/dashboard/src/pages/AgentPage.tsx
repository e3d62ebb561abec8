import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import type { ClaimedAgentOverview, MemoryRecord, RotatedKey } from '@agent-memory/client';
import { useSession } from '../session';
import { errorMessage } from '../api';
import { RecordTree } from '../components/record-tree';
import { formatDate } from '../components/record-format';
import { KeysPanel } from './agent/KeysPanel';
import { UsagePanel } from './agent/UsagePanel';

/** Records per page of the humans' records listing (docs/authentication.md, "Claiming and managing an agent"; 1–100). */
const RECORDS_PAGE = 100;

const TABS = [
  { id: 'records', label: 'Records' },
  { id: 'keys', label: 'Keys' },
  { id: 'usage', label: 'Usage' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/** One view per agentId: moving to another agent starts with fresh state. */
export function AgentPage() {
  const { agentId = '' } = useParams();
  return <AgentView key={agentId} />;
}

/**
 * `/agents/:agentId`: one claimed agent (`GET /humans/me/agents/{agentId}`), its details, and three tabs:
 * its records as a tree by hierarchy (`GET /humans/me/agents/{agentId}/records`, 100 a page, "Load more"),
 * its keys and its usage. Everything the agent wrote is shown as text.
 */
function AgentView() {
  const { agentId = '' } = useParams();
  const { client } = useSession();
  const [agent, setAgent] = useState<ClaimedAgentOverview | undefined>();
  const [agentError, setAgentError] = useState<string | undefined>();
  const [records, setRecords] = useState<MemoryRecord[]>([]);
  const [total, setTotal] = useState<number | undefined>();
  const [recordsError, setRecordsError] = useState<string | undefined>();
  const [loadingRecords, setLoadingRecords] = useState(false);
  const [tab, setTab] = useState<TabId>('records');
  // a rotated key is shown once: kept here, above the tab panels, so that switching tabs does not lose it
  const [rotated, setRotated] = useState<RotatedKey | undefined>();
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});

  useEffect(() => {
    let current = true;
    client.humans.agent(agentId).then(
      (found) => current && setAgent(found),
      (error: unknown) => current && setAgentError(errorMessage(error)),
    );
    client.humans.recordsPage(agentId, { limit: RECORDS_PAGE, offset: 0 }).then(
      (page) => {
        if (!current) return;
        setRecords(page.records);
        setTotal(page.total);
      },
      (error: unknown) => current && setRecordsError(errorMessage(error)),
    );
    return () => {
      current = false;
    };
  }, [client, agentId]);

  const loadMore = useCallback(async () => {
    setLoadingRecords(true);
    setRecordsError(undefined);
    try {
      const page = await client.humans.recordsPage(agentId, { limit: RECORDS_PAGE, offset: records.length });
      setRecords((known) => {
        const seen = new Set(known.map((r) => r.id));
        return [...known, ...page.records.filter((r) => !seen.has(r.id))];
      });
      setTotal(page.total);
    } catch (error) {
      setRecordsError(errorMessage(error));
    } finally {
      setLoadingRecords(false);
    }
  }, [client, agentId, records.length]);

  // the tabs follow the WAI-ARIA tabs pattern: arrows, Home and End move between them
  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = TABS.findIndex((t) => t.id === tab);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: TABS.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = TABS[(next + TABS.length) % TABS.length];
    setTab(target.id);
    tabRefs.current[target.id]?.focus();
  };

  if (agentError) {
    return (
      <>
        <h1>Agent</h1>
        <p role="alert" className="error">{agentError}</p>
        <p><Link to="/agents">Back to your agents</Link></p>
      </>
    );
  }
  if (!agent) return <p role="status" className="loading">Loading the agent…</p>;

  return (
    <>
      <p className="breadcrumb"><Link to="/agents">Your agents</Link></p>
      <h1 className="page-title">{agent.name}</h1>
      <dl className="details">
        <dt>Agent id</dt><dd><code>{agent.id}</code></dd>
        <dt>Mode</dt><dd>{agent.mode}</dd>
        <dt>Category</dt><dd>{agent.category}</dd>
        <dt>Tags</dt><dd>{agent.tags.length ? agent.tags.join(', ') : '—'}</dd>
        <dt>Wallet</dt><dd><code>{agent.walletAddress}</code></dd>
        <dt>Key environment</dt><dd>{agent.keyEnvironment}</dd>
        <dt>Created</dt><dd>{formatDate(agent.createdAt)}</dd>
        <dt>Claimed</dt><dd>{formatDate(agent.claimedAt)}</dd>
        <dt>Last activity</dt><dd>{formatDate(agent.lastActivityAt)}</dd>
      </dl>

      <div role="tablist" aria-label="Agent sections" className="tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            ref={(el) => {
              tabRefs.current[t.id] = el;
            }}
            onClick={() => setTab(t.id)}
            onKeyDown={onTabKey}
          >
            {t.label}
          </button>
        ))}
      </div>

      <div role="tabpanel" id="panel-records" aria-labelledby="tab-records" hidden={tab !== 'records'} tabIndex={0}>
        <h2>Records</h2>
        {total !== undefined ? <p>{records.length} of {total} records loaded.</p> : null}
        {recordsError ? <p role="alert" className="error">{recordsError}</p> : null}
        {total === undefined && !recordsError ? <p role="status">Loading records…</p> : <RecordTree agentId={agentId} records={records} />}
        {total !== undefined && records.length < total ? (
          <button type="button" onClick={() => void loadMore()} disabled={loadingRecords}>
            {loadingRecords ? 'Loading…' : 'Load more records'}
          </button>
        ) : null}
      </div>
      <div role="tabpanel" id="panel-keys" aria-labelledby="tab-keys" hidden={tab !== 'keys'} tabIndex={0}>
        {tab === 'keys' ? <KeysPanel agentId={agentId} rotated={rotated} onRotated={setRotated} /> : null}
      </div>
      <div role="tabpanel" id="panel-usage" aria-labelledby="tab-usage" hidden={tab !== 'usage'} tabIndex={0}>
        {tab === 'usage' ? <UsagePanel agentId={agentId} /> : null}
      </div>
    </>
  );
}
