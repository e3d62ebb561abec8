import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AgentMemory, ForbiddenError, PaymentRefusedError, PaymentRequiredError, UnauthorizedError } from '../src';
import { startStandaloneServer, TestChainRpcServer, type TestServer } from '@agent-memory/test-support';

// The SDK paying 402 challenges (docs/billing.md) with the agent's wallet, opt-in and under a maximum price,
// against a standalone server with BILLING_MODE=enforce whose Payment credentials settle on the local test
// chain (TestChainRpcServer through the gateway's chain settlement); and `local` agents signing every request
// with their wallet (docs/authentication.md, "Wallet signatures").

const RECIPIENT = privateKeyToAccount(generatePrivateKey()).address;
let chain: TestChainRpcServer;
let server: TestServer;

beforeAll(async () => {
  chain = await TestChainRpcServer.start();
  server = await startStandaloneServer({
    env: { BILLING_MODE: 'enforce', PAYMENT_RECIPIENT: RECIPIENT, PAYMENT_RPC_URL: chain.url, PAYMENT_SETTLER_PRIVATE_KEY: generatePrivateKey() },
  });
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([server?.close({ removeData: true }), chain?.close()]);
});

/** A live agent with an empty balance whose wallet the service generated. */
async function liveAgent(mode: 'cloud' | 'local' = 'cloud') {
  const agent = await AgentMemory.createAgent({ baseUrl: server.url, name: `sdk payer ${mode}`, mode });
  expect(agent.walletPrivateKey).toMatch(/^0x[0-9a-f]{64}$/);
  return { ...agent, walletPrivateKey: agent.walletPrivateKey as `0x${string}` };
}

describe('paying 402 challenges', () => {
  it('without the opt-in: PaymentRequiredError with the challenge, nothing paid', async () => {
    const agent = await liveAgent();
    const client = new AgentMemory({ baseUrl: server.url, apiKey: agent.agentKey, wallet: agent.walletPrivateKey });
    const error = await client.memories.recall(agent.recordId, { query: 'anything' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect(error).not.toBeInstanceOf(PaymentRefusedError);
    expect((error as PaymentRequiredError).challenge).toMatch(/^Payment .*intent="charge"/);
    expect(chain.settled).toHaveLength(0);
  });

  it('with payments enabled: pays the challenge with the wallet (0.05 USD settled on chain) and answers the call', async () => {
    const agent = await liveAgent();
    const client = new AgentMemory({ baseUrl: server.url, apiKey: agent.agentKey, wallet: agent.walletPrivateKey, payments: { enabled: true, maxPricePerCall: '0.05' } });
    const before = chain.settled.length;
    const memory = await client.memories.remember(agent.recordId, { content: 'Paid by the SDK.', path: 'notes/paid' });
    expect(memory).toMatchObject({ path: 'notes/paid' });
    expect(chain.settled.slice(before).map((t) => t.authorization)).toEqual([expect.objectContaining({ from: agent.walletAddress, to: RECIPIENT, value: '50000' })]);
    const entries = await client.billing.usage().toArray();
    expect(entries).toEqual([expect.objectContaining({ operation: 'remember', amountMicroUsd: 50_000, paymentMethod: 'payment' })]);
    expect((await client.billing.balance()).balanceMicroUsd).toBe(0);
  });

  it('refuses a challenge above maxPricePerCall: typed error, nothing signed or settled', async () => {
    const agent = await liveAgent();
    const client = new AgentMemory({ baseUrl: server.url, apiKey: agent.agentKey, wallet: agent.walletPrivateKey, payments: { enabled: true, maxPricePerCall: '0.01' } });
    const before = chain.settled.length;
    const error = await client.memories.context(agent.recordId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRefusedError);
    expect(error).toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402, priceMicroUsd: 50_000n, maxPriceMicroUsd: 10_000n, requestId: expect.any(String) });
    expect(chain.settled.length).toBe(before);
  });

  it('tops up the balance by paying exactly the amount asked, then draws on it', async () => {
    const agent = await liveAgent();
    const client = new AgentMemory({ baseUrl: server.url, apiKey: agent.agentKey, wallet: agent.walletPrivateKey, payments: { enabled: true, maxPricePerCall: '0.05' } });
    expect(await client.billing.topUp('0.10')).toMatchObject({ creditedMicroUsd: 100_000, balanceMicroUsd: 100_000 });
    const before = chain.settled.length;
    await client.memories.recall(agent.recordId, { query: 'anything' });
    expect(chain.settled.length).toBe(before); // paid from the balance
    expect((await client.billing.balance()).balanceMicroUsd).toBe(50_000);
  });
});

describe('local agents: wallet signatures', () => {
  it('signs every request with the wallet (no key): agent, raw blobs, and a paid call paid with the same wallet', async () => {
    const agent = await liveAgent('local');
    const client = new AgentMemory({
      baseUrl: server.url,
      wallet: privateKeyToAccount(agent.walletPrivateKey),
      signature: { domain: server.signatureRealm.domain }, // the chain id comes from GET /billing/prices
      payments: { enabled: true, maxPricePerCall: '0.05' },
    });
    expect(await client.agents.get()).toMatchObject({ id: agent.agentId, mode: 'local' });
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    expect(await client.files.rawPut(agent.recordId, { path: 'blobs/b.bin', content: bytes })).toMatchObject({ path: 'blobs/b.bin', size: 5 });
    const blob = await client.files.rawGet(agent.recordId, 'blobs/b.bin');
    expect([...blob.bytes]).toEqual([...bytes]);
    expect(blob.contentType).toBe('application/octet-stream');
    // identical requests in one second get distinct timestamps, so the replay guard does not refuse them
    await Promise.all([client.agents.get(), client.agents.get(), client.agents.get()]);
    expect(await client.memories.remember(agent.recordId, { content: 'Signed and paid by the wallet.' })).toMatchObject({ type: expect.any(String) });
  });

  it('creates a local agent bound to the client\'s own wallet (proof signed locally, no private key answered)', async () => {
    const wallet = generatePrivateKey();
    const signature = { domain: server.signatureRealm.domain };
    const agent = await AgentMemory.createAgent({ baseUrl: server.url, name: 'own wallet', mode: 'local', wallet, signature });
    expect(agent).toMatchObject({ mode: 'local', walletAddress: privateKeyToAccount(wallet).address });
    expect(agent.walletPrivateKey).toBeUndefined();
    const client = new AgentMemory({ baseUrl: server.url, wallet, signature });
    expect(await client.agents.get()).toMatchObject({ id: agent.agentId });
    // a challenge naming another domain is not signed
    await expect(AgentMemory.createAgent({ baseUrl: server.url, name: 'x', mode: 'local', wallet: generatePrivateKey(), signature: { domain: 'memory.example.com' } })).rejects.toThrow(TypeError);
  });

  it('a signature for another deployment is refused (401), and a cloud agent has no raw blobs (403)', async () => {
    const local = await liveAgent('local');
    const elsewhere = new AgentMemory({ baseUrl: server.url, wallet: local.walletPrivateKey, signature: { domain: 'memory.example.com' } });
    await expect(elsewhere.agents.get()).rejects.toBeInstanceOf(UnauthorizedError);
    const cloud = await liveAgent('cloud');
    const client = new AgentMemory({ baseUrl: server.url, wallet: cloud.walletPrivateKey, signature: { domain: server.signatureRealm.domain } });
    await expect(client.files.rawGet(cloud.recordId, 'x')).rejects.toBeInstanceOf(ForbiddenError);
  });
});
