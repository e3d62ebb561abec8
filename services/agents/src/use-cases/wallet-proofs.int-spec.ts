import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openEmbeddedTestPrisma } from '@agent-memory/testing';
import { PrismaAgentsRepository } from '../persistence/prisma-agents.repository';
import { openAgentsPrisma, type AgentsPrismaClient } from '../persistence/prisma';
import { WalletProofsUseCases } from './wallet-proofs.use-cases';

/**
 * Proofs of wallet possession (docs/authentication.md, "Binding your own wallet") on a freshly migrated
 * embedded PostgreSQL, with a clock the test moves.
 */
const REALM = { domain: 'memory.example.com', chainId: 8453 };
let close: () => Promise<void>;
let prisma: AgentsPrismaClient;
let now = new Date('2026-06-01T12:00:00Z');
let proofs: WalletProofsUseCases;

beforeAll(async () => {
  ({ prisma, close } = await openEmbeddedTestPrisma(openAgentsPrisma));
  proofs = new WalletProofsUseCases(new PrismaAgentsRepository(prisma), REALM, () => now);
}, 60_000);
afterAll(() => close?.());

const refused = { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^walletProof: /) };

describe('wallet challenges', () => {
  it('issues an EIP-4361 message for this deployment and wallet, accepted once with the wallet’s signature', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const challenge = await proofs.issue({ walletAddress: wallet.address.toLowerCase() });
    expect(challenge.message).toBe(
      [
        `memory.example.com wants you to sign in with your Ethereum account:`,
        wallet.address,
        '',
        'Bind this wallet to a new agent-memory agent.',
        '',
        'URI: https://memory.example.com/api/v1/agents',
        'Version: 1',
        'Chain ID: 8453',
        `Nonce: ${challenge.nonce}`,
        'Issued At: 2026-06-01T12:00:00.000Z',
        'Expiration Time: 2026-06-01T12:05:00.000Z',
      ].join('\n'),
    );
    expect(challenge.expiresAt).toBe('2026-06-01T12:05:00.000Z');
    const proof = { message: challenge.message, signature: await wallet.signMessage({ message: challenge.message }) };
    await expect(proofs.consume(wallet.address, proof)).resolves.toBeUndefined();
    await expect(proofs.consume(wallet.address, proof)).rejects.toMatchObject(refused);
  });

  it('nonces are fresh 128-bit values', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const nonces = await Promise.all(Array.from({ length: 20 }, async () => (await proofs.issue({ walletAddress: wallet.address })).nonce));
    expect(new Set(nonces).size).toBe(20);
    for (const n of nonces) expect(n).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses an expired challenge, and a failed attempt uses the challenge up', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const late = await proofs.issue({ walletAddress: wallet.address });
    const lateProof = { message: late.message, signature: await wallet.signMessage({ message: late.message }) };
    now = new Date(now.getTime() + 300_000);
    await expect(proofs.consume(wallet.address, lateProof)).rejects.toMatchObject(refused);

    const challenge = await proofs.issue({ walletAddress: wallet.address });
    await expect(proofs.consume(wallet.address, { message: challenge.message, signature: await stranger.signMessage({ message: challenge.message }) })).rejects.toMatchObject(refused);
    await expect(proofs.consume(wallet.address, { message: challenge.message, signature: await wallet.signMessage({ message: challenge.message }) })).rejects.toMatchObject(refused);
  });

  it('refuses a message altered after issue, another wallet’s challenge, and a message without a nonce', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const challenge = await proofs.issue({ walletAddress: wallet.address });
    const altered = challenge.message.replace('Chain ID: 8453', 'Chain ID: 1');
    await expect(proofs.consume(wallet.address, { message: altered, signature: await wallet.signMessage({ message: altered }) })).rejects.toMatchObject(refused);
    const theirs = await proofs.issue({ walletAddress: other.address });
    await expect(proofs.consume(wallet.address, { message: theirs.message, signature: await wallet.signMessage({ message: theirs.message }) })).rejects.toMatchObject(refused);
    await expect(proofs.consume(wallet.address, { message: 'hello', signature: await wallet.signMessage({ message: 'hello' }) })).rejects.toMatchObject(refused);
  });

  it('purges expired challenges when issuing', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    await proofs.issue({ walletAddress: wallet.address });
    now = new Date(now.getTime() + 301_000);
    await proofs.issue({ walletAddress: wallet.address });
    expect(await prisma.walletChallenge.count({ where: { expiresAt: { lte: now } } })).toBe(0);
  });
});
