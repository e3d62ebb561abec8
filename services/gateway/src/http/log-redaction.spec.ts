import { Writable } from 'node:stream';
import pino from 'pino';
import { LOG_REDACT_PATHS } from './log-redaction';

/** What pino writes for `obj` with the gateway's redaction. */
function logLine(obj: Record<string, unknown>): string {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  pino({ redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } }, sink).info(obj, 'request');
  return out;
}

describe('log redaction (docs/authentication.md, "Secrets in logs")', () => {
  it('never writes credentials of any of the four schemes, cookies, keys, tokens, private keys or WebAuthn credentials', () => {
    const secrets = {
      bearer: 'Bearer amk_live_SECRETKEYSECRETKEYSECRETKEYSECRETKEYSECRE',
      cookie: 'session=SECRETCOOKIE',
      agentKey: 'amk_live_SECRETAGENTKEY',
      token: 'amk_session_SECRETSESSION',
      walletPrivateKey: '0xSECRETPRIVATEKEY1',
      privateKey: '0xSECRETPRIVATEKEY2',
      credential: 'SECRETCREDENTIAL',
      response: 'SECRETWEBAUTHN',
      signature: '0xSECRETSIGNATURE',
    };
    const line = logLine({
      req: { method: 'POST', url: '/api/v1/agents', headers: { authorization: secrets.bearer, cookie: secrets.cookie, 'x-request-id': 'r-1' } },
      res: { statusCode: 201, headers: { 'set-cookie': secrets.cookie } },
      agentKey: secrets.agentKey,
      data: { agentKey: secrets.agentKey, walletPrivateKey: secrets.walletPrivateKey, session: { token: secrets.token } },
      body: { response: secrets.response, credential: secrets.credential, signature: secrets.signature },
      privateKey: secrets.privateKey,
    });
    for (const secret of Object.values(secrets)) expect(line).not.toContain(secret.replace(/^Bearer /, '').slice(0, 20));
    expect(line).toContain('[redacted]');
    expect(line).toContain('r-1'); // everything else stays
    expect(line).toContain('/api/v1/agents');
  });
});
