import type { FastifyInstance } from 'fastify';
import { LIMITS } from '@agent-memory/shared';
import { DASHBOARD_CSP, isDashboardPath } from './dashboard';

/** Security settings of the HTTP edge (docs/authentication.md, "Transport, limits and logs"). */
export interface HttpSecurityOptions {
  /** `Strict-Transport-Security` max-age in seconds; 0 (default) sends no HSTS header (enable it behind HTTPS only). */
  hstsMaxAgeSeconds: number;
}
export const DEFAULT_HTTP_SECURITY: HttpSecurityOptions = { hstsMaxAgeSeconds: 0 };

/** Slack for the JSON around the content (other fields, quotes, whitespace), bytes. */
const ENVELOPE_SLACK_BYTES = 64 * 1024;

/**
 * Largest accepted request body per route, bytes. The schemas enforce the exact content limits of docs/api.md
 * ("Limits": memory content 50 KB, file content 1 MB) with a message naming the field; this cap only
 * keeps a route from buffering and parsing far more than its largest valid body: content whose every
 * character needs a 6-byte JSON escape (`\u0000`) fits, plus 64 KB for the rest. Raw blobs are base64
 * (4 bytes per 3). Every other route takes at most 64 KB.
 */
export const ROUTE_BODY_LIMITS: Array<{ suffix: string; bytes: number }> = [
  { suffix: '/write', bytes: 6 * LIMITS.fileContentBytes.max + ENVELOPE_SLACK_BYTES },
  { suffix: '/raw', bytes: Math.ceil((4 * LIMITS.rawContentBytes.max) / 3) + ENVELOPE_SLACK_BYTES },
  { suffix: '/remember', bytes: 6 * LIMITS.memoryContentBytes.max + ENVELOPE_SLACK_BYTES },
];
export const DEFAULT_BODY_LIMIT_BYTES = ENVELOPE_SLACK_BYTES;

/** The body limit of a route path (a Fastify route pattern such as `/api/v1/records/:recordId/write`). */
export function bodyLimitFor(url: string): number {
  return ROUTE_BODY_LIMITS.find((r) => url.startsWith('/api/') && url.endsWith(r.suffix))?.bytes ?? DEFAULT_BODY_LIMIT_BYTES;
}

/**
 * A declared body over its route's cap but at most this large is read and dropped before the refusal is
 * sent, so that the client, still uploading, receives the VALIDATION_ERROR instead of a reset connection.
 * Larger ones are refused at once (the connection may then be cut mid-upload).
 */
export const DRAIN_OVERSIZED_BODY_MAX_BYTES = 8 * 1024 * 1024;

/** A Fastify-style error that the gateway's exception filter maps to VALIDATION_ERROR. */
function edgeError(code: 'FST_ERR_CTP_BODY_TOO_LARGE' | 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

/** True when the request carries a body (RFC 9112 §6.3: a Content-Length above 0, or Transfer-Encoding). */
function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Paths served to browsers (Swagger UI): they need scripts and may be cached, unlike the JSON API. */
function isDocsPath(url: string): boolean {
  return url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?');
}

/**
 * Registers the edge's security hooks on the Fastify instance (before the routes are registered):
 * - a per-route body limit ({@link bodyLimitFor}); over it: VALIDATION_ERROR (error filter);
 * - bodies only as `application/json` (any other content type: VALIDATION_ERROR, the error codes of docs/api.md have no 415);
 * - response headers on every answer: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
 *   `X-Frame-Options: DENY`; on the API (everything but `/docs` and `/dashboard`): `Cache-Control: no-store` and
 *   `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`; on `/dashboard` its own policy
 *   ({@link DASHBOARD_CSP}); `Strict-Transport-Security`
 *   when `hstsMaxAgeSeconds` > 0. (@fastify/helmet is not a dependency; these few headers are set here.)
 */
export function registerHttpSecurity(fastify: FastifyInstance, options: HttpSecurityOptions = DEFAULT_HTTP_SECURITY): void {
  fastify.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined) route.bodyLimit = bodyLimitFor(route.url ?? route.path ?? '');
  });
  // Before any parser runs: bodies are JSON only (Nest also registers a form parser, which would turn
  // `name=x` into { name: 'x' } and let an HTML form post cross-site without a preflight), and an
  // oversized upload is drained so that its refusal reaches the client.
  fastify.addHook('preParsing', (req, _reply, payload, done) => {
    if (!hasBody(req.headers)) return done(null, payload);
    const mediaType = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const declared = Number(req.headers['content-length']);
    const limit = req.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT_BYTES;
    const refusal =
      mediaType !== 'application/json'
        ? edgeError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'Content-Type must be application/json')
        : Number.isFinite(declared) && declared > limit
          ? edgeError('FST_ERR_CTP_BODY_TOO_LARGE', 413, 'Request body is too large')
          : undefined;
    if (!refusal) return done(null, payload);
    if (!(Number.isFinite(declared) && declared <= DRAIN_OVERSIZED_BODY_MAX_BYTES)) return done(refusal);
    payload.on('error', () => done(refusal));
    payload.on('end', () => done(refusal));
    payload.resume();
  });
  const hsts = options.hstsMaxAgeSeconds > 0 ? `max-age=${options.hstsMaxAgeSeconds}; includeSubDomains` : undefined;
  fastify.addHook('onSend', (req, reply, payload, done) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('Referrer-Policy', 'no-referrer');
    void reply.header('X-Frame-Options', 'DENY');
    if (isDashboardPath(req.url)) {
      // the dashboard's own files only; its route handlers set Cache-Control (index: no-cache, hashed assets: a year)
      void reply.header('Content-Security-Policy', DASHBOARD_CSP);
      if (!reply.hasHeader('Cache-Control')) void reply.header('Cache-Control', 'no-store');
    } else if (!isDocsPath(req.url)) {
      void reply.header('Cache-Control', 'no-store');
      void reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    }
    if (hsts) void reply.header('Strict-Transport-Security', hsts);
    done(null, payload);
  });
}
