import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The published package (README "Install"): `tsup` builds dist/index.mjs (ES module), dist/index.cjs
// (CommonJS) and their declarations with the private @agent-memory/shared types inlined. This builds into
// a scratch directory (under node_modules/.cache, so that viem and mppx resolve) and loads both outputs in
// a fresh Node process: a call through a fake fetch, and a 402 paid with mppx loaded lazily from either
// module format (mppx ships ES modules only).

const packageDir = join(__dirname, '..');
const repoRoot = join(packageDir, '..', '..');
const outDir = join(repoRoot, 'node_modules', '.cache', `agent-memory-client-build-${process.pid}`);
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  exports: Record<string, { import: { types: string; default: string }; require: { types: string; default: string } }>;
  files: string[];
  dependencies: Record<string, string>;
};

beforeAll(() => {
  execFileSync(process.execPath, [join(repoRoot, 'node_modules', 'tsup', 'dist', 'cli-default.js'), '--config', 'tsup.config.ts', '--out-dir', outDir], { cwd: packageDir, stdio: 'pipe' });
}, 120_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** A script that builds a client on a fake fetch, reads an agent, then pays a 402 challenge; prints what it saw. */
const SMOKE = `
  const { AgentMemory, NotFoundError } = mod;
  const challenge = 'Payment id="c1", realm="sdk.test", method="evm", intent="charge", expires="' + new Date(Date.now() + 60000).toISOString() + '", request="' +
    Buffer.from(JSON.stringify({ amount: '50000', currency: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', methodDetails: { chainId: 84532, decimals: 6, credentialTypes: ['authorization'] } })).toString('base64url') + '"';
  let paidWith;
  const fakeFetch = async (url, init) => {
    if (url.endsWith('/agents')) return new Response(JSON.stringify({ success: true, data: { id: 'agt_1' } }), { status: 200 });
    if (init.headers.authorization.startsWith('Payment ')) { paidWith = init.headers.authorization; return new Response(JSON.stringify({ success: true, data: { memories: [], count: 0 } }), { status: 200 }); }
    return new Response(JSON.stringify({ success: false, error: { code: 'PAYMENT_REQUIRED', message: 'pay' } }), { status: 402, headers: { 'www-authenticate': challenge } });
  };
  const client = new AgentMemory({ baseUrl: 'http://sdk.test', apiKey: 'amk_test_x', fetch: fakeFetch,
    wallet: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', payments: { enabled: true, maxPricePerCall: '0.05' } });
  (async () => {
    const agent = await client.agents.get();
    const recall = await client.memories.recall('rec_1', { query: 'q' });
    console.log(JSON.stringify({ agent, recall, paid: /^Payment [A-Za-z0-9_-]+$/.test(paidWith), notFound: typeof NotFoundError }));
  })().catch((e) => { console.error(e); process.exit(1); });
`;

const run = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { cwd: outDir, encoding: 'utf8' })) as Record<string, unknown>;
const expected = { agent: { id: 'agt_1' }, recall: { memories: [], count: 0 }, paid: true, notFound: 'function' };

describe('the published package', () => {
  it('loads as CommonJS and pays through the lazily imported mppx', () => {
    expect(run(['-e', `const mod = require(${JSON.stringify(join(outDir, 'index.cjs'))});${SMOKE}`])).toEqual(expected);
  });

  it('loads as an ES module', () => {
    expect(run(['--input-type=module', '-e', `const mod = await import(${JSON.stringify(join(outDir, 'index.mjs'))});${SMOKE}`])).toEqual(expected);
  });

  it('type-checks a consumer against the published declarations alone (strict, DOM lib, no path aliases)', () => {
    writeFileSync(
      join(outDir, 'consumer.ts'),
      [
        "import { AgentMemory, NotFoundError, type RememberInput, type MemoryRecord } from './index.mjs';",
        "const client = new AgentMemory({ baseUrl: 'https://memory.example.com', apiKey: 'amk_test_x', retries: 2 });",
        "const input: RememberInput = { content: 'x', type: 'fact' };",
        // the types are real (not `any` from an unresolved import): wrong shapes are errors
        "// @ts-expect-error: content is a string",
        'export const wrong: RememberInput = { content: 1 };',
        "// @ts-expect-error: not a memory type",
        "export const wrongType: RememberInput = { content: 'x', type: 'opinion' };",
        'export async function use(): Promise<MemoryRecord[]> {',
        "  await client.memories.remember('rec_1', input, { idempotencyKey: 'k' });",
        '  const out: MemoryRecord[] = [];',
        '  for await (const record of client.records.list({ pageSize: 10 })) out.push(record);',
        '  return out.filter(() => !(new Error() instanceof NotFoundError));',
        '}',
      ].join('\n'),
    );
    const compilerOptions = { noEmit: true, strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom', 'dom.iterable'], types: [], skipLibCheck: true };
    writeFileSync(join(outDir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(() => execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: outDir, encoding: 'utf8' })).not.toThrow();
  }, 60_000);

  it('has the files its exports map names, no node: imports, no private package, declarations inlined', () => {
    const entry = manifest.exports['.'];
    for (const file of [entry.import.default, entry.import.types, entry.require.default, entry.require.types]) {
      expect(file.startsWith('./dist/')).toBe(true);
      expect(() => readFileSync(join(outDir, file.slice('./dist/'.length)))).not.toThrow();
    }
    expect(manifest.files).toEqual(['dist', 'README.md']);
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['mppx', 'viem', 'zod']);
    for (const file of ['index.mjs', 'index.cjs', 'index.d.ts', 'index.d.mts']) {
      const text = readFileSync(join(outDir, file), 'utf8');
      expect(text).not.toMatch(/@agent-memory\//);
      expect(text).not.toMatch(/from ['"]node:|require\(['"]node:/);
    }
    const types = readFileSync(join(outDir, 'index.d.ts'), 'utf8');
    expect(types).toMatch(/declare const RememberBodySchema/);
    expect(types).toMatch(/type RememberInput = /);
  });
});
