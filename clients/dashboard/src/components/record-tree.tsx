import { Link } from 'react-router';
import type { MemoryRecord } from '@agent-memory/client';

/** A record with the records whose `parentRecordId` is its id. */
interface TreeNode {
  record: MemoryRecord;
  children: TreeNode[];
}

/**
 * Builds the forest of `records` by `parentRecordId` (docs/api.md, "Records"): a record whose parent is
 * not among `records` (not loaded yet, or none) is a root. Linear in the number of records; order kept.
 */
export function buildRecordTree(records: MemoryRecord[]): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  for (const record of records) if (!nodes.has(record.id)) nodes.set(record.id, { record, children: [] });
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.record.parentRecordId ? nodes.get(node.record.parentRecordId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Tags as small labels (text only: they are the agent's, untrusted). */
export function TagList({ tags }: { tags: string[] }) {
  return (
    <span className="tags">
      {tags.map((tag, i) => (
        <span className="tag" key={`${i}:${tag}`}>{tag}</span>
      ))}
    </span>
  );
}

/** A record's category and tags as small labels. */
export function RecordLabels({ record }: { record: MemoryRecord }) {
  return (
    <span className="record-labels">
      <span className="category"><span className="visually-hidden">Category: </span>{record.category}</span>
      {record.tags.length > 0 ? <><span className="visually-hidden">, tags: </span><TagList tags={record.tags} /></> : null}
    </span>
  );
}

function Branch({ agentId, nodes }: { agentId: string; nodes: TreeNode[] }) {
  return (
    <ul className="record-tree">
      {nodes.map(({ record, children }) => (
        <li key={record.id}>
          <Link to={`/agents/${encodeURIComponent(agentId)}/records/${encodeURIComponent(record.id)}`}>{record.name}</Link>{' '}
          <RecordLabels record={record} />
          {children.length > 0 ? <Branch agentId={agentId} nodes={children} /> : null}
        </li>
      ))}
    </ul>
  );
}

/** The agent's records as nested lists by hierarchy, each a link to its record page. */
export function RecordTree({ agentId, records }: { agentId: string; records: MemoryRecord[] }) {
  if (records.length === 0) return <p>No records yet.</p>;
  return <Branch agentId={agentId} nodes={buildRecordTree(records)} />;
}
