import { useEffect, useRef, useState } from 'react';
import type { MemoryItem, MemoryType } from '@agent-memory/client';
import { useSession } from '../session';
import { errorMessage } from '../api';
import { ConfirmDialog } from './record-confirm';
import { MEMORY_TYPE_LABEL } from './memory-list';
import { formatDate } from './record-format';

/** What the detail shows: a listed memory (with content) or a recall result (content only if listed). */
export interface OpenMemory {
  id: string;
  path: string;
  type: MemoryType;
  summary: string;
  /** The listed memory, with its content and dates; absent for a recall result not loaded yet. */
  item?: MemoryItem;
}

/**
 * One memory: path, type, summary, dates and its full content as text in a `<pre>`, with "Forget"
 * (`DELETE /records/{recordId}/remember` `{ id }`, free for the owner; docs/authentication.md) behind a
 * confirmation. Its heading takes focus when opened. `onForgotten` runs once it is gone.
 */
export function MemoryDetail({ recordId, memory, onClose, onForgotten }: { recordId: string; memory: OpenMemory; onClose: () => void; onForgotten: (id: string) => void }) {
  const { client } = useSession();
  const heading = useRef<HTMLHeadingElement>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView?.({ block: 'nearest' });
  }, [memory.id]);

  const forget = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await client.memories.forget(recordId, { id: memory.id });
      setConfirming(false);
      onForgotten(memory.id);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="memory-heading" className="memory-detail">
      <h2 id="memory-heading" ref={heading} tabIndex={-1}>
        Memory <span className="path">{memory.path}</span>
      </h2>
      <dl className="details">
        <dt>Type</dt><dd>{MEMORY_TYPE_LABEL[memory.type]}</dd>
        <dt>Summary</dt><dd>{memory.summary}</dd>
        {memory.item ? (
          <>
            <dt>Created</dt><dd>{formatDate(memory.item.createdAt)}</dd>
            <dt>Updated</dt><dd>{formatDate(memory.item.updatedAt)}</dd>
          </>
        ) : null}
        <dt>Id</dt><dd><code>{memory.id}</code></dd>
      </dl>
      <h3>Content</h3>
      {memory.item ? (
        <pre className="content" aria-label="Memory content">{memory.item.content}</pre>
      ) : (
        <p className="muted">Its content is not loaded yet: load more memories below to see it.</p>
      )}
      <div className="actions">
        <button type="button" className="danger" onClick={() => setConfirming(true)}>Forget</button>
        <button type="button" onClick={onClose}>Close</button>
      </div>
      {confirming ? (
        <ConfirmDialog
          title="Forget this memory?"
          confirmLabel="Forget memory"
          busy={busy}
          error={error}
          onConfirm={() => void forget()}
          onCancel={() => {
            setConfirming(false);
            setError(undefined);
          }}
        >
          <p>
            The memory <strong className="path">{memory.path}</strong> is deleted for good; recall will no longer find it. Forgetting is free for you.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
