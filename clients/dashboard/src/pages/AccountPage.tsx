import { useState } from 'react';
import { apiClient, errorMessage, savedSessionToken } from '../api';
import { passkeySession, shortWallet, useSession } from '../session';
import { passkeyErrorMessage, registerPasskey } from '../webauthn';
import { ConfirmButton } from '../components/account-confirm-button';
import { formatDateTime, passkeyDevice, passkeyNames, passkeyTransports } from '../components/account-format';
import { ScrollRegion } from '../components/scroll-region';

/**
 * The signed-in human's account (docs/authentication.md, "Passkeys (humans)"): name, how this tab signed
 * in, passkeys (device type, transports, backed up, created, last used; each Remove button named by its
 * passkey's creation time, device type and transports), adding a passkey with the session, removing one
 * (never the last: the API answers 403, and the button is disabled with the reason). Adding a passkey
 * answers a new session: the tab keeps it and ends the old one on the server. Once the account has a
 * passkey, adding or removing one needs a passkey session: a session signed in with Ethereum gets the
 * API's 403 ("Sign in with a passkey to manage passkeys"), shown in the alert; so does the first passkey
 * of an account that owns agents of other wallets. Sign-out is in the header.
 */
export function AccountPage() {
  const session = useSession();
  const { human } = session;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  if (!human) return null;
  const last = human.passkeys.length <= 1;
  const names = passkeyNames(human.passkeys);

  async function addPasskey() {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      // the API answers a new session (signed in with the new passkey): the tab takes it, and the old one is ended
      const previous = savedSessionToken();
      const answer = await registerPasskey(session.client);
      if (previous && previous !== answer.token) await apiClient(previous).humans.logout().catch(() => undefined);
      session.signedIn(answer.token, answer.human, passkeySession(answer.expiresAt));
      setNotice('Passkey added.');
    } catch (caught) {
      setError(passkeyErrorMessage(caught, 'register'));
    } finally {
      setBusy(false);
    }
  }

  async function remove(passkeyId: string) {
    setError(undefined);
    setNotice(undefined);
    try {
      await session.client.humans.deletePasskey(passkeyId);
      await session.refresh();
      setNotice('Passkey removed.');
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }

  return (
    <>
      <h1>Your account</h1>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{human.name}</dd>
        <dt>Member since</dt>
        <dd>{formatDateTime(human.createdAt)}</dd>
        <dt>Signed in with</dt>
        <dd>{human.session.method === 'siwe' ? `the wallet ${shortWallet(human.session.walletAddress ?? '')} (its agents only)` : 'a passkey'}</dd>
      </dl>
      <section aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">Passkeys</h2>
        {error ? (
          <p role="alert" className="error">
            {error}
          </p>
        ) : null}
        <p role="status" className="notice">
          {notice}
        </p>
        {human.passkeys.length === 0 ? <p>No passkey yet: you signed in with your wallet. Add a passkey to sign in without it.</p> : null}
        <ScrollRegion label="Your passkeys (table)" hidden={human.passkeys.length === 0}>
          <table>
            <caption className="visually-hidden">Your passkeys</caption>
            <thead>
              <tr>
                <th scope="col">Device type</th>
                <th scope="col">Connection</th>
                <th scope="col">Backed up</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {human.passkeys.map((passkey, index) => (
                <tr key={passkey.id}>
                  <td>{capitalized(passkeyDevice(passkey.deviceType))}</td>
                  <td>{capitalized(passkeyTransports(passkey.transports))}</td>
                  <td>{passkey.backedUp ? 'Yes' : 'No'}</td>
                  <td>{formatDateTime(passkey.createdAt)}</td>
                  <td>{formatDateTime(passkey.lastUsedAt)}</td>
                  <td>
                    <ConfirmButton
                      id={`passkey-${index}`}
                      label="Remove"
                      accessibleLabel={`Remove ${names[index]}`}
                      question="Remove this passkey? It can no longer sign in."
                      disabled={last}
                      disabledReason="Your only passkey cannot be removed: add another first."
                      onConfirm={() => remove(passkey.id)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        <p>
          <button type="button" className="primary" disabled={busy} onClick={() => void addPasskey()}>
            Add a passkey
          </button>
        </p>
        <p className="hint">Add a passkey on another device (a phone, a security key) so that you can still sign in if you lose this one.</p>
      </section>
    </>
  );
}

/** `text` with its first letter in upper case (a table cell). */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
