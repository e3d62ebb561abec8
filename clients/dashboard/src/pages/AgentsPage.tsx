import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import type { ClaimedAgentOverview } from '@agent-memory/client';
import { errorMessage } from '../api';
import { shortWallet, useSession } from '../session';
import { ConfirmButton } from '../components/account-confirm-button';
import { formatDate, formatDateTime, formatUsd } from '../components/account-format';

/**
 * The agents the human claimed (docs/authentication.md, "Claiming and managing an agent"): name, mode,
 * key environment, balances, last activity and claim date, each linking to its page; claiming another
 * with one of its keys (sent once, never kept by the page); releasing one (its keys keep working).
 * Signed in with Ethereum, the API lists only the wallet's agents and refuses claims (docs/authentication.md,
 * "Sign in with Ethereum (humans)"): the page says so and offers no claim.
 */
export function AgentsPage() {
  const { client, human } = useSession();
  const byWallet = human?.session.method === 'siwe';
  const wallet = byWallet && human.session.walletAddress ? shortWallet(human.session.walletAddress) : undefined;
  const [agents, setAgents] = useState<ClaimedAgentOverview[] | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [agentKey, setAgentKey] = useState('');
  const [claiming, setClaiming] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();

  const load = useCallback(async () => {
    try {
      const list = await client.humans.agents();
      setAgents(list.agents);
      setLoadError(undefined);
    } catch (caught) {
      setLoadError(errorMessage(caught));
    }
  }, [client]);

  useEffect(() => {
    let current = true;
    client.humans.agents().then(
      (list) => current && setAgents(list.agents),
      (caught: unknown) => current && setLoadError(errorMessage(caught)),
    );
    return () => {
      current = false;
    };
  }, [client]);

  async function claim(event: FormEvent) {
    event.preventDefault();
    const key = agentKey.trim();
    if (!key) {
      setError('Paste one of the agent’s keys.');
      return;
    }
    setClaiming(true);
    setError(undefined);
    setNotice(undefined);
    try {
      const agent = await client.humans.claim(key);
      setAgentKey('');
      setNotice(`Claimed ${agent.name}.`);
      await load();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setClaiming(false);
    }
  }

  async function release(agent: ClaimedAgentOverview) {
    setError(undefined);
    setNotice(undefined);
    try {
      await client.humans.release(agent.id);
      setNotice(`Released ${agent.name}.`);
      await load();
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }

  return (
    <>
      <h1>Your agents</h1>
      {loadError ? (
        <p role="alert" className="error">
          {loadError}
        </p>
      ) : null}
      {byWallet ? (
        <p className="notice" id="wallet-scope">
          Signed in with {wallet ? `the wallet ${wallet}` : 'Ethereum'}: you see and manage only this wallet’s agents. Sign in with a passkey to see all the agents of your account and to claim more.
        </p>
      ) : null}
      {agents === undefined && !loadError ? <p role="status">Loading your agents…</p> : null}
      {agents && agents.length === 0 ? <p>{byWallet ? 'This wallet has no agent in your account.' : 'You have not claimed an agent yet. Paste one of its keys below.'}</p> : null}
      {agents && agents.length > 0 ? (
        <ul className="agent-list" aria-label="Claimed agents">
          {agents.map((agent) => (
            <li key={agent.id} className="card">
              <h2 className="agent-name">
                <Link to={`/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link>
              </h2>
              <dl className="facts">
                <dt>Mode</dt>
                <dd>{agent.mode}</dd>
                <dt>Environment</dt>
                <dd>{agent.keyEnvironment}</dd>
                <dt>Balance</dt>
                <dd>
                  {formatUsd(agent.balance.live.balanceMicroUsd)} live · {formatUsd(agent.balance.test.balanceMicroUsd)} test
                </dd>
                <dt>Last activity</dt>
                <dd>{formatDateTime(agent.lastActivityAt)}</dd>
                <dt>Claimed</dt>
                <dd>{formatDate(agent.claimedAt)}</dd>
              </dl>
              <ConfirmButton
                id={`release-${agent.id}`}
                label="Release"
                accessibleLabel={`Release ${agent.name}`}
                question={`Release ${agent.name}? Its keys keep working; you can claim it again with a key.`}
                onConfirm={() => release(agent)}
              />
            </li>
          ))}
        </ul>
      ) : null}
      {byWallet ? null : (
        <section aria-labelledby="claim-heading" className="card">
          <h2 id="claim-heading">Claim an agent</h2>
          <form onSubmit={(event) => void claim(event)}>
            <label htmlFor="agent-key">Agent key</label>
            <div className="row">
              <input id="agent-key" type="password" autoComplete="off" spellCheck={false} value={agentKey} onChange={(e) => setAgentKey(e.target.value)} aria-describedby="agent-key-hint" />
              <button type="submit" className="primary" disabled={claiming}>
                Claim
              </button>
            </div>
            <p id="agent-key-hint" className="hint">
              One of the agent’s current keys (…_live_… or …_test_…). It is sent once to prove the agent is yours and is not kept.
            </p>
          </form>
        </section>
      )}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      <p role="status" className="notice">
        {notice}
      </p>
    </>
  );
}
