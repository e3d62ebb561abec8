import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/** NATS header: when the sender signed the message, in milliseconds since the Unix epoch (decimal). */
export const SIGNED_AT_HEADER = 'x-bus-signed-at';
/** NATS header: the sender's Ed25519 signature (base64url) over {@link busSigningInput}. */
export const SIGNATURE_HEADER = 'x-bus-signature';

/** What a bus signature covers (docs/configuration.md, "Bus authentication"). */
export interface BusSignedFields {
  /** The NATS subject the message was published to. */
  subject: string;
  /** The correlation id (`x-request-id`). */
  requestId: string;
  /** The authenticated principal, when the message carries one (`x-agent-id`, `x-key-environment`). */
  agentId?: string;
  keyEnvironment?: string;
  /** The request's deadline header (`x-deadline`, epoch ms as sent), when it has one. */
  deadline?: string;
  /** Signing time, ms since the epoch. */
  signedAt: number;
  /** The exact message body as sent on the wire. */
  body: Uint8Array;
}

/**
 * The byte string a bus signature covers: a version tag, then subject, request id, agent id, key
 * environment, deadline, signing time and the SHA-256 (hex) of the body, one per line (an absent
 * principal or deadline is an empty line). None of the fields may contain a newline: subjects, ids and environments never do, and a
 * header value with one is refused by {@link BusVerifier} before it gets here.
 */
export function busSigningInput(f: BusSignedFields): Buffer {
  const digest = createHash('sha256').update(f.body).digest('hex');
  return Buffer.from(['agent-memory-bus-v1', f.subject, f.requestId, f.agentId ?? '', f.keyEnvironment ?? '', f.deadline ?? '', String(f.signedAt), digest].join('\n'), 'utf8');
}

/** Loads an Ed25519 key given as base64 of its DER encoding (PKCS#8 private, SPKI public); throws naming what is wrong. */
function loadKey(base64Der: string, kind: 'private' | 'public'): KeyObject {
  const der = Buffer.from(base64Der.trim(), 'base64');
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }) : createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw new Error(`not a base64 DER ${kind === 'private' ? 'PKCS#8' : 'SPKI'} key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an Ed25519 key is required (got ${key.asymmetricKeyType})`);
  return key;
}

/**
 * Signs the messages one process sends (the gateway: the only process that authenticates callers), so
 * that a receiving service can tell a principal the gateway vouched for from one anybody on the bus wrote
 * (Ed25519, RFC 8032, through node:crypto).
 */
export class BusSigner {
  private readonly key: KeyObject;

  /** @param privateKeyBase64Der Ed25519 private key, base64 of its PKCS#8 DER; throws if it is not one. */
  constructor(privateKeyBase64Der: string) {
    this.key = loadKey(privateKeyBase64Der, 'private');
  }

  /** The signature (base64url) of `fields`. */
  sign(fields: BusSignedFields): string {
    return sign(null, busSigningInput(fields), this.key).toString('base64url');
  }
}

/** Why a signed message was refused. */
export type BusSignatureFailure = 'unsigned' | 'malformed' | 'bad_signature' | 'stale';

/**
 * Verifies the signature of a received message with the gateway's public key and its age: a message
 * signed more than `maxAgeMs` before or after `now` is stale (bounds replays of a captured message and
 * tolerates that much clock skew between hosts).
 */
export class BusVerifier {
  private readonly key: KeyObject;

  /**
   * @param publicKeyBase64Der Ed25519 public key, base64 of its SPKI DER; throws if it is not one
   * @param maxAgeMs largest accepted |now − signedAt|, in milliseconds
   */
  constructor(
    publicKeyBase64Der: string,
    private readonly maxAgeMs: number,
  ) {
    this.key = loadKey(publicKeyBase64Der, 'public');
  }

  /**
   * Checks `signature` (base64url) and `signedAt` (the header's decimal text) over the other fields;
   * undefined when valid, else why not.
   */
  verify(fields: Omit<BusSignedFields, 'signedAt'>, signedAt: string | undefined, signature: string | undefined, now = Date.now()): BusSignatureFailure | undefined {
    if (!signature || !signedAt) return 'unsigned';
    if (!/^\d{1,16}$/.test(signedAt) || !/^[A-Za-z0-9_-]{86}$/.test(signature)) return 'malformed';
    if ([fields.subject, fields.requestId, fields.agentId ?? '', fields.keyEnvironment ?? '', fields.deadline ?? ''].some((v) => v.includes('\n'))) return 'malformed';
    const at = Number(signedAt);
    if (!verify(null, busSigningInput({ ...fields, signedAt: at }), this.key, Buffer.from(signature, 'base64url'))) return 'bad_signature';
    if (Math.abs(now - at) > this.maxAgeMs) return 'stale';
    return undefined;
  }
}
