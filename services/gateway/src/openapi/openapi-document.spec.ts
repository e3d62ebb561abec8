import { RecallBodySchema, RecallResponseSchema, RecordSchema } from '@agent-memory/shared';
import { type DeploymentLimits, openApiDocumentOf, type PaymentDiscovery } from './openapi-document';
import type { RouteEntry } from './route-table';

const DEPLOYMENT: DeploymentLimits = { anonymousPerMinute: 100 };
const USDC: PaymentDiscovery = { method: 'evm', intent: 'charge', currency: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 };
const recall: RouteEntry = {
  method: 'post',
  path: '/api/v1/records/{recordId}/recall',
  handlerName: 'MemoryController.recall',
  tag: 'memories',
  status: 200,
  kind: { kind: 'record', options: { price: 'recall', recordLimit: 'query', passkey: true } },
  returns: { schema: RecallResponseSchema, summary: 'Recall' },
  body: { schema: RecallBodySchema, required: true },
};
const records: RouteEntry = {
  method: 'get',
  path: '/api/v1/records/{recordId}',
  handlerName: 'RecordsController.get',
  tag: 'records',
  status: 200,
  kind: { kind: 'record', options: {} },
  returns: { schema: RecordSchema, summary: 'Get a record' },
};

describe('openApiDocumentOf', () => {
  it('refuses an API route without @Returns or without a route kind, naming it; ignores routes outside /api/v1', () => {
    expect(() => openApiDocumentOf([{ ...records, returns: undefined }], USDC, DEPLOYMENT)).toThrow('RecordsController.get (GET /api/v1/records/{recordId}) has no @Returns');
    expect(() => openApiDocumentOf([{ ...records, kind: undefined }], USDC, DEPLOYMENT)).toThrow('has no route kind');
    expect(() => openApiDocumentOf([{ ...records, path: '/api/v1/things/{thingId}' }], USDC, DEPLOYMENT)).toThrow('no schema for the path parameter "thingId"');
    expect(openApiDocumentOf([{ ...records, path: '/llms.txt', returns: undefined, kind: undefined }], USDC, DEPLOYMENT).paths).toEqual({});
  });

  it('states the price in the payment token base units: 0.05 USD is "50000" in USDC (6 decimals), 5e16 with 18 decimals', () => {
    const usdc = openApiDocumentOf([recall], USDC, DEPLOYMENT).paths['/api/v1/records/{recordId}/recall'].post;
    expect(usdc['x-payment-info']).toEqual({ intent: 'charge', method: 'evm', amount: '50000', currency: USDC.currency, description: 'recall: 0.05 USD per query' });
    const eighteen = openApiDocumentOf([recall], { ...USDC, decimals: 18 }, DEPLOYMENT).paths['/api/v1/records/{recordId}/recall'].post;
    expect((eighteen['x-payment-info'] as { amount: string }).amount).toBe('50000000000000000');
    expect(openApiDocumentOf([records], USDC, DEPLOYMENT).paths['/api/v1/records/{recordId}'].get).not.toHaveProperty('x-payment-info');
  });

  it('derives errors, headers and security from the route kind', () => {
    const free = openApiDocumentOf([records], USDC, DEPLOYMENT).paths['/api/v1/records/{recordId}'].get;
    expect(Object.keys(free.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500']);
    expect(free.security).toEqual([{ Bearer: [] }, { Signature: [] }]);
    const paid = openApiDocumentOf([recall], USDC, DEPLOYMENT).paths['/api/v1/records/{recordId}/recall'].post;
    expect(paid.responses['402'].headers).toHaveProperty('WWW-Authenticate');
    expect(paid.responses['429'].headers).toEqual(expect.objectContaining({ RateLimit: expect.anything(), 'RateLimit-Policy': expect.anything(), 'Retry-After': expect.anything() }));
    expect(paid.description).toContain('60 queries/min per record');
    const prices = openApiDocumentOf([{ ...records, path: '/api/v1/billing/prices', kind: { kind: 'public', options: {} } }], USDC, DEPLOYMENT).paths['/api/v1/billing/prices'].get;
    expect([prices.security, Object.keys(prices.responses).sort()]).toEqual([[], ['200', '400', '500']]);
  });

  it("states the deployment's limit of calls without an agent, not a fixed figure", () => {
    const createAgent: RouteEntry = { ...records, method: 'post', path: '/api/v1/agents', handlerName: 'AgentsController.create', kind: { kind: 'public', options: { limit: 'client' } } };
    const description = openApiDocumentOf([createAgent], USDC, { anonymousPerMinute: 7 }).paths['/api/v1/agents'].post.description;
    expect(description).toContain('Rate limits: 7 requests/min per client address.');
    expect(description).not.toContain('100');
  });

  it('names shared schemas as components and keeps a second form apart when input and output differ (RecallBody: limit has a default)', () => {
    const doc = openApiDocumentOf([{ ...recall, returns: { schema: RecallBodySchema, summary: 'echo' } }, records], USDC, DEPLOYMENT);
    const schemas = (doc.components as { schemas: Record<string, unknown> }).schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['RecallBody', 'RecallBodyInput', 'Record', 'FailureUnauthorized']));
  });
});
