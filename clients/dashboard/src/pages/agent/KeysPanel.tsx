import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import type { AgentKeyInfo, RotatedKey } from '@agent-memory/client';
import { errorMessage } from '../../api';
import { useSession } from '../../session';
import { ConfirmButton } from '../../components/account-confirm-button';
import { ConfirmDialog } from '../../components/record-confirm';
import { formatDateTime } from '../../components/account-format';
import { ScrollRegion } from '../../components/scroll-region';

/** The API's default grace of a rotated-away key: 24 hours (docs/authentication.md, "Listing, rotating and revoking"). */
const DEFAULT_GRACE_SECONDS = 24 * 60 * 60;
/** The longest grace the API accepts: 7 days. */
const MAX_GRACE_SECONDS = 7 * 24 * 60 * 60;

/**
 * An agent's keys (docs/authentication.md, "Claiming and managing an agent"): the list (display prefix,
 * environment, status, dates; never a secret), rotating (the previous keys keep working for the grace
 * seconds; the new key is shown once, in a read-only field to copy) and revoking one key. The new key is
 * held by the agent page (`rotated`, `onRotated`), so that it survives switching tabs; "Done" hides it
 * after asking "Have you copied the key?". A rotation with grace 0 cuts the agent off at once (its current
 * keys stop working), so it asks first, like a revocation.
 */
export function KeysPanel({ agentId, rotated, onRotated }: { agentId: string; rotated: RotatedKey | undefined; onRotated: (key: RotatedKey | undefined) => void }) {
  const { client } = useSession();
  const ids = useId();
  const [keys, setKeys] = useState<AgentKeyInfo[] | undefined>();
  const [grace, setGrace] = useState(String(DEFAULT_GRACE_SECONDS));
  const [rotating, setRotating] = useState(false);
  const [closing, setClosing] = useState(false);
  const [copied, setCopied] = useState(false);
  const [confirmingCut, setConfirmingCut] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const newKeyRef = useRef<HTMLInputElement>(null);

  const load = useCallback(async () => {
    const list = await client.humans.keys(agentId);
    setKeys(list.keys);
  }, [agentId, client]);

  useEffect(() => {
    let current = true;
    client.humans.keys(agentId).then(
      (list) => current && setKeys(list.keys),
      (caught: unknown) => current && setError(errorMessage(caught)),
    );
    return () => {
      current = false;
    };
  }, [agentId, client]);

  useEffect(() => {
    if (rotated) newKeyRef.current?.focus();
  }, [rotated]);

  function submitRotation(event: FormEvent) {
    event.preventDefault();
    const graceSeconds = Number(grace);
    if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS) {
      setError(`The grace period is a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}.`);
      return;
    }
    // grace 0 ends the current keys at once: ask first
    if (graceSeconds === 0) setConfirmingCut(true);
    else void rotate(graceSeconds);
  }

  async function rotate(graceSeconds: number) {
    setRotating(true);
    setError(undefined);
    setNotice(undefined);
    setCopied(false);
    try {
      const answer = await client.humans.rotateKey(agentId, { graceSeconds });
      onRotated(answer);
      await load();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setRotating(false);
    }
  }

  async function revoke(key: AgentKeyInfo) {
    setError(undefined);
    setNotice(undefined);
    try {
      await client.humans.revokeKey(agentId, key.id);
      setNotice(`Key ${key.displayPrefix}… revoked.`);
      await load();
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }

  async function copy() {
    if (!rotated) return;
    try {
      await navigator.clipboard.writeText(rotated.agentKey);
      setCopied(true);
    } catch {
      // no clipboard permission: select the text so that the reader can copy it
      newKeyRef.current?.select();
    }
  }

  return (
    <section aria-labelledby={`${ids}-h`} className="panel">
      <h2 id={`${ids}-h`}>Keys</h2>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      <p role="status" className="notice">
        {notice}
      </p>
      {rotated ? (
        <div className="new-key card" role="group" aria-labelledby={`${ids}-new`}>
          <h3 id={`${ids}-new`}>New key</h3>
          <p className="warning" id={`${ids}-warn`}>
            This key is shown only once. Copy it now and give it to your agent: it cannot be shown again.
          </p>
          <label htmlFor={`${ids}-key`}>New agent key</label>
          <div className="row">
            <input id={`${ids}-key`} ref={newKeyRef} readOnly value={rotated.agentKey} aria-describedby={`${ids}-warn`} className="secret" onFocus={(e) => e.target.select()} spellCheck={false} />
            <button type="button" onClick={() => void copy()}>
              {copied ? 'Copied' : 'Copy'}
            </button>
            <button type="button" onClick={() => setClosing(true)}>
              Done
            </button>
          </div>
          {closing ? (
            <ConfirmDialog
              title="Have you copied the key?"
              confirmLabel="Yes, hide the key"
              onConfirm={() => {
                setClosing(false);
                onRotated(undefined);
              }}
              onCancel={() => setClosing(false)}
            >
              <p>Once hidden, this key cannot be shown again: only a new rotation makes another one.</p>
            </ConfirmDialog>
          ) : null}
        </div>
      ) : null}
      {keys === undefined && !error ? <p role="status">Loading keys…</p> : null}
      {keys ? (
        <ScrollRegion label="The agent’s keys (scrolls sideways)">
          <table>
            <caption className="visually-hidden">The agent’s keys</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Environment</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>
                    <code>{key.displayPrefix}…</code>
                  </td>
                  <td>{key.environment}</td>
                  <td>{shownStatus(key)}</td>
                  <td>{formatDateTime(key.createdAt, true)}</td>
                  <td>{key.revokedAt ? `revoked ${formatDateTime(key.revokedAt, true)}` : formatDateTime(key.expiresAt, true)}</td>
                  <td>
                    {shownStatus(key) === 'active' || shownStatus(key) === 'expiring' ? (
                      <ConfirmButton
                        id={`${ids}-revoke-${key.id}`}
                        label="Revoke"
                        accessibleLabel={`Revoke key ${key.displayPrefix}`}
                        question="Revoke this key? Calls with it fail at once."
                        onConfirm={() => revoke(key)}
                      />
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      ) : null}
      <form onSubmit={submitRotation} className="rotate">
        <label htmlFor={`${ids}-grace`}>Grace period (seconds)</label>
        <div className="row">
          <input id={`${ids}-grace`} type="number" inputMode="numeric" min={0} max={MAX_GRACE_SECONDS} step={1} value={grace} onChange={(e) => setGrace(e.target.value)} aria-describedby={`${ids}-grace-hint`} />
          <button type="submit" className="primary" disabled={rotating}>
            Rotate key
          </button>
        </div>
        <p id={`${ids}-grace-hint`} className="hint">
          The current keys keep working this long after the rotation (default 86400: one day; 0 ends them at once). Your claim stays.
        </p>
      </form>
      {confirmingCut ? (
        <ConfirmDialog
          title="Rotate with no grace period?"
          confirmLabel="Yes, rotate now"
          onConfirm={() => {
            setConfirmingCut(false);
            void rotate(0);
          }}
          onCancel={() => setConfirmingCut(false)}
        >
          <p>The agent’s current keys stop working at once: its calls fail until it has the new key.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** The key's status as of now: an `expiring` key whose grace has ended since the list was read is `expired`. */
function shownStatus(key: AgentKeyInfo): AgentKeyInfo['status'] {
  if (key.status === 'expiring' && key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) return 'expired';
  return key.status;
}
