import { LIMITS } from '@agent-memory/shared';
import { bodyLimitFor, DEFAULT_BODY_LIMIT_BYTES } from './http-security';

describe('per-route body limits (docs/authentication.md, "Body size")', () => {
  it('lets the largest valid body of each route through, written with the longest JSON escapes', () => {
    const escaped = (bytesOfContent: number) => 6 * bytesOfContent + 1024; // every byte as \u00XX, plus the other fields
    expect(bodyLimitFor('/api/v1/records/:recordId/remember')).toBeGreaterThanOrEqual(escaped(LIMITS.memoryContentBytes.max));
    expect(bodyLimitFor('/api/v1/records/:recordId/write')).toBeGreaterThanOrEqual(escaped(LIMITS.fileContentBytes.max));
    expect(bodyLimitFor('/api/v1/records/:recordId/raw')).toBeGreaterThanOrEqual(Math.ceil((LIMITS.rawContentBytes.max * 4) / 3) + 1024);
  });

  it('keeps every other route at 64 KB', () => {
    for (const url of ['/api/v1/records', '/api/v1/records/:recordId', '/api/v1/records/:recordId/recall', '/api/v1/agents', '/api/v1/auth/passkey/register/verify', '/api/v1/humans/me/agents']) {
      expect([url, bodyLimitFor(url)]).toEqual([url, DEFAULT_BODY_LIMIT_BYTES]);
    }
    expect(DEFAULT_BODY_LIMIT_BYTES).toBe(65_536);
    expect(bodyLimitFor('/docs/write')).toBe(DEFAULT_BODY_LIMIT_BYTES);
  });
});
