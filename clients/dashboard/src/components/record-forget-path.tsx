import { type FormEvent, useId, useState } from 'react';
import { AgentMemoryError } from '@agent-memory/client';
import { useSession } from '../session';
import { errorMessage } from '../api';
import { ConfirmDialog } from './record-confirm';

/**
 * "Forget a memory by path": `DELETE /records/{recordId}/remember` `{ path }` with the owner's passkey
 * session, behind a confirmation. It is free for the owner (docs/billing.md, "Prices"; the owner's right
 * to erase) and needs no paid read first, so it works in enforce mode with a zero balance. A path with
 * no memory answers 404 ("No memory at path …"), shown as nothing forgotten. `onForgotten(path)` runs after a deletion.
 */
export function ForgetByPath({ recordId, onForgotten }: { recordId: string; onForgotten: (path: string) => void }) {
  const { client } = useSession();
  const id = useId();
  const [path, setPath] = useState('');
  const [confirming, setConfirming] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [result, setResult] = useState<string | undefined>();

  const ask = (event: FormEvent) => {
    event.preventDefault();
    setResult(undefined);
    setError(undefined);
    const target = path.trim();
    if (!target) {
      setError('Enter the path of the memory to forget, e.g. prefs/tea.');
      return;
    }
    setConfirming(target);
  };

  const forget = async (target: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await client.memories.forget(recordId, { path: target });
      setConfirming(undefined);
      setPath('');
      if (answer.deleted) {
        setResult(`Forgot the memory ${answer.path}.`);
        onForgotten(answer.path);
      } else setResult(`No memory at path ${JSON.stringify(answer.path)}: nothing was forgotten.`);
    } catch (e) {
      if (e instanceof AgentMemoryError && e.status === 404) {
        // no memory at that path (or the record is gone): nothing was forgotten
        setConfirming(undefined);
        setResult(`${e.message}: nothing was forgotten.`);
      } else setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Forget a memory by path</h2>
      <form onSubmit={ask}>
        <label htmlFor={`${id}-path`}>Memory path</label>
        <div className="row">
          <input id={`${id}-path`} value={path} onChange={(e) => setPath(e.target.value)} autoComplete="off" spellCheck={false} maxLength={1024} aria-describedby={`${id}-hint`} />
          <button type="submit" className="danger">Forget by path</button>
        </div>
        <p id={`${id}-hint`} className="hint">Free for you, with no paid read: the path as the agent stored it.</p>
      </form>
      {error && !confirming ? <p role="alert" className="error">{error}</p> : null}
      <p role="status" className="notice">{result}</p>
      {confirming ? (
        <ConfirmDialog
          title="Forget this memory?"
          confirmLabel="Forget memory"
          busy={busy}
          error={error}
          onConfirm={() => void forget(confirming)}
          onCancel={() => {
            setConfirming(undefined);
            setError(undefined);
          }}
        >
          <p>
            The memory at <strong className="path">{confirming}</strong> is deleted for good; recall will no longer find it. Forgetting is free for you.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
