import {
  formatUsd,
  LIMITS,
  ListFilesQuerySchema,
  ListFilesResponseSchema,
  ListMemoriesQuerySchema,
  ListMemoriesResponseSchema,
  PAID_ROUTES,
  PRICE_LIST_MICRO_USD,
  PricesResponseSchema,
  RATE_LIMITS,
  RememberBodySchema,
  RememberResponseSchema,
} from '@agent-memory/shared';
import type { RouteEntry } from '../openapi/route-table';
import { llmsTxt } from './llms-txt';

const route = (method: string, path: string, tag: string, rest: Partial<RouteEntry>): RouteEntry => ({ method, path, tag, handlerName: `${tag}.${method}`, status: 200, ...rest });
/** A route table as routeTable() reads it: the record listings, a paid write, and a route outside the main tags. */
const routes: RouteEntry[] = [
  route('get', '/api/v1/billing/prices', 'billing', { kind: { kind: 'public', options: {} }, returns: { schema: PricesResponseSchema, summary: 'The price list' } }),
  route('get', '/api/v1/records/{recordId}/files', 'files', {
    kind: { kind: 'record', options: { recordLimit: 'query', passkey: true } },
    returns: { schema: ListFilesResponseSchema, summary: 'List the files of a record' },
    query: ListFilesQuerySchema,
  }),
  route('get', '/api/v1/records/{recordId}/memories', 'memories', {
    kind: { kind: 'record', options: { price: 'list_memories', recordLimit: 'query', passkey: true } },
    returns: { schema: ListMemoriesResponseSchema, summary: 'List the memories of a record' },
    query: ListMemoriesQuerySchema,
  }),
  route('post', '/api/v1/records/{recordId}/remember', 'memories', {
    kind: { kind: 'record', options: { price: 'remember', recordLimit: 'write' } },
    returns: { schema: RememberResponseSchema, summary: 'Remember: store a memory' },
    body: { schema: RememberBodySchema, required: true },
  }),
];
const facts = { billingMode: 'enforce' as const, anonymousPerMinute: 42, payment: { realm: 'memory.example.com', chainId: 8453, currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }, routes };

describe('llmsTxt (the /llms.txt guide)', () => {
  const text = llmsTxt(facts);

  it('follows the llms.txt shape: a title, a summary quote, sections, links to the contract', () => {
    const lines = text.split('\n');
    expect(lines[0]).toBe('# agent-memory');
    expect(lines[2]).toMatch(/^> Long-term memory for AI agents/);
    expect(lines.filter((l) => l.startsWith('## '))).toEqual([
      '## Create an agent',
      '## Authentication (one `Authorization` header)',
      '## Main calls (records, memories, files)',
      '## Prices and payment',
      '## Limits',
      '## More',
    ]);
    expect(text).toContain('[OpenAPI 3.1 document](/openapi.json)');
    expect(text).toContain('[API reference](/docs)');
  });

  it('says how to create an agent and that the key and the wallet private key are shown once', () => {
    expect(text).toContain('`POST /api/v1/agents`');
    expect(text).toMatch(/`agentKey` and `walletPrivateKey` are shown once/);
    for (const scheme of ['Bearer <agent key>', 'Signature <timestamp>:<walletAddress>:<signature>', 'Passkey <session credential>', 'Payment <credential>']) expect(text).toContain(scheme);
  });

  it('lists the main calls from the route table: records, memories, files in that order, with their fields, summary and price; other tags left out', () => {
    const price = (op: keyof typeof PRICE_LIST_MICRO_USD) => formatUsd(PRICE_LIST_MICRO_USD[op]);
    expect(text.split('\n').filter((l) => l.startsWith('- `') && l.includes('/api/v1/'))).toEqual([
      `- \`GET /api/v1/records/{recordId}/memories\` query {limit?, cursor?, type?}: List the memories of a record (${price('list_memories')} USD per page).`,
      `- \`POST /api/v1/records/{recordId}/remember\` body {content, type?, path?, idempotency_key?}: Remember: store a memory (${price('remember')} USD per write).`,
      '- `GET /api/v1/records/{recordId}/files` query {limit?, cursor?, prefix?}: List the files of a record (free).',
    ]);
  });

  it('states every paid route with its price and unit from the shared price list, and the deployment payment facts', () => {
    for (const r of PAID_ROUTES) expect(text).toContain(`- ${r.operation}: \`${r.method} ${r.path}\`, ${formatUsd(PRICE_LIST_MICRO_USD[r.operation])} USD per ${r.unit}`);
    expect(text).toContain('Billing mode of this server: `enforce`');
    expect(text).toContain('realm `memory.example.com`, chain 8453, token 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    expect(llmsTxt({ ...facts, billingMode: 'ledger' })).toContain('Billing mode of this server: `ledger` (calls run without payment');
  });

  it('states the sizes and rate limits of docs/api.md from the shared limits', () => {
    expect(text).toContain(`Recall query ${LIMITS.recallQuery.min}-${LIMITS.recallQuery.max} characters, limit ${LIMITS.recallLimit.min}-${LIMITS.recallLimit.max} (default ${LIMITS.recallLimit.default})`);
    expect(text).toContain('Memory content 1 byte to 50 KB; file content up to 1 MB; paths up to 256 characters.');
    expect(text).toContain(`${RATE_LIMITS.agentPerMinute} requests per agent, ${RATE_LIMITS.recordWritesPerMinute} writes and ${RATE_LIMITS.recordQueriesPerMinute} queries per record, 42 calls without an agent`);
  });
});
