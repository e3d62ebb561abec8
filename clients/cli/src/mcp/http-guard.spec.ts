import { bearerKey, checkHostAndOrigin, isLoopback, LOOPBACK_HOSTNAMES } from './http-guard';

const loopback = [...LOOPBACK_HOSTNAMES];

describe('checkHostAndOrigin (DNS rebinding)', () => {
  it('accepts the loopback names on any port, and a browser page served from them', () => {
    expect(checkHostAndOrigin({ host: '127.0.0.1:3333' }, loopback)).toBeUndefined();
    expect(checkHostAndOrigin({ host: 'localhost' }, loopback)).toBeUndefined();
    expect(checkHostAndOrigin({ host: '[::1]:80' }, loopback)).toBeUndefined();
    expect(checkHostAndOrigin({ host: 'localhost:3333', origin: 'http://localhost:5173' }, loopback)).toBeUndefined();
  });

  it('refuses a rebound name, a missing Host and a foreign Origin', () => {
    expect(checkHostAndOrigin({ host: 'attacker.example:3333' }, loopback)).toEqual({ status: 403, message: 'Invalid Host: attacker.example' });
    expect(checkHostAndOrigin({}, loopback)).toEqual({ status: 403, message: 'Missing or invalid Host header' });
    expect(checkHostAndOrigin({ host: 'localhost', origin: 'https://attacker.example' }, loopback)).toEqual({ status: 403, message: 'Invalid Origin: https://attacker.example' });
    expect(checkHostAndOrigin({ host: 'localhost', origin: 'null' }, loopback)?.status).toBe(403);
  });

  it('accepts listed origins; without a host list any Host passes but an unlisted Origin does not', () => {
    expect(checkHostAndOrigin({ host: 'localhost', origin: 'https://app.example' }, loopback, ['https://app.example'])).toBeUndefined();
    expect(checkHostAndOrigin({ host: 'memory.internal:3333' }, undefined)).toBeUndefined();
    expect(checkHostAndOrigin({ host: 'memory.internal', origin: 'https://memory.internal' }, undefined)?.status).toBe(403);
  });
});

describe('bearerKey', () => {
  const key = `amk_test_${'a1B2c3'.repeat(7)}x`;
  it('reads the agent key of Authorization: Bearer, else refuses with 401', () => {
    expect(bearerKey({ authorization: `Bearer ${key}` })).toEqual({ key });
    expect(bearerKey({ authorization: `bearer  ${key} ` })).toEqual({ key });
    expect(bearerKey({ authorization: `Bearer ${key.replace('amk_test_', 'amk_live_')}` })).toEqual({ key: key.replace('amk_test_', 'amk_live_') });
    expect(bearerKey({ authorization: `Bearer ${key.replace('amk_', 'acme_')}` })).toMatchObject({ key: expect.any(String) });
    for (const authorization of [undefined, '', 'Bearer', 'Bearer a b', 'Basic dXNlcjpwYXNz', 'Payment abc']) {
      expect(bearerKey({ authorization })).toMatchObject({ status: 401 });
    }
  });

  it('refuses with 401 what is not of the agent key shape, before any body is read', () => {
    for (const notAKey of ['amk_test_abc', `amk_prod_${key.slice(9)}`, `${key}a`, `amk_test_${'-'.repeat(43)}`, 'x'.repeat(10_000), `amk_session_${key.slice(9)}`]) {
      expect(bearerKey({ authorization: `Bearer ${notAKey}` })).toMatchObject({ status: 401, message: expect.stringContaining('no agent key') });
    }
  });
});

it('isLoopback', () => {
  expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].every(isLoopback)).toBe(true);
  expect(['0.0.0.0', '::', '192.168.1.2', 'example.com'].some(isLoopback)).toBe(false);
});
