/** The four authentication schemes (docs/api.md, "Authentication"), as they appear in `Authorization`. */
export type AuthScheme = 'Bearer' | 'Signature' | 'Passkey' | 'Payment';
const SCHEMES: Record<string, AuthScheme> = { bearer: 'Bearer', signature: 'Signature', passkey: 'Passkey', payment: 'Payment' };

/**
 * `<scheme> <credential>`: disjoint character classes, so matching is linear in the header's length
 * (checked with recheck in ./authorization-header.spec.ts; Node bounds the header block at 16 KB anyway).
 */
export const AUTHORIZATION_PATTERN = /^([A-Za-z]+) +([\x21-\x7e]{1,1024})$/;

/**
 * Splits `Authorization: <scheme> <credential>` (scheme case-insensitive, RFC 9110 §11.1). Null when
 * the header is missing, of another scheme, or its credential is empty, longer than 1,024 characters or
 * contains whitespace or control characters.
 */
export function parseAuthorization(header: string | string[] | undefined): { scheme: AuthScheme; credential: string } | null {
  if (typeof header !== 'string') return null;
  const m = AUTHORIZATION_PATTERN.exec(header.trim());
  if (!m) return null;
  const scheme = SCHEMES[(m[1]).toLowerCase()];
  return scheme ? { scheme, credential: m[2] } : null;
}

/**
 * How many `Authorization` field lines a request carries, from Node's `rawHeaders` (name, value, name,
 * value, ...). Node keeps only the first `authorization` in `req.headers` and drops the rest, so a
 * second credential would be silently ignored; the gateway refuses any count above one
 * (docs/authentication.md: Authorization is a singleton field, RFC 9110 §5.3 and §11.6.2).
 */
export function authorizationFieldCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === 'authorization') count++;
  return count;
}
