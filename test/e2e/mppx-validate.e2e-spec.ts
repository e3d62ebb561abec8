import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { formatUsd, PAID_ROUTES, PRICE_LIST_MICRO_USD } from '@agent-memory/shared';
import { ApiClient } from '@agent-memory/testing';
import { parsePaymentChallenge, startStandaloneServer, TestChainRpcServer, type TestServer } from '@agent-memory/test-support';
import { runMppx, writeWalletConfig as writeConfigFile } from './mppx/mppx-cli';

// The spec's own paying client, the `mppx` command of the installed mppx package (docs/billing.md,
// "Paying with mppx"), against a standalone server with BILLING_MODE=enforce whose Payment credentials
// settle on the local test chain (TestChainRpcServer, through the gateway's real chain settlement):
// `mppx validate` finds the OpenAPI document and /llms.txt, checks the challenge and the error handling of
// every paid operation with no failure and no realm warning (PAYMENT_REALM is the host it calls), and pays
// a recall itself; `mppx discover validate` accepts the document; then `mppx <url>` pays a remember and a
// recall for an agent with no balance.
// Each run's output is printed, so that it can be quoted.

const RECIPIENT = privateKeyToAccount(generatePrivateKey()).address;
const TOKEN = { name: 'USDC', version: '2' }; // the EIP-712 domain of the test chain's token (Base Sepolia USDC)
const RECALL_PRICE = PRICE_LIST_MICRO_USD.recall;

let chain: TestChainRpcServer;
let server: TestServer;
let api: ApiClient;
/** The host the CLI calls; PAYMENT_REALM names it, which answers mppx's "Realm matches server hostname" check. */
const host = '127.0.0.1';

beforeAll(async () => {
  chain = await TestChainRpcServer.start();
  server = await startStandaloneServer({
    env: { BILLING_MODE: 'enforce', PAYMENT_REALM: host, PAYMENT_RECIPIENT: RECIPIENT, PAYMENT_RPC_URL: chain.url, PAYMENT_SETTLER_PRIVATE_KEY: generatePrivateKey() },
  });
  api = new ApiClient(server.url);
  expect(new URL(server.url).hostname).toBe(host);
}, 120_000);

/** The mppx config files written by the suite, removed at the end. */
const configFiles: string[] = [];
function writeWalletConfig(options: Parameters<typeof writeConfigFile>[0]): string {
  const file = writeConfigFile(options);
  configFiles.push(file);
  return file;
}

afterAll(async () => {
  for (const file of configFiles) rmSync(dirname(file), { recursive: true, force: true });
  await Promise.allSettled([server?.close({ removeData: true }), chain?.close()]);
});

/** Prints one CLI run under a title (the suite's record of what mppx said). */
function show(title: string, run: { code: number | null; output: string }): void {
  console.log(`${title} (exit code ${run.code})\n${run.output}`);
}

/** The lines of a `mppx validate` run with a failure (✗) or warning (⚠) mark. */
const failuresAndWarnings = (output: string) => output.split('\n').filter((l) => /^\s*[✗⚠]/.test(l));

/** A new live agent whose wallet the service generated (its private key is shown once, here). */
async function agentWithWallet() {
  const agent = await api.createAgent({ name: 'mppx payer' });
  if (!agent.walletPrivateKey) throw new Error('the service did not generate a wallet');
  return { ...agent, walletPrivateKey: agent.walletPrivateKey };
}

describe('mppx validate (discovery, challenge, error handling) against BILLING_MODE=enforce', () => {
  it('serves /llms.txt without auth as text/plain, stating this deployment\'s billing mode, realm and prices', async () => {
    const res = await fetch(`${server.url}/llms.txt`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/plain; charset=utf-8']);
    const text = await res.text();
    expect(text.startsWith('# agent-memory\n')).toBe(true);
    expect(text).toContain('Billing mode of this server: `enforce`');
    expect(text).toContain(`realm \`${host}\``);
    expect(text).toContain(`- recall: \`POST /api/v1/records/{recordId}/recall\`, ${formatUsd(RECALL_PRICE)} USD per query`);
  });

  it('passes with no failure and no warning: /openapi.json, /llms.txt, a Payment challenge per paid operation, the realm', async () => {
    const run = await runMppx(['validate', server.url]);
    show('mppx validate', run);
    expect(failuresAndWarnings(run.output)).toEqual([]);
    expect(run.output).toContain('✓ llms.txt found and nonempty');
    expect(run.output).toContain('✓ Document found and parseable');
    expect(run.output).toContain(`✓ Paid endpoints found (${PAID_ROUTES.length} endpoint(s))`);
    expect(run.output).toContain('✓ Realm matches server hostname');
    expect(run.output).toContain('✓ Malformed credential returns 402 (not 500)');
    expect(run.output).toContain('✓ Error response includes fresh challenge');
    expect(run.output).toMatch(/Summary: \d+ passed/);
    expect(run.output).not.toMatch(/\d+ failed|warning\(s\)/);
    expect(run.code).toBe(0);
    // Every paid operation was found in the document and answered its unpaid request with a challenge.
    for (const section of ['POST /api/v1/records/{recordId}/recall', 'POST /api/v1/records/{recordId}/remember', 'DELETE /api/v1/records/{recordId}/remember', 'GET /api/v1/records/{recordId}/context']) {
      expect(run.output).toContain(section);
    }
    expect(run.output.match(/✓ Returns 402 without credentials/g)?.length).toBeGreaterThanOrEqual(6);
  }, 180_000);

  it('mppx discover validate accepts /openapi.json as an MPP discovery document (no error, no warning)', async () => {
    const run = await runMppx(['discover', 'validate', `${server.url}/openapi.json`]);
    show('mppx discover validate', run);
    expect(run.code).toBe(0);
    expect(run.output).toContain('Discovery document is valid.');
    expect(run.output).not.toMatch(/error|warning/i);
  }, 120_000);

  it('pays a recall itself with the agent wallet of its config (--endpoint, --yes): 200, a Payment-Receipt of the settled transfer', async () => {
    const agent = await agentWithWallet();
    const config = writeWalletConfig({ token: TOKEN, maxAtomicAmount: String(RECALL_PRICE) });
    const settledBefore = chain.settled.length;
    const run = await runMppx(['validate', server.url, '--endpoint', `POST:/api/v1/records/${agent.recordId}/recall`, '--body', JSON.stringify({ query: 'what do I know?' }), '--yes'], {
      env: { MPPX_CONFIG: config, AGENT_WALLET_KEY: agent.walletPrivateKey },
    });
    show('mppx validate --endpoint (paying)', run);
    // Without a discovery document mode (--endpoint) the Discovery section is still printed; it must pass too.
    expect(failuresAndWarnings(run.output)).toEqual([]);
    expect(run.output).toContain('✓ Payment [evm]: submitted');
    expect(run.output).toContain('✓ Payment: successful (HTTP 200)');
    expect(run.output).toContain('✓ Payment-Receipt header present');
    expect(run.output).toContain('✓ Receipt status is "success"');
    expect(run.code).toBe(0);
    expect(chain.settled.slice(settledBefore)).toEqual([expect.objectContaining({ authorization: expect.objectContaining({ from: agent.walletAddress, to: RECIPIENT, value: String(RECALL_PRICE) }) })]);
  }, 180_000);
});

describe('the mppx client pays for an agent with no balance (mppx <url> --config, settled on the local test chain)', () => {
  it('402 challenge, then mppx pays remember and recall: 200 with the memory; the ledger shows both charges as payments', async () => {
    const agent = await agentWithWallet();
    const recall = `/api/v1/records/${agent.recordId}/recall`;
    expect((await api.request('GET', '/api/v1/billing/balance', { key: agent.agentKey })).data).toMatchObject({ balanceMicroUsd: 0 });
    const unpaid = await api.request('POST', recall, { key: agent.agentKey, body: { query: 'favourite colour' } });
    expect([unpaid.status, unpaid.code]).toEqual([402, 'PAYMENT_REQUIRED']);
    expect(parsePaymentChallenge(unpaid.headers.get('www-authenticate') ?? '').params).toMatchObject({ realm: host, method: 'evm', intent: 'charge' });

    const config = writeWalletConfig({ token: TOKEN, maxAtomicAmount: String(RECALL_PRICE) });
    const env = { AGENT_WALLET_KEY: agent.walletPrivateKey };
    const settledBefore = chain.settled.length;
    const remember = await runMppx([`${server.url}/api/v1/records/${agent.recordId}/remember`, '-J', JSON.stringify({ content: 'My favourite colour is teal.', type: 'fact' }), '--config', config, '--rpc-url', chain.url], { env });
    show('mppx <remember>', remember);
    expect(remember.code).toBe(0);
    expect(remember.output).toContain('"success":true');

    const paid = await runMppx([`${server.url}${recall}`, '-J', JSON.stringify({ query: 'favourite colour' }), '--config', config, '--rpc-url', chain.url, '-i'], { env });
    show('mppx <recall>', paid);
    expect(paid.code).toBe(0);
    // -i prints both answers: the 402 with its challenge, then the paid request's 200 with its receipt.
    expect(paid.output).toContain('HTTP/1.1 402 Payment Required');
    expect(paid.output).toMatch(/HTTP\/1\.1 200 OK[^{]*payment-receipt: /);
    const body = JSON.parse(paid.output.slice(paid.output.indexOf('{"success"')).split('\n')[0]);
    expect(body).toMatchObject({ success: true, data: { count: 1, memories: [expect.objectContaining({ type: 'fact', summary: expect.stringContaining('teal') })] } });

    // Both calls were paid by the agent's wallet on the chain, charged once each in the ledger, and the balance never moved.
    expect(chain.settled.slice(settledBefore).map((t) => [t.authorization.from, t.authorization.to, t.authorization.value])).toEqual([
      [agent.walletAddress, RECIPIENT, String(PRICE_LIST_MICRO_USD.remember)],
      [agent.walletAddress, RECIPIENT, String(RECALL_PRICE)],
    ]);
    const usage = (await api.request('GET', '/api/v1/billing/usage', { key: agent.agentKey })).data;
    expect(usage.entries.map((e: { operation: string; paymentMethod: string; amountMicroUsd: number }) => [e.operation, e.paymentMethod, e.amountMicroUsd])).toEqual([
      ['recall', 'payment', RECALL_PRICE],
      ['remember', 'payment', PRICE_LIST_MICRO_USD.remember],
    ]);
    expect(usage.totalUsd).toBe(formatUsd(RECALL_PRICE + PRICE_LIST_MICRO_USD.remember));
    expect((await api.request('GET', '/api/v1/billing/balance', { key: agent.agentKey })).data).toMatchObject({ balanceMicroUsd: 0 });
  }, 180_000);
});
