import type { MemoryItem, MemoryType } from '@agent-memory/client';
import { formatDate } from './record-format';

/** The five memory types in the order the dashboard shows them (docs/api.md, "Memories"). */
export const MEMORY_TYPE_ORDER: readonly MemoryType[] = ['identity', 'fact', 'relationship', 'episode', 'skill'];

/** A heading for each memory type. */
export const MEMORY_TYPE_LABEL: Record<MemoryType, string> = {
  identity: 'Identity',
  fact: 'Facts',
  relationship: 'Relationships',
  episode: 'Episodes',
  skill: 'Skills',
};

/**
 * The loaded memories grouped by type (in path order within a type, as the listing answers them), each
 * with its path (a button that opens it), summary and dates. Text only: memories are untrusted.
 */
export function MemoryGroups({ memories, selectedId, onSelect }: { memories: MemoryItem[]; selectedId?: string; onSelect: (memory: MemoryItem) => void }) {
  const byType = new Map<MemoryType, MemoryItem[]>(MEMORY_TYPE_ORDER.map((type) => [type, []]));
  for (const memory of memories) byType.get(memory.type)?.push(memory);
  return (
    <>
      {MEMORY_TYPE_ORDER.map((type) => {
        const items = byType.get(type) ?? [];
        return (
          <section key={type} className="memory-group" aria-labelledby={`memory-type-${type}`}>
            <h3 id={`memory-type-${type}`}>
              {MEMORY_TYPE_LABEL[type]} <span className="count">({items.length})</span>
            </h3>
            {items.length === 0 ? (
              <p className="muted">None loaded.</p>
            ) : (
              <ul className="memory-list">
                {items.map((memory) => (
                  <li key={memory.id} className={memory.id === selectedId ? 'selected' : undefined}>
                    <button type="button" className="link" aria-pressed={memory.id === selectedId} onClick={() => onSelect(memory)}>
                      {memory.path}
                    </button>
                    <p className="summary">{memory.summary}</p>
                    <p className="dates">
                      Created {formatDate(memory.createdAt)} · updated {formatDate(memory.updatedAt)}
                    </p>
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </>
  );
}
