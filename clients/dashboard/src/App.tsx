import { Navigate, Route, Routes } from 'react-router';
import { Layout } from './Layout';
import { useSession } from './session';
import { SignInPage } from './pages/SignInPage';
import { AgentsPage } from './pages/AgentsPage';
import { AccountPage } from './pages/AccountPage';
import { AgentPage } from './pages/AgentPage';
import { RecordPage } from './pages/RecordPage';

/**
 * Routes (under `/dashboard`):
 * - `/` sign in or sign up (passkey, or Sign in with Ethereum)
 * - `/agents` the human's agents; claim one with its key
 * - `/account` the human's passkeys
 * - `/agents/:agentId` one agent: records tree, keys, balance and usage
 * - `/agents/:agentId/records/:recordId` one record: memories by type, search, files
 * While the saved session is checked: "Loading…"; when that check fails other than by 401: the error and "Retry".
 */
export function App() {
  const session = useSession();
  const { human } = session;
  if (human === null) {
    return (
      <main id="main" tabIndex={-1}>
        {session.loadError ? (
          <>
            <h1>Could not load your session</h1>
            <p role="alert" className="error">{session.loadError}</p>
            <p>
              <button type="button" className="primary" onClick={() => session.retry()}>Retry</button>
            </p>
          </>
        ) : (
          <p role="status" className="loading">Loading…</p>
        )}
      </main>
    );
  }
  if (human === undefined) {
    return (
      <Layout>
        <Routes>
          <Route path="*" element={<SignInPage />} />
        </Routes>
      </Layout>
    );
  }
  return (
    <Layout>
      <Routes>
        <Route path="/" element={<Navigate to="/agents" replace />} />
        <Route path="/agents" element={<AgentsPage />} />
        <Route path="/account" element={<AccountPage />} />
        <Route path="/agents/:agentId" element={<AgentPage />} />
        <Route path="/agents/:agentId/records/:recordId" element={<RecordPage />} />
        <Route path="*" element={<Navigate to="/agents" replace />} />
      </Routes>
    </Layout>
  );
}
