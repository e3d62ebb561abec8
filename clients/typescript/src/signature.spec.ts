import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recoverMessageAddress } from 'viem';
import { AgentMemory } from './client';
import { randomUuid, type RandomSource } from './resources/idempotency';
import { RequestSigner, resolveWallet, sha256Hex, signatureMessage } from './signature';

/** The fenced block after `<!-- worked-example:<name> -->` in docs/authentication.md, byte for byte. */
function docBlock(name: string): string {
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'authentication.md'), 'utf8');
  const m = new RegExp(`<!-- worked-example:${name} -->\\n\`\`\`text\\n([\\s\\S]*?)\\n\`\`\``).exec(doc);
  if (!m) throw new Error(`docs/authentication.md has no worked-example:${name} block`);
  return m[1];
}

const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const PATH = '/api/v1/records/rec_4mQ8vT2nXb7LpR9sK3dW1a/remember';
const REALM = { domain: 'memory.example.com', chainId: 8453 };
const NOW_MS = 1767225600 * 1000;

describe('wallet signatures: the worked example of docs/authentication.md', () => {
  it('builds the documented message and header byte for byte (WebCrypto SHA-256, viem signature)', async () => {
    const body = docBlock('body');
    expect(await signatureMessage({ ...REALM, method: 'post', pathWithQuery: PATH, timestamp: 1767225600, body })).toBe(docBlock('message'));
    const signer = new RequestSigner(await resolveWallet(PRIVATE_KEY), async () => REALM);
    expect(await signer.authorization({ method: 'POST', pathWithQuery: PATH, body }, NOW_MS)).toBe(docBlock('header'));
  });

  it('never signs the same message twice: a repeat in the same second moves to the next second', async () => {
    const signer = new RequestSigner(await resolveWallet(PRIVATE_KEY), async () => REALM);
    const request = { method: 'GET', pathWithQuery: '/api/v1/agents', body: '' };
    const first = await signer.authorization(request, NOW_MS);
    const second = await signer.authorization(request, NOW_MS + 500);
    const other = await signer.authorization({ ...request, pathWithQuery: '/api/v1/agents/keys' }, NOW_MS + 600);
    expect([first, second, other].map((h) => h.split(':')[0])).toEqual(['Signature 1767225600', 'Signature 1767225601', 'Signature 1767225600']);
  });

  it('signs what the client sends: domain of baseUrl, path with query, exact body bytes', async () => {
    const sent: { url: string; init: RequestInit }[] = [];
    const fakeFetch: typeof fetch = async (url, init) => {
      sent.push({ url: url as string, init: init! });
      return new Response(JSON.stringify({ success: true, data: { path: 'a b', content: '', contentType: 'text/plain' } }), { status: 200 });
    };
    const client = new AgentMemory({ baseUrl: 'https://memory.example.com', wallet: PRIVATE_KEY, signature: { chainId: 8453 }, fetch: fakeFetch });
    await client.files.rawGet('rec_4mQ8vT2nXb7LpR9sK3dW1a', 'a b');
    await client.memories.remember('rec_4mQ8vT2nXb7LpR9sK3dW1a', { content: 'x' }, { idempotencyKey: 'k1' });
    for (const { url, init } of sent) {
      const header = (init.headers as Record<string, string>)['authorization'];
      const [, ts, address, signature] = /^Signature (\d+):(0x[0-9a-fA-F]{40}):(0x[0-9a-f]{130})$/.exec(header)!;
      const u = new URL(url);
      const message = await signatureMessage({ ...REALM, method: init.method!, pathWithQuery: u.pathname + u.search, timestamp: Number(ts), body: (init.body as string | undefined) ?? '' });
      expect(await recoverMessageAddress({ message, signature: signature as `0x${string}` })).toBe(address);
    }
    expect(sent.map((s) => s.url)).toEqual(['https://memory.example.com/api/v1/records/rec_4mQ8vT2nXb7LpR9sK3dW1a/raw?path=a+b', 'https://memory.example.com/api/v1/records/rec_4mQ8vT2nXb7LpR9sK3dW1a/remember']);
    expect(sent[1].init.body).toBe('{"content":"x","idempotency_key":"k1"}');
  });
});

describe('pages on plain http (no secure context: no crypto.subtle, no crypto.randomUUID)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('signs without crypto.subtle (viem\'s SHA-256 of the body): the documented message and header byte for byte', async () => {
    jest.spyOn(globalThis.crypto, 'subtle', 'get').mockReturnValue(undefined as never);
    expect(globalThis.crypto.subtle).toBeUndefined();
    const body = docBlock('body');
    expect(await signatureMessage({ ...REALM, method: 'POST', pathWithQuery: PATH, timestamp: 1767225600, body })).toBe(docBlock('message'));
    const signer = new RequestSigner(await resolveWallet(PRIVATE_KEY), async () => REALM);
    expect(await signer.authorization({ method: 'POST', pathWithQuery: PATH, body }, NOW_MS)).toBe(docBlock('header'));
    expect(await sha256Hex(new Uint8Array())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('makes idempotency keys from crypto.getRandomValues when randomUUID is absent (version 4 UUIDs)', () => {
    const insecure: RandomSource = { getRandomValues: (array) => globalThis.crypto.getRandomValues(array) };
    const keys = Array.from({ length: 50 }, () => randomUuid(insecure));
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(50);
    expect(randomUuid()).toMatch(/^[0-9a-f-]{36}$/);
  });
});
