import { SiweMessage } from 'siwe';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { newId, type SiweSessionResponse } from '@agent-memory/shared';
import { createPasskeyDevice, openTestPrisma } from '@agent-memory/testing';
import { issueAgentKey } from '../../agent-key';
import { seedAgent as seedAgentIn } from '../../persistence/agents.fixture';
import { PrismaAgentsRepository } from '../../persistence/prisma-agents.repository';
import { PrismaHumansRepository } from '../../persistence/prisma-humans.repository';
import { openAgentsPrisma, type AgentsPrismaClient } from '../../persistence/prisma';
import { AgentKeysUseCases } from '../../use-cases/agent-keys.use-cases';
import type { PasskeyOptions } from '../passkey.options';
import { ClaimsUseCases } from './claims.use-cases';
import { PasskeysUseCases } from './passkeys.use-cases';
import { SessionsUseCases } from './sessions.use-cases';
import { SiweUseCases, walletAccountName } from './siwe.use-cases';

/**
 * Sign in with Ethereum (docs/authentication.md, "Sign in with Ethereum (humans)") on the machine's
 * PostgreSQL (a fresh database per run), with viem local accounts as the wallets and a clock the test
 * moves: every check of the message refuses with one line and uses the nonce up; a verified wallet signs
 * in the owner of its agent, or claims the agent for the signed-in human or for a new wallet-only account.
 */
const DOMAIN = 'memory.example.com';
const ORIGIN = 'https://memory.example.com';
const CHAIN_ID = 8453;
const OPTIONS: PasskeyOptions = { rpId: DOMAIN, rpName: 'agent-memory', origins: [ORIGIN, 'https://dashboard.example.com'], sessionTtlSeconds: 12 * 3600, challengeTtlSeconds: 300 };
let prisma: AgentsPrismaClient;
let close: () => Promise<void>;
let now = new Date('2026-06-01T12:00:00Z');
const clock = () => now;
let agents: PrismaAgentsRepository;
let sessions: SessionsUseCases;
let passkeys: PasskeysUseCases;
let siwe: SiweUseCases;
let claims: ClaimsUseCases;

beforeAll(async () => {
  ({ prisma, close } = await openTestPrisma(openAgentsPrisma, 4));
  agents = new PrismaAgentsRepository(prisma);
  const humans = new PrismaHumansRepository(prisma);
  sessions = new SessionsUseCases(humans, 'amk', OPTIONS, clock);
  passkeys = new PasskeysUseCases(humans, OPTIONS, clock, sessions);
  siwe = new SiweUseCases(agents, { domain: DOMAIN, chainId: CHAIN_ID }, OPTIONS, clock, sessions, passkeys);
  claims = new ClaimsUseCases(agents, clock, new AgentKeysUseCases(agents, 'amk', 3600, clock), sessions);
}, 60_000);
afterAll(() => close?.());
beforeEach(() => {
  now = new Date(now.getTime() + 3_600_000);
});

function wallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** A `local` agent with this wallet (and one key). */
async function seedLocalAgent(address: string, name = 'local agent'): Promise<{ agentId: string; key: string }> {
  const agentId = newId('agent');
  const key = issueAgentKey('amk', 'live');
  const agent = { id: agentId, name, mode: 'local' as const, tags: [], category: 'agent', walletAddress: address, recordId: newId('record'), keyEnvironment: 'live' as const };
  await agents.createAgent(agent, { id: newId('agentKey'), agentId, keyHash: key.hash, environment: 'live', displayPrefix: key.displayPrefix });
  return { agentId, key: key.key };
}

/** A new passkey session of `humanId`, as the gateway passes it on (`Authorization: Passkey`): the human and the session's id. */
async function passkeySession(humanId: string): Promise<{ humanId: string; sessionId: string }> {
  const { token } = await sessions.issue(humanId, 'passkey');
  return { humanId, sessionId: (await sessions.authenticate({ token })).sessionId };
}

/** The human and session id of a session answer (`Authorization: Passkey <token>`). */
async function sessionOf(answer: { token: string }): Promise<{ humanId: string; sessionId: string }> {
  const { humanId, sessionId } = await sessions.authenticate({ token: answer.token });
  return { humanId, sessionId };
}

/**
 * Nonce → sign the message unchanged → verify. `as`: the signed-in human asking for the nonce and sending
 * the message: a human id (then with a new passkey session of it) or a session.
 */
async function signIn(account: PrivateKeyAccount, as?: string | { humanId: string; sessionId: string }): Promise<SiweSessionResponse> {
  const sender = typeof as === 'string' ? await passkeySession(as) : as;
  const { message } = await siwe.nonce({ address: account.address, humanId: sender?.humanId });
  return siwe.verify({ message, signature: await account.signMessage({ message }), ...sender });
}

/** A message with one field changed from the prepared one (same nonce), signed by `account`. */
async function altered(account: PrivateKeyAccount, change: (m: SiweMessage) => void, signer = account) {
  const { message } = await siwe.nonce({ address: account.address });
  const m = new SiweMessage(message);
  change(m);
  const text = m.prepareMessage();
  return { message: text, signature: await signer.signMessage({ message: text }), nonce: m.nonce };
}

const refused = { code: 'UNAUTHORIZED', message: 'The Sign in with Ethereum message could not be verified' };

describe('the prepared message', () => {
  it('is EIP-4361 for this deployment: domain, EIP-55 address, statement, URI, chain id, 96-bit nonce, 5-minute expiry', async () => {
    const account = wallet();
    const answer = await siwe.nonce({ address: account.address.toLowerCase() });
    const lines = answer.message.split('\n');
    expect(lines[0]).toBe(`${DOMAIN} wants you to sign in with your Ethereum account:`);
    expect(lines[1]).toBe(account.address);
    expect(lines[3]).toBe('Sign in to the agent-memory dashboard');
    const m = new SiweMessage(answer.message);
    expect(m).toMatchObject({ uri: ORIGIN, version: '1', chainId: CHAIN_ID, nonce: answer.nonce, issuedAt: now.toISOString(), expirationTime: answer.expiresAt });
    expect(Date.parse(answer.expiresAt) - now.getTime()).toBe(300_000);
    expect(answer.nonce).toMatch(/^[A-Za-z0-9]{17,}$/); // 96 bits in 62 symbols: ≥ 17 characters
    const stored = await prisma.siweNonce.findUniqueOrThrow({ where: { nonce: answer.nonce } });
    expect(stored.walletAddress).toBe(account.address);
  });

  it('names the asking page as URI when it is one of PASSKEY_ORIGINS, else the first origin', async () => {
    const account = wallet();
    const uriOf = async (origin?: string) => new SiweMessage((await siwe.nonce({ address: account.address, origin })).message).uri;
    expect(await uriOf('https://dashboard.example.com')).toBe('https://dashboard.example.com');
    expect(await uriOf('https://evil.example.net')).toBe(ORIGIN);
    expect(await uriOf('not a url')).toBe(ORIGIN);
  });
});

describe('verification refuses, with one line, and uses the nonce up', () => {
  let account: PrivateKeyAccount;
  beforeAll(async () => {
    account = wallet();
    await seedLocalAgent(account.address);
  });

  const refusedAndUsedUp = async (attempt: { message: string; signature: string; nonce: string }) => {
    await expect(siwe.verify(attempt)).rejects.toMatchObject(refused);
    expect(await prisma.siweNonce.findUnique({ where: { nonce: attempt.nonce } })).toBeNull();
  };

  it('another domain', async () => {
    await refusedAndUsedUp(await altered(account, (m) => (m.domain = 'staging.example.com')));
  });

  it('another URI origin, or a URI that is not a URL of ours', async () => {
    await refusedAndUsedUp(await altered(account, (m) => (m.uri = 'https://evil.example.net')));
    await refusedAndUsedUp(await altered(account, (m) => (m.uri = 'urn:example:memory')));
  });

  it('another chain', async () => {
    await refusedAndUsedUp(await altered(account, (m) => (m.chainId = 1)));
  });

  it('a reused nonce (the second verify of a message that signed in once)', async () => {
    const { message } = await siwe.nonce({ address: account.address });
    const signature = await account.signMessage({ message });
    await expect(siwe.verify({ message, signature })).resolves.toMatchObject({ agent: { walletAddress: account.address } });
    await expect(siwe.verify({ message, signature })).rejects.toMatchObject(refused);
  });

  it('an expired nonce (and message): after 5 minutes', async () => {
    const { message } = await siwe.nonce({ address: account.address });
    const signature = await account.signMessage({ message });
    now = new Date(now.getTime() + 300_000);
    await expect(siwe.verify({ message, signature })).rejects.toMatchObject(refused);
  });

  it('an expired message whose nonce is still valid, and one not valid yet', async () => {
    await refusedAndUsedUp(await altered(account, (m) => (m.expirationTime = new Date(now.getTime() - 1000).toISOString())));
    await refusedAndUsedUp(await altered(account, (m) => (m.notBefore = new Date(now.getTime() + 60_000).toISOString())));
  });

  it('a nonce issued for another address', async () => {
    const other = wallet();
    await seedLocalAgent(other.address);
    const attempt = await altered(account, (m) => (m.address = other.address), other);
    await refusedAndUsedUp(attempt);
  });

  it('a bad signature: another wallet’s, or the signature of another text', async () => {
    const { message, nonce } = await siwe.nonce({ address: account.address });
    await refusedAndUsedUp({ message, nonce, signature: await wallet().signMessage({ message }) });
    const second = await siwe.nonce({ address: account.address });
    await refusedAndUsedUp({ message: second.message, nonce: second.nonce, signature: await account.signMessage({ message: `${second.message} ` }) });
  });

  it('a text that is not EIP-4361, and an unknown nonce', async () => {
    await expect(siwe.verify({ message: 'hello', signature: await account.signMessage({ message: 'hello' }) })).rejects.toMatchObject(refused);
    const forged = await altered(account, (m) => (m.nonce = 'abcdefgh12345678ab'));
    await expect(siwe.verify(forged)).rejects.toMatchObject(refused);
    // a live nonce in a text that is not EIP-4361: refused, and the nonce is used up
    const { nonce } = await siwe.nonce({ address: account.address });
    const text = `hello\nNonce: ${nonce}`;
    await refusedAndUsedUp({ message: text, nonce, signature: await account.signMessage({ message: text }) });
  });

  it('a wallet no agent has: 401 "No agent has this wallet", nothing created', async () => {
    const nobody = wallet();
    const before = await prisma.human.count();
    await expect(signIn(nobody)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'No agent has this wallet' });
    expect(await prisma.human.count()).toBe(before);
  });
});

describe('who is signed in', () => {
  it('an unclaimed agent, nobody signed in: a new wallet-only human claims it; the next sign-in is the same human', async () => {
    const account = wallet();
    const { agentId } = await seedLocalAgent(account.address);
    const first = await signIn(account);
    expect(first.token).toMatch(/^amk_session_[0-9A-Za-z]{43}$/);
    expect(first.human).toMatchObject({ id: expect.stringMatching(/^hum_/), name: walletAccountName(account.address), passkeys: [] });
    expect(first.human.name).toMatch(/^Wallet 0x[0-9A-Fa-f]{4}…[0-9A-Fa-f]{4}$/);
    expect(first.agent).toMatchObject({ id: agentId, mode: 'local', walletAddress: account.address, claimedAt: now.toISOString() });
    expect(Date.parse(first.expiresAt) - now.getTime()).toBe(12 * 3600 * 1000);
    expect(await sessions.authenticate({ token: first.token })).toMatchObject({ humanId: first.human.id });

    const second = await signIn(account);
    expect(second.human.id).toBe(first.human.id);
    expect(second.token).not.toBe(first.token);
    expect(await prisma.human.count({ where: { name: walletAccountName(account.address) } })).toBe(1);
    // the session is a passkey session: sign-out ends it
    await sessions.end({ token: second.token });
    await expect(sessions.authenticate({ token: second.token })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  const anotherAccount = { code: 'FORBIDDEN', message: "This agent belongs to another account; sign in with that account's passkey" };
  async function humans(...names: string[]): Promise<string[]> {
    const ids = names.map(() => newId('human'));
    await prisma.human.createMany({ data: ids.map((id, i) => ({ id, name: names[i], webauthnUserId: newId('human') })) });
    return ids;
  }
  /** The Sign in with Ethereum sessions of a human (the passkey sessions the test opens do not count). */
  const sessionsOf = (humanId: string) => prisma.humanSession.count({ where: { humanId, method: 'siwe' } });

  it('an agent claimed (with its key) by a human not linked to the wallet: 403, no session, for nobody signed in and for another signed-in human; its owner signed in gets in', async () => {
    const account = wallet();
    const { agentId } = await seedLocalAgent(account.address);
    const [owner, bystander] = await humans('Owner', 'Bystander');
    await prisma.agentClaim.create({ data: { agentId, humanId: owner } });
    await expect(signIn(account)).rejects.toMatchObject(anotherAccount);
    await expect(signIn(account, bystander)).rejects.toMatchObject(anotherAccount);
    expect(await sessionsOf(owner)).toBe(0);
    expect(await sessionsOf(bystander)).toBe(0);
    expect((await prisma.agentClaim.findUniqueOrThrow({ where: { agentId } })).humanId).toBe(owner);
    // the owner, signed in with its passkey, may sign with the wallet: a session of its own account, no link made
    expect((await signIn(account, owner)).human.id).toBe(owner);
    expect(await prisma.humanWallet.count({ where: { walletAddress: account.address } })).toBe(0);
    await expect(signIn(account)).rejects.toMatchObject(anotherAccount);
  });

  it('an unclaimed agent, a human signed in: that human claims it, is linked to the wallet and gets a fresh session; later the wallet alone signs that human in', async () => {
    const account = wallet();
    const { agentId } = await seedLocalAgent(account.address);
    const [human] = await humans('Ana');
    const answer = await signIn(account, human);
    expect(answer.human).toMatchObject({ id: human, name: 'Ana' });
    expect(answer.agent.id).toBe(agentId);
    expect((await prisma.agentClaim.findUniqueOrThrow({ where: { agentId } })).humanId).toBe(human);
    expect(await prisma.humanWallet.findMany({ where: { humanId: human }, select: { walletAddress: true } })).toEqual([{ walletAddress: account.address }]);
    expect((await signIn(account)).human.id).toBe(human);
  });

  it('releasing the claim removes the link: after a claim with the key again, the wallet alone no longer signs the account in', async () => {
    const account = wallet();
    const { agentId } = await seedLocalAgent(account.address);
    const { human } = await signIn(account);
    expect(await prisma.humanWallet.count({ where: { humanId: human.id } })).toBe(1);
    expect(await agents.deleteClaim(agentId, human.id)).toBe(1);
    expect(await prisma.humanWallet.count({ where: { humanId: human.id } })).toBe(0);
    await prisma.agentClaim.create({ data: { agentId, humanId: human.id } });
    await expect(signIn(account)).rejects.toMatchObject(anotherAccount);
  });

  it('the agent dropping the claim (revocation, grace-0 rotation) removes the link too; another human’s link to the same wallet stays', async () => {
    const account = wallet();
    const { agentId } = await seedLocalAgent(account.address);
    const { human } = await signIn(account);
    const [other] = await humans('Other');
    await agents.linkWallet(other, account.address, now);
    expect(await agents.deleteClaim(agentId)).toBe(1);
    expect(await prisma.humanWallet.findMany({ where: { walletAddress: account.address }, select: { humanId: true } })).toEqual([{ humanId: other }]);
    await prisma.agentClaim.create({ data: { agentId, humanId: human.id } });
    await expect(signIn(account)).rejects.toMatchObject(anotherAccount);
  });

  it('a human’s link to another wallet does not let it in with this one', async () => {
    const [mine, theirs] = [wallet(), wallet()];
    await seedLocalAgent(mine.address);
    const { agentId } = await seedLocalAgent(theirs.address);
    const { human } = await signIn(mine);
    await prisma.agentClaim.create({ data: { agentId, humanId: human.id } });
    await expect(signIn(theirs)).rejects.toMatchObject(anotherAccount);
  });

  it('prefers the wallet’s `local` agent over a `cloud` agent with the same wallet', async () => {
    const account = wallet();
    await seedAgentIn(agents, { name: 'cloud twin', walletAddress: account.address });
    const { agentId } = await seedLocalAgent(account.address);
    expect((await signIn(account)).agent.id).toBe(agentId);
  });

  it('concurrent first sign-ins of one wallet create one account and one claim', async () => {
    const account = wallet();
    const { agentId } = await seedLocalAgent(account.address);
    const answers = await Promise.all(Array.from({ length: 4 }, () => signIn(account)));
    expect(new Set(answers.map((a) => a.human.id)).size).toBe(1);
    expect(await prisma.human.count({ where: { name: walletAccountName(account.address), claims: { some: { agentId } } } })).toBe(1);
  });

  it('a wallet-only human adds a passkey with the session, and then signs in with it', async () => {
    const account = wallet();
    await seedLocalAgent(account.address);
    const { human, token } = await signIn(account);
    const session = await sessions.authenticate({ token });
    expect(session.method).toBe('siwe');
    const device = createPasskeyDevice(ORIGIN);
    const { options } = await passkeys.registrationOptions(session);
    const added = await passkeys.registrationVerify({ response: device.create(options, ORIGIN) as never, ...session });
    expect(added.human).toMatchObject({ id: human.id, passkeys: [expect.objectContaining({ id: expect.any(String) })] });
    const login = await passkeys.authenticationOptions();
    expect((await passkeys.authenticationVerify({ response: device.get(login.options, ORIGIN) as never })).human.id).toBe(human.id);
  });
});

describe('the nonce is bound to who asked for it', () => {
  it('asked by nobody, sent with a session; asked with a session, sent by nobody or with another human’s: 401, the nonce used up, nothing claimed', async () => {
    const account = wallet();
    const { agentId } = await seedLocalAgent(account.address);
    const [ana, eve] = [newId('human'), newId('human')];
    await prisma.human.createMany({ data: [ana, eve].map((id) => ({ id, name: id, webauthnUserId: newId('human') })) });
    for (const [askedBy, sentBy] of [
      [undefined, eve],
      [ana, undefined],
      [ana, eve],
    ] as const) {
      const { message, nonce } = await siwe.nonce({ address: account.address, humanId: askedBy });
      expect((await prisma.siweNonce.findUniqueOrThrow({ where: { nonce } })).humanId).toBe(askedBy ?? null);
      await expect(siwe.verify({ message, signature: await account.signMessage({ message }), humanId: sentBy })).rejects.toMatchObject(refused);
      expect(await prisma.siweNonce.findUnique({ where: { nonce } })).toBeNull();
    }
    expect(await prisma.agentClaim.findUnique({ where: { agentId } })).toBeNull();
    expect((await signIn(account, ana)).human.id).toBe(ana);
  });
});

describe('a Sign in with Ethereum session reaches only the agents of its wallet', () => {
  const otherAgent = { code: 'FORBIDDEN', message: "This session signed in with another agent's wallet; sign in with a passkey to manage this agent" };
  const noClaim = { code: 'FORBIDDEN', message: expect.stringMatching(/^Sign in with a passkey to claim more agents/) };
  const otherWallets = { code: 'FORBIDDEN', message: expect.stringMatching(/^This account owns agents of other wallets/) };

  /** A human with a passkey session who linked agent A's wallet (signing with it) and claimed B and C with their keys. */
  async function accountOfThree() {
    const [a, b, c] = [wallet(), wallet(), wallet()];
    const [agentA, agentB, agentC] = [await seedLocalAgent(a.address, 'A'), await seedLocalAgent(b.address, 'B'), await seedLocalAgent(c.address, 'C')];
    const humanId = newId('human');
    await prisma.human.create({ data: { id: humanId, name: 'Owner of three', webauthnUserId: newId('human') } });
    const owner = await passkeySession(humanId);
    expect((await signIn(a, owner)).agent.id).toBe(agentA.agentId);
    await claims.claim({ ...owner, agentKey: agentB.key });
    await claims.claim({ ...owner, agentKey: agentC.key });
    return { a, agentA, agentB, agentC, owner };
  }

  it('the wallet of agent A signs the account in, into a session that lists, reads and manages A only: B and C are FORBIDDEN', async () => {
    const { a, agentA, agentB, agentC, owner } = await accountOfThree();
    const byWallet = await signIn(a);
    expect(byWallet.human.id).toBe(owner.humanId);
    expect(await sessions.authenticate({ token: byWallet.token })).toMatchObject({ method: 'siwe', walletAddress: a.address });
    const session = await sessionOf(byWallet);
    expect((await claims.list(session)).agents.map((x) => x.id)).toEqual([agentA.agentId]);
    expect(await claims.resolve({ ...session, agentId: agentA.agentId })).toMatchObject({ agentId: agentA.agentId });
    for (const { agentId } of [agentB, agentC]) await expect(claims.resolve({ ...session, agentId })).rejects.toMatchObject(otherAgent);
    // another account's agent, or an unknown one, stays 404 (no existence leak), before the scope is checked
    const stranger = await seedLocalAgent(wallet().address);
    await expect(claims.resolve({ ...session, agentId: stranger.agentId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // the passkey session reaches all three
    expect((await claims.list(owner)).agents.map((x) => x.id).sort()).toEqual([agentA.agentId, agentB.agentId, agentC.agentId].sort());
    for (const { agentId } of [agentA, agentB, agentC]) expect(await claims.resolve({ ...owner, agentId })).toMatchObject({ agentId });
    // without a session (an internal read) the list is the whole account's
    expect((await claims.list({ humanId: owner.humanId })).agents).toHaveLength(3);
  });

  it('may not claim an agent with its key, nor by signing with an unclaimed agent’s wallet: FORBIDDEN, nothing claimed or linked', async () => {
    const { a, owner } = await accountOfThree();
    const session = await sessionOf(await signIn(a));
    const d = wallet();
    const agentD = await seedLocalAgent(d.address, 'D');
    await expect(claims.claim({ ...session, agentKey: agentD.key })).rejects.toMatchObject(noClaim);
    await expect(signIn(d, session)).rejects.toMatchObject(noClaim);
    expect(await prisma.agentClaim.findUnique({ where: { agentId: agentD.agentId } })).toBeNull();
    expect(await prisma.humanWallet.count({ where: { walletAddress: d.address } })).toBe(0);
    // the passkey session may
    expect((await claims.claim({ ...owner, agentKey: agentD.key })).id).toBe(agentD.agentId);
  });

  it('a wallet-only account adds its first passkey only while every agent it owns has the signing wallet', async () => {
    const [a, b] = [wallet(), wallet()];
    await seedLocalAgent(a.address, 'A');
    const agentB = await seedLocalAgent(b.address, 'B');
    const first = await signIn(a);
    const session = await sessionOf(first);
    // an account that owns an agent of another wallet (claimed before this rule): refused at options…
    await prisma.agentClaim.create({ data: { agentId: agentB.agentId, humanId: session.humanId } });
    await expect(passkeys.registrationOptions(session)).rejects.toMatchObject(otherWallets);
    // …and at verify, for a ceremony begun before that claim
    await agents.deleteClaim(agentB.agentId, session.humanId);
    const device = createPasskeyDevice(ORIGIN);
    const { options } = await passkeys.registrationOptions(session);
    await prisma.agentClaim.create({ data: { agentId: agentB.agentId, humanId: session.humanId } });
    await expect(passkeys.registrationVerify({ response: device.create(options, ORIGIN) as never, ...session })).rejects.toMatchObject(otherWallets);
    expect(await prisma.passkeyCredential.count({ where: { humanId: session.humanId } })).toBe(0);
    // B released (e.g. with a session of B's own wallet, which reaches it), the first passkey is added
    expect(await agents.deleteClaim(agentB.agentId, session.humanId)).toBe(1);
    const again = await passkeys.registrationOptions(session);
    expect((await passkeys.registrationVerify({ response: createPasskeyDevice(ORIGIN).create(again.options, ORIGIN) as never, ...session })).human.passkeys).toHaveLength(1);
  });

  it('a Sign in with Ethereum session that recorded no wallet reaches no agent', async () => {
    const { agentA, owner } = await accountOfThree();
    const { token } = await sessions.issue(owner.humanId, 'siwe');
    const session = await sessionOf({ token });
    expect(await sessions.authenticate({ token })).toMatchObject({ method: 'siwe', walletAddress: null });
    expect((await claims.list(session)).agents).toEqual([]);
    await expect(claims.resolve({ ...session, agentId: agentA.agentId })).rejects.toMatchObject(otherAgent);
  });
});
