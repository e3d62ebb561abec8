/**
 * The security suite (docs/authentication.md), input validation: path traversal and control characters,
 * sizes and counts at the documented limits, and hostile bodies (oversized, malformed, wrong content
 * types, unknown fields, wrong types), each refused with the right code, with the stores exactly as
 * before after each group (security/world.ts).
 */
import { expectAllRefused, type HostileRequest, N404, type Refusal, signatureHeader, tryHostile, V400 } from './security/hostile';
import { server, api, walletL, victim, attacker, local, owner, outsider, bearer, passkey, useSecurityWorld } from './security/world';

useSecurityWorld('security suite: input');

// --- input validation ---

const TRAVERSAL_AND_CONTROL = [
  '../x', 'a/../../etc/passwd', '..', './a', 'a/./b', '/etc/passwd', 'a//b', 'a/', '', 'a\\b', '..\\..\\windows',
  'a\u0000b', 'a\u0007b', 'a\u001bb', 'a\nb', 'a\rb', 'a\tb', 'a\u007fb', 'a\u0085b', 'x'.repeat(257),
];

describe('path traversal and control characters in every path field', () => {
  it('answers VALIDATION_ERROR for memory, file and raw paths in bodies and query strings', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const l = `/api/v1/records/${local.recordId}`;
    const q = (p: string) => encodeURIComponent(p);
    const k = bearer(victim.agentKey);
    const cases = TRAVERSAL_AND_CONTROL.flatMap((p) => [
      () => tryHostile(api, 'paths', `remember path ${JSON.stringify(p)}`, { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', path: p } }, V400),
      () => tryHostile(api, 'paths', `forget body path ${JSON.stringify(p)}`, { method: 'DELETE', path: `${v}/remember`, headers: k, body: { path: p } }, V400),
      () => tryHostile(api, 'paths', `forget query path ${JSON.stringify(p)}`, { method: 'DELETE', path: `${v}/remember?path=${q(p)}`, headers: k }, V400),
      () => tryHostile(api, 'paths', `read query path ${JSON.stringify(p)}`, { method: 'GET', path: `${v}/read?path=${q(p)}`, headers: k }, V400),
      () => tryHostile(api, 'paths', `write path ${JSON.stringify(p)}`, { method: 'POST', path: `${v}/write`, headers: k, body: { path: p, content: 'x' } }, V400),
      async () => {
        const body = JSON.stringify({ path: p, content: 'AAAA' });
        const headers = { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'POST', path: `${l}/raw`, body }) };
        return tryHostile(api, 'paths', `raw put path ${JSON.stringify(p)}`, { method: 'POST', path: `${l}/raw`, headers, rawBody: body, contentType: 'application/json' }, V400);
      },
      async () => {
        const path = `${l}/raw?path=${q(p)}`;
        return tryHostile(api, 'paths', `raw get query path ${JSON.stringify(p)}`, { method: 'GET', path, headers: { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'GET', path }) } }, V400);
      },
    ]);
    // encoded traversal in the query string, and a forget id that is not an id
    cases.push(
      () => tryHostile(api, 'paths', 'read %2e%2e%2f', { method: 'GET', path: `${v}/read?path=%2e%2e%2fetc%2fpasswd`, headers: k }, V400),
      () => tryHostile(api, 'paths', 'read %00', { method: 'GET', path: `${v}/read?path=f.txt%00.md`, headers: k }, V400),
      () => tryHostile(api, 'paths', 'forget id traversal', { method: 'DELETE', path: `${v}/remember`, headers: k, body: { id: '../mem_x' } }, V400),
      () => tryHostile(api, 'paths', 'forget id with control character', { method: 'DELETE', path: `${v}/remember?id=mem_a%07b`, headers: k }, V400),
    );
    await expectAllRefused(cases);
  });

  it('answers VALIDATION_ERROR for NUL and control characters in stored text (names, tags, categories, idempotency keys, memory content)', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const k = bearer(victim.agentKey);
    const c = (label: string, request: HostileRequest) => () => tryHostile(api, 'control characters in text', label, request, V400);
    await expectAllRefused(
      ['\u0000', '\u0007', '\n', '\u001b', '\u007f', '\u0085'].flatMap((ch) => {
        const x = JSON.stringify(ch);
        return [
          c(`agent name with ${x}`, { method: 'POST', path: '/api/v1/agents', body: { name: `a${ch}b` } }),
          c(`agent tag with ${x}`, { method: 'POST', path: '/api/v1/agents', body: { name: 'a', tags: [`t${ch}`] } }),
          c(`agent category with ${x}`, { method: 'POST', path: '/api/v1/agents', body: { name: 'a', category: `c${ch}` } }),
          c(`record name with ${x}`, { method: 'POST', path: '/api/v1/records', headers: k, body: { name: `a${ch}b` } }),
          c(`record rename with ${x}`, { method: 'PATCH', path: v, headers: k, body: { name: `a${ch}b` } }),
          c(`record tag with ${x}`, { method: 'PATCH', path: v, headers: k, body: { tags: [`t${ch}`] } }),
          c(`record category with ${x}`, { method: 'PATCH', path: v, headers: k, body: { category: `c${ch}` } }),
          c(`remember idempotency key with ${x}`, { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', idempotency_key: `k${ch}` } }),
          c(`write idempotency key with ${x}`, { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'f.txt', content: 'x', idempotency_key: `k${ch}` } }),
          c(`human name with ${x}`, { method: 'POST', path: '/api/v1/auth/passkey/register/options', body: { name: `h${ch}` } }),
        ];
      }).concat([c('memory content with NUL', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'hello\u0000world' } })]),
    );
  });

  it('answers NOT_FOUND for traversal and control characters in record, key and agent ids of the URL', async () => {
    const k = bearer(victim.agentKey);
    const ids = ['..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'rec_abc%00', 'rec_a%07b', `${victim.recordId}%2F..%2F${attacker.recordId}`, `rec_${'a'.repeat(90)}`, 'rec_%E2%80%AE', '%20'];
    await expectAllRefused([
      ...ids.flatMap((id) => [
        () => tryHostile(api, 'ids in the URL', `context of record ${id}`, { method: 'GET', path: `/api/v1/records/${id}/context`, headers: k }, N404),
        () => tryHostile(api, 'ids in the URL', `update record ${id}`, { method: 'PATCH', path: `/api/v1/records/${id}`, headers: k, body: { name: 'x' } }, N404),
        () => tryHostile(api, 'ids in the URL', `revoke key ${id}`, { method: 'POST', path: `/api/v1/agents/keys/${id.replace('rec_', 'key_')}/revoke`, headers: k }, N404),
        () => tryHostile(api, 'ids in the URL', `claimed agent ${id}`, { method: 'GET', path: `/api/v1/humans/me/agents/${id.replace('rec_', 'agt_')}/keys`, headers: passkey(owner.token) }, N404),
      ]),
    ]);
  });
});

describe('sizes and counts at the documented limits', () => {
  it('refuses one byte or one item more than each limit', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const k = bearer(victim.agentKey);
    const KB50 = 50 * 1024;
    const MB = 1024 * 1024;
    const l = `/api/v1/records/${local.recordId}`;
    const rawTooBig = JSON.stringify({ path: 'big.bin', content: Buffer.alloc(MB + 1).toString('base64') });
    const c = (label: string, request: HostileRequest) => () => tryHostile(api, 'sizes and counts', label, request, V400);
    await expectAllRefused([
      c('memory content 50 KB + 1 byte', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x'.repeat(KB50 + 1) } }),
      c('memory content 50 KB + 1 byte of 2-byte characters', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'é'.repeat(KB50 / 2) + 'x' } }),
      c('empty memory content', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: '' } }),
      c('file content 1 MB + 1 byte', { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'big', content: 'x'.repeat(MB + 1) } }),
      c('file content 1 MB + 1 byte of 3-byte characters', { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'big', content: '€'.repeat(MB / 3 + 1) } }),
      async () => c('raw blob 1 MB + 1 byte', { method: 'POST', path: `${l}/raw`, headers: { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'POST', path: `${l}/raw`, body: rawTooBig }) }, rawBody: rawTooBig, contentType: 'application/json' })(),
      c('recall query of 1,001 characters', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: 'q'.repeat(1001) } }),
      c('empty recall query', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: '' } }),
      c('recall limit 51', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: 'x', limit: 51 } }),
      c('recall limit 0', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: 'x', limit: 0 } }),
      c('11 tags on create record', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }),
      c('11 tags on update record', { method: 'PATCH', path: v, headers: k, body: { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }),
      c('11 tags on create agent', { method: 'POST', path: '/api/v1/agents', body: { name: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }),
      c('a tag of 65 characters', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'x', tags: ['t'.repeat(65)] } }),
      c('record name of 129 characters', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'n'.repeat(129) } }),
      c('empty record name', { method: 'PATCH', path: v, headers: k, body: { name: '' } }),
      c('agent name of 129 characters', { method: 'POST', path: '/api/v1/agents', body: { name: 'n'.repeat(129) } }),
      c('category of 33 characters', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'x', category: 'c'.repeat(33) } }),
      c('memory path of 257 characters', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', path: 'p'.repeat(257) } }),
      c('file path of 257 characters', { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'p'.repeat(257), content: 'x' } }),
      c('idempotency key of 256 characters', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', idempotency_key: 'k'.repeat(256) } }),
      c('context ?limit=201', { method: 'GET', path: `${v}/context?limit=201`, headers: k }),
      c('list records ?limit=101', { method: 'GET', path: '/api/v1/records?limit=101', headers: k }),
      c('rotation grace of 7 days + 1 s', { method: 'POST', path: '/api/v1/agents/keys/rotate', headers: k, body: { graceSeconds: 604_801 } }),
      c('claim key of 513 characters', { method: 'POST', path: '/api/v1/humans/me/agents', headers: passkey(outsider.token), body: { agentKey: 'a'.repeat(513) } }),
      c('human name of 65 characters', { method: 'POST', path: '/api/v1/auth/passkey/register/options', body: { name: 'n'.repeat(65) } }),
    ]);
  });
});

// --- the body itself ---

interface BodyRoute {
  name: string;
  method: string;
  path: () => string;
  headers: () => Promise<Record<string, string>> | Record<string, string>;
  valid: Record<string, unknown>;
  /** Fields with a value of the wrong type each. */
  wrongTypes: Array<Record<string, unknown>>;
  /** Whether the signature must cover the (hostile) body. */
  signed?: boolean;
}

const BODY_ROUTES = (): BodyRoute[] => {
  const v = `/api/v1/records/${victim.recordId}`;
  const k = () => bearer(victim.agentKey);
  return [
    { name: 'create agent', method: 'POST', path: () => '/api/v1/agents', headers: () => ({}), valid: { name: 'x' }, wrongTypes: [{ name: 1 }, { name: 'x', mode: 2 }, { name: 'x', tags: [3] }, { name: 'x', tags: 'a' }, { name: 'x', category: 4 }, { name: 'x', walletAddress: 5 }, { name: 'x', environment: 6 }, { name: ['x'] }, { name: 'x', walletAddress: walletL.address, walletProof: 7 }, { name: 'x', walletAddress: walletL.address, walletProof: { message: 8, signature: `0x${'a'.repeat(130)}` } }] },
    { name: 'wallet challenge', method: 'POST', path: () => '/api/v1/agents/wallet-challenge', headers: () => ({}), valid: { walletAddress: walletL.address }, wrongTypes: [{ walletAddress: 1 }, { walletAddress: [walletL.address] }, { walletAddress: null }] },
    { name: 'create record', method: 'POST', path: () => '/api/v1/records', headers: k, valid: { name: 'x' }, wrongTypes: [{ name: 42 }, { name: 'x', tags: [1] }, { name: 'x', category: 7 }, { name: 'x', parentRecordId: 5 }, { name: null }, { name: { $gt: '' } }] },
    { name: 'update record', method: 'PATCH', path: () => v, headers: k, valid: { name: 'x' }, wrongTypes: [{ name: 1 }, { tags: [2] }, { parentRecordId: 3 }, { category: false }] },
    { name: 'recall', method: 'POST', path: () => `${v}/recall`, headers: k, valid: { query: 'x' }, wrongTypes: [{ query: 1 }, { query: 'x', limit: '5' }, { query: 'x', limit: 1.5 }, { query: 'x', types: 'fact' }, { query: 'x', types: [1] }, { query: ['x'] }] },
    { name: 'remember', method: 'POST', path: () => `${v}/remember`, headers: k, valid: { content: 'x' }, wrongTypes: [{ content: 12 }, { content: 'x', type: 3 }, { content: 'x', path: 4 }, { content: 'x', idempotency_key: 5 }, { content: ['x'] }, { content: { toString: 'x' } }] },
    { name: 'forget (body)', method: 'DELETE', path: () => `${v}/remember`, headers: k, valid: { path: 'plan' }, wrongTypes: [{ path: 1 }, { id: 2 }, { path: ['plan'] }] },
    { name: 'write file', method: 'POST', path: () => `${v}/write`, headers: k, valid: { path: 'f.txt', content: 'x' }, wrongTypes: [{ path: 1, content: 'x' }, { path: 'f.txt', content: 2 }, { path: 'f.txt', content: 'x', idempotency_key: 3 }, { path: 'f.txt', content: null }] },
    { name: 'rotate key', method: 'POST', path: () => '/api/v1/agents/keys/rotate', headers: k, valid: {}, wrongTypes: [{ graceSeconds: '60' }, { graceSeconds: 1.5 }, { graceSeconds: null }] },
    { name: 'claim', method: 'POST', path: () => '/api/v1/humans/me/agents', headers: () => passkey(outsider.token), valid: { agentKey: victim.agentKey }, wrongTypes: [{ agentKey: 123 }, { agentKey: [victim.agentKey] }] },
    { name: 'register options', method: 'POST', path: () => '/api/v1/auth/passkey/register/options', headers: () => ({}), valid: { name: 'x' }, wrongTypes: [{ name: 1 }] },
    { name: 'login verify', method: 'POST', path: () => '/api/v1/auth/passkey/login/verify', headers: () => ({}), valid: { response: { id: 'AA', rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'AA' } } }, wrongTypes: [{ response: 'x' }, { response: { id: 1, rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'AA' } } }] },
    { name: 'raw put', method: 'POST', path: () => `/api/v1/records/${local.recordId}/raw`, headers: () => ({}), valid: { path: 'b.bin', content: 'AAAA' }, wrongTypes: [{ path: 1, content: 'AAAA' }, { path: 'b.bin', content: 2 }, { path: 'b.bin', content: 'AAAA', contentType: 3 }, { path: 'b.bin', content: 'not base64!' }], signed: true },
  ];
};

/** Sends a raw body to a body route (signing it for the raw route). */
async function rawCase(group: string, r: BodyRoute, label: string, rawBody: string | Buffer, contentType: string | undefined, expected: Refusal) {
  let headers = await r.headers();
  if (r.signed) headers = { authorization: await signatureHeader(walletL, server.signatureRealm, { method: r.method, path: r.path(), body: rawBody.toString() }) };
  return tryHostile(api, group, `${r.name}: ${label}`, { method: r.method, path: r.path(), headers, rawBody, contentType }, expected);
}

describe('bodies: oversized, malformed JSON, wrong content types, unknown fields, wrong types', () => {
  it('refuses bodies over each route’s cap before parsing them', async () => {
    const caps: Record<string, number> = { remember: 380 * 1024, 'write file': 6.2 * 1024 * 1024, 'raw put': 1.5 * 1024 * 1024 };
    await expectAllRefused(
      BODY_ROUTES().map((r) => () => rawCase('oversized bodies', r, 'over the body cap', JSON.stringify({ ...r.valid, pad: 'x'.repeat(caps[r.name] ?? 70 * 1024) }), 'application/json', V400)),
    );
  });

  it('refuses malformed JSON and JSON that is not an object', async () => {
    const bad = ['{"name": ', "{'name':'x'}", '{"name":"x"}x', '{"name":"x",}', 'nul', '{', '[1,2]', '"text"', '42', 'null', 'true', '['.repeat(5000) + ']'.repeat(5000), '{"a":'.repeat(2000) + '1' + '}'.repeat(2000)];
    await expectAllRefused(BODY_ROUTES().flatMap((r) => bad.map((b) => () => rawCase('malformed JSON', r, JSON.stringify(b.slice(0, 20)), b, 'application/json', V400))));
  });

  it('refuses a body of another content type', async () => {
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/octet-stream', 'application/jsonx', 'text/json'];
    const form = (valid: Record<string, unknown>) => new URLSearchParams(Object.entries(valid).filter(([, v]) => typeof v === 'string') as Array<[string, string]>).toString();
    await expectAllRefused(
      BODY_ROUTES().flatMap((r) => [
        ...types.map((t) => () => rawCase('wrong content type', r, t, JSON.stringify(r.valid), t, V400)),
        // what an HTML form on any site could post without a CORS preflight
        ...(form(r.valid) ? [() => rawCase('wrong content type', r, 'a form-encoded body', form(r.valid), 'application/x-www-form-urlencoded', V400)] : []),
        () => rawCase('wrong content type', r, 'a JSON body without Content-Type', Buffer.from(JSON.stringify(r.valid)), undefined, V400),
      ]),
    );
  });

  it('refuses unknown fields, prototype pollution and numbers (or other types) where strings belong', async () => {
    await expectAllRefused(
      BODY_ROUTES().flatMap((r) => [
        () => rawCase('unknown fields', r, 'an unknown field', JSON.stringify({ ...r.valid, admin: true }), 'application/json', V400),
        () => rawCase('unknown fields', r, '__proto__', `{"__proto__":{"admin":true},${JSON.stringify(r.valid).slice(1)}`.replace(',}', '}'), 'application/json', V400),
        () => rawCase('unknown fields', r, 'constructor.prototype', `{"constructor":{"prototype":{"admin":true}}${JSON.stringify(r.valid) === '{}' ? '' : ','}${JSON.stringify(r.valid).slice(1)}`, 'application/json', V400),
        ...r.wrongTypes.map((w) => () => rawCase('wrong types', r, JSON.stringify(w).slice(0, 60), JSON.stringify(w), 'application/json', V400)),
      ]),
    );
  });

  it('refuses unknown, repeated and non-numeric query parameters', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const k = bearer(victim.agentKey);
    const me = `/api/v1/humans/me/agents/${victim.agentId}`;
    const c = (label: string, path: string, headers: Record<string, string> = k, method = 'GET') => () => tryHostile(api, 'query strings', label, { method, path, headers }, V400);
    await expectAllRefused([
      c('list records ?extra', '/api/v1/records?extra=1'),
      c('list records ?limit=abc', '/api/v1/records?limit=abc'),
      c('list records ?limit=1.5', '/api/v1/records?limit=1.5'),
      c('list records ?offset=-1', '/api/v1/records?offset=-1'),
      c('list records ?limit=1e3', '/api/v1/records?limit=1e3'),
      c('context ?extra', `${v}/context?extra=1`),
      c('context ?limit=0x10', `${v}/context?limit=0x10`),
      c('read ?path twice', `${v}/read?path=f.txt&path=g.txt`),
      c('read ?extra', `${v}/read?path=f.txt&extra=1`),
      c('read without path', `${v}/read`),
      c('forget ?path and ?id', `${v}/remember?path=plan&id=mem_x`, k, 'DELETE'),
      c('forget ?extra', `${v}/remember?path=plan&extra=1`, k, 'DELETE'),
      c('delete record ?cascade=yes', `${v}?cascade=yes`, k, 'DELETE'),
      c('human: agent records ?extra', `${me}/records?extra=1`, passkey(owner.token)),
      c('human: agent usage ?limit=0', `${me}/usage?limit=0`, passkey(owner.token)),
      c('human: agent usage ?operation=steal', `${me}/usage?operation=steal`, passkey(owner.token)),
    ]);
  });
});
