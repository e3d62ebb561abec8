import { PassThrough } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH } from './edge-errors';

/** A reply double that records what the handler sends. */
function fakeReply() {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const reply = {
    code(s: number) {
      sent.status = s;
      return reply;
    },
    header(k: string, v: string) {
      sent.headers[k] = v;
      return reply;
    },
    send(b: unknown) {
      sent.body = b;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

describe('edge errors', () => {
  it.each([
    ['FST_ERR_BAD_URL', 400, 'VALIDATION_ERROR'],
    ['FST_ERR_MAX_PARAM_LENGTH', 400, 'VALIDATION_ERROR'],
    ['FST_ERR_ASYNC_CONSTRAINT', 500, 'INTERNAL_ERROR'],
  ])('maps the router refusal %s to %i %s without echoing the path', (code, status, errorCode) => {
    const { reply, sent } = fakeReply();
    const error = Object.assign(new Error("'/api/v1/records/%ff-canary' is not a valid url component"), { code }) as FastifyError;
    answerFrameworkError(error, {} as FastifyRequest, reply);
    expect(sent.status).toBe(status);
    expect(sent.body).toEqual({ success: false, error: { code: errorCode, message: expect.any(String) } });
    expect(JSON.stringify(sent.body)).not.toContain('canary');
  });

  it('allows path parameters as long as a whole request head', () => {
    expect(MAX_PARAM_LENGTH).toBeGreaterThanOrEqual(16 * 1024);
  });

  it('writes the envelope to a socket Node refused and closes it; a reset socket is left alone', async () => {
    const socket = new PassThrough();
    const written: Buffer[] = [];
    socket.on('data', (c: Buffer) => written.push(c));
    socket.on('error', () => undefined);
    answerClientError.call({}, Object.assign(new Error('Header overflow'), { code: 'HPE_HEADER_OVERFLOW' }), socket);
    await new Promise((r) => setImmediate(r));
    const text = Buffer.concat(written).toString();
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/too large/) } });
    expect(socket.destroyed).toBe(true);
    const reset = new PassThrough();
    const spy = jest.spyOn(reset, 'write');
    answerClientError.call({}, Object.assign(new Error('reset'), { code: 'ECONNRESET' }), reset);
    expect(spy).not.toHaveBeenCalled();
  });
});
