import { newId, type WebAuthnCredentialJson } from '@agent-memory/shared';
import { createPasskeyDevice, openEmbeddedTestPrisma, type PasskeyDevice } from '@agent-memory/testing';
import { seedAgent as seedAgentIn } from '../../persistence/agents.fixture';
import { PrismaAgentsRepository } from '../../persistence/prisma-agents.repository';
import { PrismaHumansRepository } from '../../persistence/prisma-humans.repository';
import { openAgentsPrisma, type AgentsPrismaClient } from '../../persistence/prisma';
import { AgentKeysUseCases } from '../../use-cases/agent-keys.use-cases';
import type { PasskeyOptions } from '../passkey.options';
import { ClaimsUseCases } from './claims.use-cases';
import { PasskeysUseCases } from './passkeys.use-cases';
import { SessionsUseCases } from './sessions.use-cases';

/**
 * Passkeys, sessions and claims on a freshly migrated embedded PostgreSQL, with the software
 * authenticator `nid-webauthn-emulator` standing in for the browser and a clock the test moves.
 */
const ORIGIN = 'https://memory.example.com';
const OPTIONS: PasskeyOptions = { rpId: 'memory.example.com', rpName: 'agent-memory', origins: [ORIGIN], sessionTtlSeconds: 12 * 3600, challengeTtlSeconds: 300 };
let close: () => Promise<void>;
let prisma: AgentsPrismaClient;
let now = new Date('2026-06-01T12:00:00Z');
const clock = () => now;
let passkeys: PasskeysUseCases;
let sessions: SessionsUseCases;
let claims: ClaimsUseCases;

beforeAll(async () => {
  ({ prisma, close } = await openEmbeddedTestPrisma(openAgentsPrisma));
  const humans = new PrismaHumansRepository(prisma);
  const agents = new PrismaAgentsRepository(prisma);
  sessions = new SessionsUseCases(humans, 'amk', OPTIONS, clock);
  passkeys = new PasskeysUseCases(humans, OPTIONS, clock, sessions);
  claims = new ClaimsUseCases(agents, clock, new AgentKeysUseCases(agents, 'amk', 3600, clock), sessions);
}, 60_000);
afterAll(() => close?.());

const asJson = (credential: unknown) => credential as WebAuthnCredentialJson;

async function register(device: PasskeyDevice, name = 'Ana', origin = ORIGIN) {
  const { options } = await passkeys.registrationOptions({ name });
  return passkeys.registrationVerify({ response: asJson(device.create(options, origin)) });
}

/** The human and session id of a session answer, as the gateway passes them on (`Authorization: Passkey`). */
async function signedIn(answer: { token: string }): Promise<{ humanId: string; sessionId: string }> {
  const { humanId, sessionId } = await sessions.authenticate({ token: answer.token });
  return { humanId, sessionId };
}

async function signIn(device: PasskeyDevice, origin = ORIGIN) {
  const { options } = await passkeys.authenticationOptions();
  return passkeys.authenticationVerify({ response: asJson(device.get(options, origin)) });
}

describe('passkey registration and sign-in', () => {
  it('registers a human, signs in with the passkey (counter advances), and the session authenticates', async () => {
    const device = createPasskeyDevice(ORIGIN);
    const registered = await register(device);
    expect(registered.human).toMatchObject({ id: expect.stringMatching(/^hum_/), name: 'Ana', passkeys: [{ id: expect.any(String), lastUsedAt: null }] });
    expect(registered.token).toMatch(/^amk_session_[0-9A-Za-z]{43}$/);
    expect(await sessions.authenticate({ token: registered.token })).toMatchObject({ humanId: registered.human.id });

    const signedIn = await signIn(device);
    expect(signedIn.human.id).toBe(registered.human.id);
    expect(signedIn.token).not.toBe(registered.token);
    const stored = await prisma.passkeyCredential.findUniqueOrThrow({ where: { id: registered.human.passkeys[0].id } });
    expect(Number(stored.counter)).toBeGreaterThan(0);
    expect(stored.lastUsedAt).not.toBeNull();
    // tokens are stored only as hashes
    const rows = await prisma.humanSession.findMany({ where: { humanId: registered.human.id } });
    expect(rows.map((r) => r.tokenHash)).not.toContain(signedIn.token);
    expect(JSON.stringify(rows)).not.toContain(signedIn.token.slice(12));
  });

  it('adds a second passkey to a signed-in account', async () => {
    const phone = createPasskeyDevice(ORIGIN);
    const laptop = createPasskeyDevice(ORIGIN);
    const first = await register(phone, 'Bo');
    const session = await signedIn(first);
    const { options } = await passkeys.registrationOptions(session);
    const second = await passkeys.registrationVerify({ response: asJson(laptop.create(options)), ...session });
    expect(second.human.id).toBe(first.human.id);
    expect(second.human.passkeys).toHaveLength(2);
    expect((await signIn(laptop)).human.id).toBe(first.human.id);
  });

  it('finishes adding a passkey only in a session of the account that started it: none is 401, another human’s is 403, nothing added', async () => {
    const owner = await register(createPasskeyDevice(ORIGIN), 'Gil');
    const intruder = await register(createPasskeyDevice(ORIGIN), 'Hal');
    for (const [session, code] of [
      [undefined, 'UNAUTHORIZED'],
      [await signedIn(intruder), 'FORBIDDEN'],
    ] as const) {
      // whoever holds the challenge made their own authenticator answer it
      const { options } = await passkeys.registrationOptions(await signedIn(owner));
      const attacker = createPasskeyDevice(ORIGIN);
      await expect(passkeys.registrationVerify({ response: asJson(attacker.create(options)), ...session })).rejects.toMatchObject({ code });
    }
    expect(await prisma.passkeyCredential.count({ where: { humanId: owner.human.id } })).toBe(1);
    expect(await prisma.passkeyCredential.count({ where: { humanId: intruder.human.id } })).toBe(1);
    // a new account's ceremony needs no session, and a session does not turn it into an add-passkey one
    const fresh = await passkeys.registrationOptions({ name: 'Ivy' });
    const ivy = await passkeys.registrationVerify({ response: asJson(createPasskeyDevice(ORIGIN).create(fresh.options)), humanId: owner.human.id });
    expect(ivy.human).toMatchObject({ name: 'Ivy', passkeys: [expect.any(Object)] });
    expect(ivy.human.id).not.toBe(owner.human.id);
  });

  it('refuses a ceremony from another origin, a reused challenge, an expired challenge and an unknown passkey', async () => {
    const device = createPasskeyDevice(ORIGIN);
    await expect(register(device, 'Eve', 'https://evil.memory.example.com')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    const { options } = await passkeys.registrationOptions({ name: 'Cy' });
    const credential = asJson(device.create(options));
    await passkeys.registrationVerify({ response: credential });
    await expect(passkeys.registrationVerify({ response: credential })).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/challenge/) });

    const late = await passkeys.authenticationOptions();
    const assertion = asJson(device.get(late.options));
    now = new Date(now.getTime() + 301_000);
    await expect(passkeys.authenticationVerify({ response: assertion })).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/challenge/) });

    const stranger = createPasskeyDevice(ORIGIN);
    const foreignRp = await passkeys.registrationOptions({ name: 'Dee' });
    // a passkey made for this site but never verified here is unknown at sign-in
    stranger.create(foreignRp.options);
    await expect(signIn(stranger)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // a registration ceremony's challenge cannot finish a sign-in
    const reg = await passkeys.registrationOptions({ name: 'Fay' });
    const regCredential = asJson(createPasskeyDevice(ORIGIN).create(reg.options));
    await expect(passkeys.authenticationVerify({ response: regCredential })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('refuses a new account without a name', async () => {
    await expect(passkeys.registrationOptions({})).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('passkey deletion', () => {
  async function withPasskeys(name: string, count: number) {
    const first = await register(createPasskeyDevice(ORIGIN), name);
    const session = await signedIn(first);
    for (let i = 1; i < count; i++) {
      const { options } = await passkeys.registrationOptions(session);
      await passkeys.registrationVerify({ response: asJson(createPasskeyDevice(ORIGIN).create(options)), ...session });
    }
    return { ...first, session, human: await passkeys.getHuman({ humanId: first.human.id }) };
  }

  it('deletes one passkey and answers those kept; never the last (FORBIDDEN); another human’s or unknown: NOT_FOUND; the calling session stays valid', async () => {
    const { human, token, session } = await withPasskeys('Jo', 2);
    const other = await withPasskeys('Kim', 2);
    const [keep, drop] = human.passkeys;
    await expect(passkeys.deletePasskey({ ...session, passkeyId: other.human.passkeys[0].id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(passkeys.deletePasskey({ ...session, passkeyId: 'bm8tc3VjaC1wYXNza2V5' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await prisma.passkeyCredential.count({ where: { humanId: other.human.id } })).toBe(2);

    expect(await passkeys.deletePasskey({ ...session, passkeyId: drop.id })).toEqual({ deleted: true, passkeys: [keep] });
    await expect(passkeys.deletePasskey({ ...session, passkeyId: drop.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(passkeys.deletePasskey({ ...session, passkeyId: keep.id })).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/last passkey/) });
    expect((await passkeys.getHuman({ humanId: human.id })).passkeys).toEqual([keep]);
    expect(await sessions.authenticate({ token })).toMatchObject({ humanId: human.id });
  });

  it('ends every other session of the human (a lost passkey’s too), keeps the calling one and other humans’ sessions', async () => {
    const phone = createPasskeyDevice(ORIGIN);
    const laptop = createPasskeyDevice(ORIGIN);
    const first = await register(phone, 'Lea');
    const calling = await signedIn(first);
    const { options } = await passkeys.registrationOptions(calling);
    await passkeys.registrationVerify({ response: asJson(laptop.create(options)), ...calling });
    const onLaptop = await signIn(laptop);
    const walletSession = await sessions.issue(first.human.id, 'siwe');
    const stranger = await withPasskeys('Mo', 1);
    const lost = (await passkeys.getHuman({ humanId: first.human.id })).passkeys[1];
    await passkeys.deletePasskey({ ...calling, passkeyId: lost.id });
    expect(await sessions.authenticate({ token: first.token })).toMatchObject({ humanId: first.human.id });
    for (const token of [onLaptop.token, walletSession.token]) await expect(sessions.authenticate({ token })).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/signed out/) });
    expect(await sessions.authenticate({ token: stranger.token })).toMatchObject({ humanId: stranger.human.id });
  });
});

describe('a Sign in with Ethereum session and passkeys', () => {
  const NEEDS_PASSKEY = { code: 'FORBIDDEN', message: expect.stringMatching(/^Sign in with a passkey to manage passkeys/) };

  it('of an account that has passkeys may not add one (options, or finishing a ceremony begun with a passkey session) nor delete one', async () => {
    const owner = await register(createPasskeyDevice(ORIGIN), 'Ned');
    const second = createPasskeyDevice(ORIGIN);
    const passkeySession = await signedIn(owner);
    const { options } = await passkeys.registrationOptions(passkeySession);
    const { token } = await sessions.issue(owner.human.id, 'siwe');
    const walletSession = await signedIn({ token });
    expect(await sessions.authenticate({ token })).toMatchObject({ method: 'siwe' });
    await expect(passkeys.registrationOptions(walletSession)).rejects.toMatchObject(NEEDS_PASSKEY);
    await expect(passkeys.registrationVerify({ response: asJson(second.create(options)), ...walletSession })).rejects.toMatchObject(NEEDS_PASSKEY);
    await expect(passkeys.deletePasskey({ ...walletSession, passkeyId: owner.human.passkeys[0].id })).rejects.toMatchObject(NEEDS_PASSKEY);
    expect(await prisma.passkeyCredential.count({ where: { humanId: owner.human.id } })).toBe(1);
    // the passkey session may
    const again = await passkeys.registrationOptions(passkeySession);
    await passkeys.registrationVerify({ response: asJson(second.create(again.options)), ...passkeySession });
    expect(await prisma.passkeyCredential.count({ where: { humanId: owner.human.id } })).toBe(2);
  });

  it('of a wallet-only account adds its first passkey, and only the first (two ceremonies begun before either ended: the second is FORBIDDEN)', async () => {
    const humanId = newId('human');
    await prisma.human.create({ data: { id: humanId, name: 'Wallet 0xAbCd…1234', webauthnUserId: Buffer.from(humanId).toString('base64url') } });
    const walletSession = await signedIn(await sessions.issue(humanId, 'siwe'));
    const one = await passkeys.registrationOptions(walletSession);
    const two = await passkeys.registrationOptions(walletSession);
    const added = await passkeys.registrationVerify({ response: asJson(createPasskeyDevice(ORIGIN).create(one.options)), ...walletSession });
    expect(added.human.passkeys).toHaveLength(1);
    await expect(passkeys.registrationVerify({ response: asJson(createPasskeyDevice(ORIGIN).create(two.options)), ...walletSession })).rejects.toMatchObject(NEEDS_PASSKEY);
    await expect(passkeys.registrationOptions(walletSession)).rejects.toMatchObject(NEEDS_PASSKEY);
    expect(await prisma.passkeyCredential.count({ where: { humanId } })).toBe(1);
  });

  it('a session id that is not the human’s open session is UNAUTHORIZED', async () => {
    const a = await register(createPasskeyDevice(ORIGIN), 'Olu');
    const b = await register(createPasskeyDevice(ORIGIN), 'Pia');
    await expect(passkeys.registrationOptions({ humanId: a.human.id, sessionId: (await signedIn(b)).sessionId })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(passkeys.registrationOptions({ humanId: a.human.id })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
  // Concurrent deletions: passkey-deletion.int-spec.ts (a pool of connections; PGlite here runs one statement at a time).
});

describe('sessions', () => {
  it('expire after the TTL and end at sign-out', async () => {
    const device = createPasskeyDevice(ORIGIN);
    const { token } = await register(device, 'Gus');
    now = new Date(now.getTime() + 12 * 3600_000 - 1);
    await expect(sessions.authenticate({ token })).resolves.toBeDefined();
    now = new Date(now.getTime() + 1);
    await expect(sessions.authenticate({ token })).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/expired/) });
    const again = await signIn(device);
    expect(await sessions.end({ token: again.token })).toEqual({ loggedOut: true });
    await expect(sessions.authenticate({ token: again.token })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(sessions.end({ token: again.token })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(sessions.authenticate({ token: 'amk_session_nope' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('claims', () => {
  const keysOf = () => new AgentKeysUseCases(new PrismaAgentsRepository(prisma), 'amk', 3600, clock);

  const seedAgent = () => seedAgentIn(new PrismaAgentsRepository(prisma), { name: 'claimable', walletAddress: `0x${'2'.repeat(40)}` });

  it('lets a human claim an agent with its key once, refuses a second owner, and releases', async () => {
    const ana = await signedIn(await register(createPasskeyDevice(ORIGIN), 'Ana2'));
    const bo = await signedIn(await register(createPasskeyDevice(ORIGIN), 'Bo2'));
    const agent = await seedAgent();
    await expect(claims.resolve({ ...ana, agentId: agent.agentId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const claimed = await claims.claim({ ...ana, agentKey: agent.key });
    expect(claimed).toMatchObject({ id: agent.agentId, claimedAt: expect.any(String) });
    expect((await claims.claim({ ...ana, agentKey: agent.key })).claimedAt).toBe(claimed.claimedAt);
    await expect(claims.claim({ ...bo, agentKey: agent.key })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(claims.claim({ ...bo, agentKey: `amk_live_${'x'.repeat(43)}` })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await claims.resolve({ ...ana, agentId: agent.agentId })).toEqual({ agentId: agent.agentId, keyEnvironment: 'live', mode: 'cloud' });
    await expect(claims.resolve({ ...bo, agentId: agent.agentId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await claims.list(ana)).agents.map((a) => a.id)).toEqual([agent.agentId]);
    await expect(claims.release({ ...bo, agentId: agent.agentId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await claims.release({ ...ana, agentId: agent.agentId })).toEqual({ released: true, agentId: agent.agentId });
    expect((await claims.claim({ ...bo, agentKey: agent.key })).id).toBe(agent.agentId);
  });

  it('refuses a claim made with a key in its rotation grace period (FORBIDDEN); the current key claims', async () => {
    const ana = await signedIn(await register(createPasskeyDevice(ORIGIN), 'Ana3'));
    const agent = await seedAgent();
    const rotated = await keysOf().rotate({ agentId: agent.agentId, graceSeconds: 3600, requestedBy: 'agent' });
    expect((await keysOf().authenticate({ agentKey: agent.key })).agentId).toBe(agent.agentId); // still works for calls
    await expect(claims.claim({ ...ana, agentKey: agent.key })).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/rotated away/) });
    expect(await prisma.agentClaim.findUnique({ where: { agentId: agent.agentId } })).toBeNull();
    expect((await claims.claim({ ...ana, agentKey: rotated.agentKey })).id).toBe(agent.agentId);
  });

  it('the agent drops a claim: by releasing it, by revoking a key, by rotating with grace 0; the human’s own key changes keep it', async () => {
    const ana = await signedIn(await register(createPasskeyDevice(ORIGIN), 'Ana4'));
    const agent = await seedAgent();
    const claimed = async () => (await prisma.agentClaim.findUnique({ where: { agentId: agent.agentId } }))?.humanId ?? null;
    expect(await claims.releaseByAgent({ agentId: agent.agentId })).toEqual({ released: false });
    await claims.claim({ ...ana, agentKey: agent.key });
    expect(await claims.releaseByAgent({ agentId: agent.agentId })).toEqual({ released: true });
    expect(await claimed()).toBeNull();

    // the human's side: rotation with grace 0 and revocation leave the claim
    await claims.claim({ ...ana, agentKey: agent.key });
    const byHuman = await keysOf().rotate({ agentId: agent.agentId, graceSeconds: 0, requestedBy: 'human' });
    const byHumanOld = (await keysOf().list({ agentId: agent.agentId })).keys.find((k) => k.id !== byHuman.key.id)!.id;
    await keysOf().revoke({ agentId: agent.agentId, keyId: byHumanOld, requestedBy: 'human' });
    expect(await claimed()).toBe(ana.humanId);

    // the agent's side: rotation with a grace period keeps it, grace 0 drops it
    const withGrace = await keysOf().rotate({ agentId: agent.agentId, graceSeconds: 60, requestedBy: 'agent' });
    expect(await claimed()).toBe(ana.humanId);
    const cut = await keysOf().rotate({ agentId: agent.agentId, graceSeconds: 0, requestedBy: 'agent' });
    expect(await claimed()).toBeNull();

    // revoking any key (even one already revoked) from the agent's side drops it
    await claims.claim({ ...ana, agentKey: cut.agentKey });
    await keysOf().revoke({ agentId: agent.agentId, keyId: withGrace.key.id, requestedBy: 'agent' });
    expect(await claimed()).toBeNull();
    await claims.claim({ ...ana, agentKey: cut.agentKey });
    await keysOf().revoke({ agentId: agent.agentId, keyId: withGrace.key.id, requestedBy: 'agent' });
    expect(await claimed()).toBeNull();
    // a key of another agent is NOT_FOUND and changes nothing
    await claims.claim({ ...ana, agentKey: cut.agentKey });
    const other = await seedAgent();
    const otherKeyId = (await keysOf().list({ agentId: other.agentId })).keys[0].id;
    await expect(keysOf().revoke({ agentId: agent.agentId, keyId: otherKeyId, requestedBy: 'agent' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await claimed()).toBe(ana.humanId);
  });
});
