import { randomBytes } from 'node:crypto';

/** Prefixes of the ids the service assigns (docs/api.md, "Conventions"; humans `hum_` and their sessions `ses_`: docs/authentication.md). */
export const ID_PREFIXES = { agent: 'agt', agentKey: 'key', record: 'rec', memory: 'mem', ledgerEntry: 'led', event: 'evt', purgeTask: 'prg', human: 'hum', humanSession: 'ses' } as const;
export type IdKind = keyof typeof ID_PREFIXES;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random base62 string of `length` characters, drawn without modulo bias from the CSPRNG.
 * 22 characters carry ~131 bits; 43 characters carry ~256 bits.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new id such as `rec_3hK9...` (prefix, underscore, 22 base62 characters). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBase62(22)}`;
}

/** Regex for an id of the given kind, used by the schemas. */
export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-Za-z]{1,64}$`);
}
