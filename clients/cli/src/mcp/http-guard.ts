import type { IncomingHttpHeaders } from 'node:http';
import { AGENT_KEY_FORMAT } from '@agent-memory/shared';

/** Host names a loopback-bound server answers to by default (the SDK's `localhostHostValidation` list). */
export const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** True for an address that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The host name of a `Host` header value or an origin (port and brackets kept as URL gives them), or undefined when unreadable. */
function hostnameOf(value: string, withScheme: boolean): string | undefined {
  try {
    return new URL(withScheme ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/** What a request is refused for: the HTTP status and a message. */
export interface Refusal {
  status: 401 | 403;
  message: string;
}

/**
 * DNS rebinding protection, as the MCP specification (transports, "Security warning") and the SDK
 * (`hostHeaderValidation`) ask: the `Host` header's host name must be one of `allowedHostnames` (by
 * default the loopback names when the server is bound to loopback; any host when it is bound elsewhere
 * and no list was given), and a request that carries an `Origin` (a browser page) must come from one of
 * those host names or from `allowedOrigins`. Returns the refusal, or undefined when the request may pass.
 */
export function checkHostAndOrigin(
  headers: IncomingHttpHeaders,
  allowedHostnames: readonly string[] | undefined,
  allowedOrigins: readonly string[] = [],
): Refusal | undefined {
  if (allowedHostnames !== undefined) {
    const hostname = headers.host === undefined ? undefined : hostnameOf(headers.host, false);
    if (hostname === undefined) return { status: 403, message: 'Missing or invalid Host header' };
    if (!allowedHostnames.includes(hostname)) return { status: 403, message: `Invalid Host: ${hostname}` };
  }
  const origin = headers.origin;
  if (origin !== undefined && !allowedOrigins.includes(origin)) {
    const hostname = hostnameOf(origin, true);
    if (hostname === undefined || allowedHostnames === undefined || !allowedHostnames.includes(hostname)) {
      return { status: 403, message: `Invalid Origin: ${origin}` };
    }
  }
  return undefined;
}

/**
 * The shape of an agent key: the service's own format, {@link AGENT_KEY_FORMAT} of libs/shared. The
 * service checks the key itself; this only refuses, before any body is read, what cannot be one.
 */
export const AGENT_KEY_SHAPE = AGENT_KEY_FORMAT;

/**
 * The caller's agent key from `Authorization: Bearer <agent key>` (docs/api.md, "Authentication"), or a
 * 401 refusal, also for a value not of the agent key shape ({@link AGENT_KEY_SHAPE}): every HTTP request
 * of the MCP server acts as the agent whose key it carries, never another.
 */
export function bearerKey(headers: IncomingHttpHeaders): { key: string } | Refusal {
  const match = /^Bearer +([^\s]+) *$/i.exec(headers.authorization ?? '');
  if (match?.[1] === undefined) return { status: 401, message: 'Authorization: Bearer <agent key> is required' };
  if (!AGENT_KEY_SHAPE.test(match[1])) return { status: 401, message: 'Authorization: Bearer carries no agent key (amk_live_… or amk_test_…)' };
  return { key: match[1] };
}
