import { useState } from 'react';
import { AgentMemoryError, type MemoryRecord } from '@agent-memory/client';
import { useSession } from '../session';
import { errorMessage } from '../api';
import { ConfirmDialog } from './record-confirm';

/**
 * "Delete record": `DELETE /records/{recordId}` (free for the owner; docs/authentication.md), optionally with
 * `cascade` (its child records too; without it a record with children is refused), behind a confirmation
 * naming the record. `onDeleted` runs after the server deleted it.
 */
export function RecordDelete({ record, onDeleted }: { record: MemoryRecord; onDeleted: () => void }) {
  const { client } = useSession();
  const [confirming, setConfirming] = useState(false);
  const [cascade, setCascade] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const remove = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await client.records.delete(record.id, { cascade });
      setBusy(false);
      setConfirming(false);
      onDeleted();
    } catch (e) {
      // the API's VALIDATION_ERROR for a record with children speaks of `?cascade=true`; say it in the dialog's words
      const childrenRefused = !cascade && e instanceof AgentMemoryError && e.code === 'VALIDATION_ERROR' && /child records/i.test(e.message);
      setError(childrenRefused ? 'This record has child records: tick “Also delete its child records” to delete them with it.' : errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="delete-heading" className="danger-zone">
      <h2 id="delete-heading">Delete record</h2>
      <p>Deletes the record with all its memories and files. This cannot be undone.</p>
      <button type="button" className="danger" onClick={() => setConfirming(true)}>Delete record</button>
      {confirming ? (
        <ConfirmDialog
          title="Delete this record?"
          confirmLabel="Delete record for good"
          busy={busy}
          error={error}
          onConfirm={() => void remove()}
          onCancel={() => {
            setConfirming(false);
            setError(undefined);
          }}
        >
          <p>
            The record <strong className="record-name">{record.name}</strong> and all its memories and files are deleted for good.
          </p>
          <p>
            <label>
              <input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> Also delete its child records
            </label>
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
