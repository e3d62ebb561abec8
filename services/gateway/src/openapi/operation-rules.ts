import { type ErrorCode, HTTP_STATUS_BY_CODE, RATE_LIMITS } from '@agent-memory/shared';
import type { RouteKindOptions } from '../http/route-kinds';
import { POLICY_NAMES } from '../rate-limit/rate-limit.service';

/**
 * What a route's kind (../http/route-kinds.ts) implies for its OpenAPI operation: who may call it
 * (security requirements), which errors it can answer, which rate-limit policies count it. One place,
 * read from the same declaration the guards are built from, so the contract follows the code.
 */

/** The four `Authorization` schemes of docs/authentication.md, as OpenAPI security scheme names. */
export const SECURITY_SCHEMES = {
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'agent key: amk_live_… or amk_test_… (an opaque secret)',
    description: '`Authorization: Bearer <agent key>`: an agent calling the API (docs/authentication.md, "Agent keys").',
  },
  Signature: {
    type: 'http',
    scheme: 'Signature',
    description:
      '`Authorization: Signature <timestamp>:<walletAddress>:<signature>`: a `local`-mode agent signs each request with its wallet (EIP-191 over the method, path, timestamp and body digest; docs/authentication.md, "Wallet signatures"). The only method of the raw blob routes.',
  },
  Payment: {
    type: 'http',
    scheme: 'Payment',
    description:
      '`Authorization: Payment <credential>`: pays one paid call (or a top-up) without a balance, answering the `WWW-Authenticate: Payment` challenge of a 402 (the HTTP Payment authentication scheme of the Machine Payments Protocol; docs/billing.md).',
  },
  Passkey: {
    type: 'http',
    scheme: 'Passkey',
    description:
      '`Authorization: Passkey <session credential>`: a human signed in with a passkey: the account, read access to the agents the human claimed, and the owner’s free erasures (forget, delete record) (docs/authentication.md, "Passkeys"). A session opened by Sign in with Ethereum reaches only the agents of the wallet that signed it in.',
  },
} as const;
export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

/** The security requirements of a route kind: any one of the listed schemes; `[]`: no credential; `{}` in the list: the credential is optional. */
export function securityOf(route: RouteKindOptions): Array<Partial<Record<SecuritySchemeName, string[]>>> {
  const one = (...names: SecuritySchemeName[]) => names.map((name) => ({ [name]: [] }));
  switch (route.kind) {
    case 'public':
      return route.options.optionalPasskey ? [{}, ...one('Passkey')] : [];
    case 'agent':
      return one('Bearer', 'Signature');
    case 'record': {
      const { credential, price, passkey } = route.options;
      if (credential === 'signature') return one('Signature');
      return one('Bearer', 'Signature', ...(price ? (['Payment'] as const) : []), ...(passkey ? (['Passkey'] as const) : []));
    }
    case 'top-up':
      return one('Bearer', 'Signature', 'Payment');
    case 'human':
      return one('Passkey');
  }
}

/**
 * The errors a route can answer (docs/api.md, "Envelope, statuses, errors" and "Errors at the HTTP edge"),
 * by status: every route 400 (the edge: malformed path escape, two Authorization headers, a body over the
 * route's cap, a bad body or query) and 500; agent-credential routes 401 and 403, human routes 401; limited routes 429; record
 * routes and claimed-agent routes 404; claimed-agent routes 403 (a Sign in with Ethereum session of another
 * wallet); paid routes and the top-up 402; plus `extra` from `@Returns`.
 */
export function errorsOf(route: RouteKindOptions, extra: readonly ErrorCode[] = []): ErrorCode[] {
  const codes = new Set<ErrorCode>(['VALIDATION_ERROR', 'INTERNAL_ERROR', ...extra]);
  const add = (...more: ErrorCode[]) => more.forEach((code) => codes.add(code));
  // Agent credentials can be refused for the route (a passkey session, a test key elsewhere, a `cloud` agent on raw blobs).
  if (route.kind === 'agent' || route.kind === 'record' || route.kind === 'top-up') add('UNAUTHORIZED', 'FORBIDDEN');
  if (route.kind === 'human' || (route.kind === 'public' && route.options.optionalPasskey)) add('UNAUTHORIZED');
  if (rateLimitPolicies(route).length > 0) add('RATE_LIMITED');
  if (route.kind === 'record') add('NOT_FOUND');
  // A claimed agent another human owns: 404; one of the account's that a Sign in with Ethereum session does not reach (another wallet's): 403.
  if (route.kind === 'human' && route.options.claimedAgent) add('NOT_FOUND', 'FORBIDDEN');
  if ((route.kind === 'record' && route.options.price) || route.kind === 'top-up') add('PAYMENT_REQUIRED');
  return [...codes].sort((a, b) => HTTP_STATUS_BY_CODE[a] - HTTP_STATUS_BY_CODE[b]);
}

/** The rate-limit policies that count a route (docs/api.md, "Rate limits"), as named in `RateLimit-Policy`. */
export function rateLimitPolicies(route: RouteKindOptions): string[] {
  switch (route.kind) {
    case 'public':
      return route.options.limit === 'client' ? [POLICY_NAMES.anonymous] : [];
    case 'record': {
      const perRecord = route.options.recordLimit === 'write' ? [POLICY_NAMES.recordWrite] : route.options.recordLimit === 'query' ? [POLICY_NAMES.recordQuery] : [];
      return [POLICY_NAMES.agent, ...perRecord];
    }
    default:
      return [POLICY_NAMES.agent];
  }
}

/**
 * Plain-language limits of a route for its description: `100 requests/min per agent; 30 writes/min per record`.
 * The fixed limits come from `RATE_LIMITS` (libs/shared); the per-client limit of calls without an agent is the
 * deployment's (`anonymousPerMinute`, from `RATE_LIMIT_ANONYMOUS_PER_MINUTE`; docs/api.md, "Rate limits").
 */
export function rateLimitText(route: RouteKindOptions, anonymousPerMinute: number): string {
  const text: Record<string, string> = {
    [POLICY_NAMES.agent]: route.kind === 'human' ? `${RATE_LIMITS.agentPerMinute} requests/min per human session` : `${RATE_LIMITS.agentPerMinute} requests/min per agent`,
    [POLICY_NAMES.recordWrite]: `${RATE_LIMITS.recordWritesPerMinute} writes/min per record`,
    [POLICY_NAMES.recordQuery]: `${RATE_LIMITS.recordQueriesPerMinute} queries/min per record`,
    [POLICY_NAMES.anonymous]: `${anonymousPerMinute} requests/min per client address`,
  };
  return rateLimitPolicies(route)
    .map((policy) => text[policy])
    .join('; ');
}
