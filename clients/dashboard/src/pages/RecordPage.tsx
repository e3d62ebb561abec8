import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { MemoryItem, MemoryRecord } from '@agent-memory/client';
import { useSession } from '../session';
import { errorMessage } from '../api';
import { TagList } from '../components/record-tree';
import { formatDate } from '../components/record-format';
import { MemoryGroups } from '../components/memory-list';
import { MemorySearch, type RecalledMemory } from '../components/memory-search';
import { MemoryDetail, type OpenMemory } from '../components/memory-detail';
import { FileList } from '../components/file-list';
import { RecordDelete } from '../components/record-delete';
import { ForgetByPath } from '../components/record-forget-path';

/** Memories per page of `GET /records/{recordId}/memories` (docs/api.md, "Memories"; 1–200, each page paid). */
const MEMORIES_PAGE = 50;

/** One view per recordId: moving to another record (e.g. its parent) starts with fresh state. */
export function RecordPage() {
  const { recordId = '' } = useParams();
  return <RecordView key={recordId} />;
}

/**
 * `/agents/:agentId/records/:recordId`: one record of a claimed agent (`GET /records/{recordId}` with the
 * passkey session): its details; a search (recall) with similarity scores; its memories by type (the paid
 * listing, 50 a page, loaded only on "Show memories", then "Load more"); one memory's full content with
 * "Forget"; "Forget a memory by path" (free, no paid read needed); its files; "Delete record".
 * Everything the agent stored is shown as text.
 */
function RecordView() {
  const { agentId = '', recordId = '' } = useParams();
  const { client } = useSession();
  const navigate = useNavigate();
  const [record, setRecord] = useState<MemoryRecord | undefined>();
  const [recordError, setRecordError] = useState<string | undefined>();
  const [memories, setMemories] = useState<MemoryItem[] | undefined>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [memoriesError, setMemoriesError] = useState<string | undefined>();
  const [loadingMore, setLoadingMore] = useState(false);
  const [selected, setSelected] = useState<string | undefined>();
  const [recalled, setRecalled] = useState<RecalledMemory | undefined>();
  const [forgotten, setForgotten] = useState<ReadonlySet<string>>(() => new Set());
  const [notice, setNotice] = useState<string | undefined>();
  const [parent, setParent] = useState<MemoryRecord | undefined>();
  const [agentName, setAgentName] = useState<string | undefined>();
  const memoriesHeading = useRef<HTMLHeadingElement>(null);
  const [forgets, setForgets] = useState(0);

  // after a forget the detail that held the focus is gone (and its dialog's close put the focus back there):
  // keyboard users continue at the list. An effect, so that it runs after the dialog's cleanup.
  useEffect(() => {
    if (forgets > 0) memoriesHeading.current?.focus();
  }, [forgets]);
  const agentPath = `/agents/${encodeURIComponent(agentId)}`;

  useEffect(() => {
    let current = true;
    client.records.get(recordId).then(
      (found) => current && setRecord(found),
      (e: unknown) => current && setRecordError(errorMessage(e)),
    );
    return () => {
      current = false;
    };
  }, [client, recordId]);

  // the paid listing is read only when asked for ("Show memories"): a visit costs the agent nothing
  const [showing, setShowing] = useState(false);
  const showMemories = useCallback(async () => {
    setShowing(true);
    setMemoriesError(undefined);
    try {
      const page = await client.memories.page(recordId, { limit: MEMORIES_PAGE });
      setMemories(page.memories);
      setCursor(page.nextCursor);
    } catch (e) {
      setMemoriesError(errorMessage(e));
    } finally {
      setShowing(false);
    }
  }, [client, recordId]);

  // the agent's name for the way back (free)
  useEffect(() => {
    let current = true;
    client.humans.agent(agentId).then(
      (found) => current && setAgentName(found.name),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [client, agentId]);

  // the parent's name for the link up the tree (free; an unreadable parent is shown by its id)
  const parentId = record?.parentRecordId;
  useEffect(() => {
    if (!parentId) return;
    let current = true;
    client.records.get(parentId).then(
      (found) => current && setParent(found),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [client, parentId]);

  const loadMore = useCallback(async () => {
    if (!cursor) return;
    setLoadingMore(true);
    setMemoriesError(undefined);
    try {
      const page = await client.memories.page(recordId, { limit: MEMORIES_PAGE, cursor });
      setMemories((known) => [...(known ?? []), ...page.memories]);
      setCursor(page.nextCursor);
    } catch (e) {
      setMemoriesError(errorMessage(e));
    } finally {
      setLoadingMore(false);
    }
  }, [client, recordId, cursor]);

  const visible = useMemo(() => memories?.filter((m) => !forgotten.has(m.id)), [memories, forgotten]);
  const open: OpenMemory | undefined = useMemo(() => {
    if (!selected || forgotten.has(selected)) return undefined;
    const item = visible?.find((m) => m.id === selected);
    if (item) return { id: item.id, path: item.path, type: item.type, summary: item.summary, item };
    if (recalled?.id === selected) return { id: recalled.id, path: recalled.path, type: recalled.type, summary: recalled.summary };
    return undefined;
  }, [selected, forgotten, visible, recalled]);

  const onForgotten = (id: string) => {
    const path = open?.path ?? id;
    setForgotten((known) => new Set([...known, id]));
    setSelected(undefined);
    setNotice(`Forgot the memory ${path}.`);
    setForgets((n) => n + 1);
  };
  // forgotten by path: hide every listed or recalled memory at that path
  const onForgottenPath = (path: string) => {
    const ids = [...(memories ?? []).filter((m) => m.path === path).map((m) => m.id), ...(recalled?.path === path ? [recalled.id] : [])];
    setForgotten((known) => new Set([...known, ...ids]));
    if (open?.path === path) setSelected(undefined);
  };

  if (recordError) {
    return (
      <>
        <h1>Record</h1>
        <p role="alert" className="error">{recordError}</p>
        <p><Link to={agentPath}>Back to the agent</Link></p>
      </>
    );
  }
  if (!record) return <p role="status" className="loading">Loading the record…</p>;

  return (
    <>
      <p className="breadcrumb">
        <Link to="/agents">Your agents</Link> › <Link to={agentPath}>{agentName ?? 'Agent'}</Link>
      </p>
      <h1 className="page-title">{record.name}</h1>
      <dl className="details">
        <dt>Record id</dt><dd><code>{record.id}</code></dd>
        <dt>Category</dt><dd>{record.category}</dd>
        <dt>Tags</dt><dd>{record.tags.length ? <TagList tags={record.tags} /> : '—'}</dd>
        <dt>Parent</dt>
        <dd>{record.parentRecordId ? <Link to={`${agentPath}/records/${encodeURIComponent(record.parentRecordId)}`}>{parent?.id === record.parentRecordId ? parent.name : record.parentRecordId}</Link> : '—'}</dd>
        <dt>Created</dt><dd>{formatDate(record.createdAt)}</dd>
        <dt>Updated</dt><dd>{formatDate(record.updatedAt)}</dd>
      </dl>
      <p role="status" className="notice">{notice}</p>

      <MemorySearch
        recordId={recordId}
        hiddenIds={forgotten}
        onSelect={(memory) => {
          setRecalled(memory);
          setSelected(memory.id);
        }}
      />

      {open ? <MemoryDetail recordId={recordId} memory={open} onClose={() => setSelected(undefined)} onForgotten={onForgotten} /> : null}

      <section aria-labelledby="memories-heading">
        <h2 id="memories-heading" ref={memoriesHeading} tabIndex={-1}>Memories</h2>
        <p className="hint">Each page of memories ({MEMORIES_PAGE} at most) is a paid read, charged to the agent.</p>
        {memoriesError ? <p role="alert" className="error">{memoriesError}</p> : null}
        {visible === undefined ? (
          <button type="button" onClick={() => void showMemories()} disabled={showing}>
            {showing ? 'Loading memories…' : 'Show memories (paid read, 0.05 USD a page)'}
          </button>
        ) : null}
        {visible ? <MemoryGroups memories={visible} selectedId={selected} onSelect={(m) => setSelected(m.id)} /> : null}
        {cursor ? (
          <button type="button" onClick={() => void loadMore()} disabled={loadingMore}>
            {loadingMore ? 'Loading…' : 'Load more'}
          </button>
        ) : null}
      </section>

      <ForgetByPath recordId={recordId} onForgotten={onForgottenPath} />

      <FileList recordId={recordId} />

      <RecordDelete record={record} onDeleted={() => void navigate(agentPath, { replace: true })} />
    </>
  );
}
