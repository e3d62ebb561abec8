import { cachedJsonAnswer } from './document-answer';

describe('cachedJsonAnswer (the /openapi.json answer)', () => {
  it('builds and serializes once: every call returns the same string', () => {
    const build = jest.fn(() => ({ openapi: '3.1.0', paths: { '/api/v1/x': {} } }));
    const log = { error: jest.fn() };
    const answer = cachedJsonAnswer(build, log);
    expect(build).not.toHaveBeenCalled();
    const first = answer();
    const second = answer();
    expect(first).toEqual({ status: 200, body: '{"openapi":"3.1.0","paths":{"/api/v1/x":{}}}' });
    expect(second.body).toBe(first.body);
    expect(build).toHaveBeenCalledTimes(1);
    expect(log.error).not.toHaveBeenCalled();
  });

  it('keeps a failed build: 500 with the INTERNAL_ERROR envelope on every call, the builder run and the error logged once', () => {
    const build = jest.fn((): unknown => {
      throw new Error('OpenAPI: X.y (GET /api/v1/y) has no @Returns(schema, { summary })');
    });
    const log = { error: jest.fn() };
    const answer = cachedJsonAnswer(build, log);
    const [first, second] = [answer(), answer()];
    expect(first.status).toBe(500);
    const body = JSON.parse(first.body) as { success: boolean; error: { code: string; message: string } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(body.error.message).toMatch(/^Internal error \(error id [0-9a-f-]{36}\)$/);
    expect(second).toBe(first);
    expect(build).toHaveBeenCalledTimes(1);
    expect(log.error).toHaveBeenCalledTimes(1);
    const [details] = log.error.mock.calls[0] as [{ errorId: string; err: Error }];
    expect(body.error.message).toContain(details.errorId);
    expect(details.err.message).toContain('has no @Returns');
  });
});
