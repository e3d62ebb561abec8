import { type FormEvent, useId, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { passkeySession, useSession } from '../session';
import { passkeyErrorMessage, registerPasskey, signInWithPasskey } from '../webauthn';
import { ethereumProvider, siweErrorMessage, signInWithEthereum } from '../siwe';

/**
 * Sign up or sign in (docs/authentication.md, "Passkeys (humans)"): a new account with a passkey and a
 * name; a sign-in with any passkey of this site (discoverable credentials); Sign in with Ethereum when the
 * browser has a wallet (`window.ethereum`). A refused or failed ceremony shows its reason in an alert.
 * After a 401 mid-session it shows the session's notice ("Your session ended. Sign in again.").
 * After signing in, a link to one agent (`/agents/...`) opens that page; any other address the agents list.
 */
export function SignInPage() {
  const session = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const nameId = useId();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState<'register' | 'sign-in' | 'ethereum' | undefined>();
  const [error, setError] = useState<string | undefined>();
  const wallet = ethereumProvider();

  type Answer = { token: string; expiresAt: string; human: Parameters<typeof session.signedIn>[1]; agent?: { walletAddress: string } };
  async function run(kind: 'register' | 'sign-in' | 'ethereum', ceremony: () => Promise<Answer>) {
    setBusy(kind);
    setError(undefined);
    try {
      const { token, expiresAt, human, agent } = await ceremony();
      if (!pathname.startsWith('/agents/')) void navigate('/agents', { replace: true });
      // a Sign in with Ethereum session reaches only the agents of the wallet that signed it in
      session.signedIn(token, human, kind === 'ethereum' && agent ? { method: 'siwe', walletAddress: agent.walletAddress, expiresAt } : passkeySession(expiresAt));
    } catch (caught) {
      setError(kind === 'ethereum' ? siweErrorMessage(caught) : passkeyErrorMessage(caught, kind));
      setBusy(undefined);
    }
  }

  function signUp(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) {
      setError('Enter your name to create an account.');
      return;
    }
    void run('register', () => registerPasskey(session.client, name.trim()));
  }

  return (
    <div className="sign-in">
      <h1>Sign in to agent-memory</h1>
      <p>See and manage the memory of your agents. Passkeys use your device’s fingerprint, face or PIN: no password.</p>
      {session.notice && !error && !busy ? (
        <p role="alert" className="notice">
          {session.notice}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      <section aria-labelledby={`${nameId}-new`} className="card">
        <h2 id={`${nameId}-new`}>New here?</h2>
        <form onSubmit={signUp}>
          <label htmlFor={nameId}>Your name</label>
          <div className="row">
            <input id={nameId} name="name" autoComplete="name" maxLength={64} value={name} onChange={(e) => setName(e.target.value)} required />
            <button type="submit" className="primary" disabled={busy !== undefined}>
              Sign up with a passkey
            </button>
          </div>
        </form>
      </section>
      <section aria-labelledby={`${nameId}-back`} className="card">
        <h2 id={`${nameId}-back`}>Already have an account?</h2>
        <div className="row">
          <button type="button" className="primary" disabled={busy !== undefined} onClick={() => void run('sign-in', () => signInWithPasskey(session.client))}>
            Sign in with a passkey
          </button>
          {wallet ? (
            <button type="button" disabled={busy !== undefined} onClick={() => void run('ethereum', () => signInWithEthereum(session.client, wallet))}>
              Sign in with Ethereum
            </button>
          ) : null}
        </div>
        {wallet ? (
          <p className="hint">
            Sign in with Ethereum: the wallet of an unclaimed agent creates an account that owns it; an account the wallet created before is signed in again. An agent another account owns needs that account's passkey. Signed in with a wallet, you see and manage only that wallet's agents.
          </p>
        ) : null}
      </section>
      {/* always rendered (empty when idle): a live region announces only changes of a region already in the page */}
      <p role="status">{busy === undefined ? '' : busy === 'ethereum' ? 'Waiting for your wallet…' : 'Waiting for your passkey…'}</p>
    </div>
  );
}
