import { type FormEvent, useState } from 'react';
import type { RecallResult } from '@agent-memory/client';
import { useSession } from '../session';
import { errorMessage } from '../api';
import { MEMORY_TYPE_LABEL } from './memory-list';
import { formatSimilarity } from './record-format';

/** One recall result: `similarity` is the score that orders the list (docs/api.md, "Recall"). */
export type RecalledMemory = RecallResult['memories'][number];

/**
 * Search of a record's memories: `POST /records/{recordId}/recall` (paid, charged to the agent) with the
 * query typed; the results in the order answered, each with its similarity as a percentage and a bar.
 * `hiddenIds`: memories forgotten since, left out. `onSelect` opens one.
 */
export function MemorySearch({ recordId, hiddenIds, onSelect }: { recordId: string; hiddenIds: ReadonlySet<string>; onSelect: (memory: RecalledMemory) => void }) {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<RecalledMemory[] | undefined>();
  const [searched, setSearched] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const search = async (event: FormEvent) => {
    event.preventDefault();
    const text = query.trim();
    if (!text) return;
    setBusy(true);
    setError(undefined);
    try {
      const answer = await client.memories.recall(recordId, { query: text, limit: 20 });
      setResults(answer.memories);
      setSearched(text);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const shown = results?.filter((m) => !hiddenIds.has(m.id));
  return (
    <section aria-labelledby="search-heading" className="memory-search">
      <h2 id="search-heading">Search</h2>
      <form onSubmit={(e) => void search(e)} className="search-form">
        <label htmlFor="memory-query">Search memories</label>
        <input id="memory-query" type="search" value={query} maxLength={1000} onChange={(e) => setQuery(e.target.value)} />
        <button type="submit" className="primary" disabled={busy || !query.trim()}>
          {busy ? 'Searching…' : 'Search'}
        </button>
      </form>
      <p className="hint">Each search is a paid recall, charged to the agent.</p>
      {error ? <p role="alert" className="error">{error}</p> : null}
      <p role="status" className="visually-hidden">
        {shown ? `${shown.length} ${shown.length === 1 ? 'result' : 'results'} for ${searched}` : ''}
      </p>
      {shown ? (
        shown.length === 0 ? (
          <p>No memories match “{searched}”.</p>
        ) : (
          <>
            <h3>Results for “{searched}”</h3>
            <ol className="recall-results" aria-label="Search results">
              {shown.map((memory) => (
                <li key={memory.id}>
                  <button type="button" className="link" onClick={() => onSelect(memory)}>
                    {memory.path}
                  </button>{' '}
                  <span className="type">{MEMORY_TYPE_LABEL[memory.type]}</span>
                  <span className="similarity">
                    <meter min={0} max={1} value={memory.similarity} aria-label={`Similarity of ${memory.path}`} />{' '}
                    <span className="score">{formatSimilarity(memory.similarity)}</span>
                  </span>
                  <p className="summary">{memory.summary}</p>
                </li>
              ))}
            </ol>
          </>
        )
      ) : null}
    </section>
  );
}
