import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PAID_ROUTES, PRICE_LIST_MICRO_USD } from '@agent-memory/shared';
import { buildOpenApiDocument, type OpenApiDocument, servedRoutes } from '@agent-memory/gateway';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';

/*
 * The OpenAPI 3.1 contract at /openapi.json (docs/api.md, "The OpenAPI contract"): a well-kept linter
 * (Redocly, recommended rules) and swagger-parser accept it; every route the server serves is in it and
 * every operation in it is served; paid, rate-limited and authenticated operations say so.
 */

let server: TestServer;
let doc: OpenApiDocument;

beforeAll(async () => {
  // An anonymous limit that is no default: the document must state this deployment's figure.
  server = await startStandaloneServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '7' } });
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
});
afterAll(async () => server?.close({ removeData: true }));

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

describe('the OpenAPI document', () => {
  it('is served as OpenAPI 3.1 at /openapi.json, the same bytes at /docs/openapi.json, and built by buildOpenApiDocument', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const [again, docs] = await Promise.all([`${server.url}/openapi.json`, `${server.url}/docs/openapi.json`].map(async (url) => (await fetch(url)).text()));
    expect(docs).toBe(again);
    expect(JSON.parse(again)).toEqual(doc);
    expect(JSON.parse(JSON.stringify(buildOpenApiDocument(server.app)))).toEqual(doc);
  });

  it('lets the Swagger UI page at /docs load /openapi.json instead of embedding a second copy of the document', async () => {
    const init = await (await fetch(`${server.url}/docs/swagger-ui-init.js`)).text();
    expect(init).toContain('"url": "/openapi.json"');
    expect(init).not.toContain('/api/v1/');
    expect(init.length).toBeLessThan(5_000);
  });

  it("states this deployment's limit of calls without an agent (RATE_LIMIT_ANONYMOUS_PER_MINUTE=7), as /llms.txt does", async () => {
    expect(doc.paths['/api/v1/agents'].post.description).toContain('Rate limits: 7 requests/min per client address.');
    expect(JSON.stringify(doc)).not.toContain('RATE_LIMIT_ANONYMOUS_PER_MINUTE');
    expect(await (await fetch(`${server.url}/llms.txt`)).text()).toContain('7 calls without an agent');
  });

  it('has every operation of the records, memories and files tags among the main calls of /llms.txt, and no other', async () => {
    const text = await (await fetch(`${server.url}/llms.txt`)).text();
    const section = text.slice(text.indexOf('## Main calls'), text.indexOf('## Prices'));
    const listed = [...section.matchAll(/^- `(\w+ \/api\/v1\/\S+)`/gm)].map(([, call]) => call);
    const main = operations()
      .filter(({ op }) => (op.tags as string[]).some((tag) => ['records', 'memories', 'files'].includes(tag)))
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(main).toEqual(expect.arrayContaining(['GET /api/v1/records/{recordId}/memories', 'GET /api/v1/records/{recordId}/files']));
    expect([...listed].sort()).toEqual([...main].sort());
  });

  it('passes the Redocly linter (recommended rules) with no error and no warning, and swagger-parser validates it', async () => {
    // Both linters are ES modules: tools/openapi-lint.mjs runs them in a child process.
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
      const lint = await promisify(execFile)(process.execPath, [resolve(__dirname, '../../../tools/openapi-lint.mjs'), join(dir, 'openapi.json')]).catch((err: { stdout: string }) => err);
      const result = JSON.parse(lint.stdout) as { redocly: Array<{ severity: string; ruleId: string; message: string; pointer: string }>; swaggerParser: string };
      expect(result.redocly.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.pointer}`)).toEqual([]);
      expect(result.swaggerParser).toBe('valid');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists every route the server serves, and serves every operation it lists', () => {
    // Outside the contract: liveness and readiness, the Swagger UI and its assets, the document itself, the agents' text guide.
    const META = [/^\/healthz$/, /^\/dashboard(\/.*)?$/, /^\/readyz$/, /^\/docs(\/.*|-json|-yaml)?$/, /^\/openapi\.json$/, /^\/llms\.txt$/];
    const served = servedRoutes(server.app.getHttpAdapter().getInstance())
      .filter((r) => r.method !== 'HEAD' && !META.some((m) => m.test(r.url)))
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`);
    const documented = operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect([...new Set(served)].sort()).toEqual([...documented].sort());
  });

  it('states the price of every paid operation in x-payment-info, with a 402 carrying the Payment challenge', () => {
    const paid = operations().filter(({ op }) => op['x-payment-info'] !== undefined);
    expect(paid.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort()).toEqual(PAID_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of PAID_ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      // USDC has 6 decimals: the price in base units is the price in micro-USD.
      expect(op['x-payment-info']).toMatchObject({ intent: 'charge', method: 'evm', amount: String(PRICE_LIST_MICRO_USD[route.operation]) });
      expect(op.responses['402'].headers).toHaveProperty('WWW-Authenticate');
      expect(op.security).toContainEqual({ Payment: [] });
    }
  });

  it('documents 429 with RateLimit, RateLimit-Policy and Retry-After on rate-limited operations', () => {
    const recall = doc.paths['/api/v1/records/{recordId}/recall'].post;
    expect(Object.keys(recall.responses['429'].headers as object)).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy', 'Retry-After']));
    expect(Object.keys(recall.responses['200'].headers as object)).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
    expect(doc.paths['/api/v1/billing/prices'].get.responses).not.toHaveProperty('429');
    expect(doc.paths['/api/v1/agents'].post.responses).toHaveProperty('429');
  });

  it('declares the four credentials, the agent key as an opaque Bearer key (not a JWT), each on the operations that take it', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, { scheme: string; bearerFormat?: string }> }).securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['Bearer', 'Passkey', 'Payment', 'Signature']);
    expect(schemes.Bearer.scheme).toBe('bearer');
    expect(schemes.Bearer.bearerFormat).toMatch(/amk_live_/);
    expect(JSON.stringify(doc)).not.toMatch(/JWT/i);
    expect(doc.paths['/api/v1/records/{recordId}/raw'].post.security).toEqual([{ Signature: [] }]);
    expect(doc.paths['/api/v1/humans/me'].get.security).toEqual([{ Passkey: [] }]);
    expect(doc.paths['/api/v1/agents'].post.security).toEqual([]);
    expect(doc.paths['/api/v1/records/{recordId}/recall'].post.security).toEqual([{ Bearer: [] }, { Signature: [] }, { Payment: [] }, { Passkey: [] }]);
    expect(doc.paths['/api/v1/records/{recordId}/remember'].post.security).not.toContainEqual({ Passkey: [] });
  });

  it('gives every operation its success envelope with the shared answer schema and the failure envelope with its code', () => {
    const recall = doc.paths['/api/v1/records/{recordId}/recall'].post;
    const ok = (recall.responses['200'].content as any)['application/json'].schema;
    expect(ok.properties.success).toEqual({ type: 'boolean', const: true });
    expect(ok.properties.data).toEqual({ $ref: '#/components/schemas/RecallResponse' });
    expect(Object.keys(recall.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '429', '500']);
    const unauthorized = (recall.responses['401'].content as any)['application/json'].schema.$ref.split('/').pop();
    expect((doc.components as any).schemas[unauthorized].properties.error.properties.code).toEqual({ type: 'string', const: 'UNAUTHORIZED' });
    for (const { op } of operations()) expect(Object.keys(op.responses).filter((s) => s.startsWith('2'))).toHaveLength(1);
    // Limits reach the request: recall's query is 1-1000 characters.
    const body = (doc.components as any).schemas.RecallBody;
    expect(body.properties.query).toMatchObject({ minLength: 1, maxLength: 1000 });
  });
});
