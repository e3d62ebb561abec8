import { timingSafeEqual } from 'node:crypto';
import { AGENT_KEY_FORMAT, KEY_SECRET_LENGTH, randomBase62 } from '@agent-memory/shared';
import { sha256Hex } from '@agent-memory/platform';
import type { KeyEnvironment } from '@agent-memory/shared';

/** Injection token of the agent key prefix (`amk` by default: `amk_live_…`, `amk_session_…`). */
export const AGENT_KEY_PREFIX = Symbol('AgentKeyPrefix');

const SESSION_FORMAT = /^([a-z][a-z0-9]{1,15})_session_([0-9A-Za-z]{43})$/;

/** A new agent key `<prefix>_<environment>_<secret>` (docs/authentication.md, "Agent keys") and its SHA-256 hex. */
export function issueAgentKey(prefix: string, environment: KeyEnvironment): { key: string; hash: string; displayPrefix: string } {
  const key = `${prefix}_${environment}_${randomBase62(KEY_SECRET_LENGTH)}`;
  return { key, hash: sha256Hex(key), displayPrefix: key.slice(0, prefix.length + environment.length + 6) };
}

/** Parses a presented key; null when it is not of the agent key format. */
export function parseAgentKey(key: string): { prefix: string; environment: KeyEnvironment; hash: string } | null {
  const m = AGENT_KEY_FORMAT.exec(key);
  if (!m) return null;
  return { prefix: m[1], environment: m[2] as KeyEnvironment, hash: sha256Hex(key) };
}

/**
 * A new human session credential `<prefix>_session_<43 base62>` (≈ 256 bits; the `Authorization: Passkey`
 * value, docs/authentication.md) and its SHA-256 hex, which is all that is stored.
 */
export function issueSessionToken(prefix: string): { token: string; hash: string } {
  const token = `${prefix}_session_${randomBase62(KEY_SECRET_LENGTH)}`;
  return { token, hash: sha256Hex(token) };
}

/** SHA-256 hex of a presented session token; null when it is not of the session token format. */
export function parseSessionToken(token: string): { hash: string } | null {
  return SESSION_FORMAT.test(token) ? { hash: sha256Hex(token) } : null;
}

/**
 * Compares two hex digests in constant time. Keys and tokens are found by their hash through a unique
 * index (an attacker cannot steer a SHA-256 prefix, so the index lookup leaks nothing useful); this
 * re-check keeps every in-process comparison of secret-derived values timing-safe.
 */
export function constantTimeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
