import { Logger } from '@nestjs/common';
import { contentHash } from '../hashing';
import type { BlobStore } from './blob-store.port';

/** Why a blob failed its check: absent from the store, or bytes whose SHA-256 is not the recorded one. */
export type BlobDamage = 'missing' | 'hash-mismatch';

/**
 * A blob that a metadata row names is missing or does not hash to the row's `contentHash` (damaged disk,
 * lost object, tampering). Never answered with the bytes: the gateway maps it to 500 INTERNAL_ERROR with
 * an error id (docs/api.md, "Errors"; docs/deployment.md, "Checking and repairing a data directory").
 */
export class BlobIntegrityError extends Error {
  constructor(
    readonly key: string,
    readonly damage: BlobDamage,
    readonly expectedHash: string,
    readonly actualHash?: string,
  ) {
    super(damage === 'missing' ? `Blob ${key} is missing` : `Blob ${key} does not match its content hash ${expectedHash} (found ${actualHash})`);
    this.name = 'BlobIntegrityError';
  }
}

const logger = new Logger('BlobIntegrity');

/**
 * Reads `key` and checks its bytes against `expectedHash` (`sha256:<hex>`, the row's `contentHash`, one
 * SHA-256 pass: linear in the blob's size). Returns the bytes, or throws {@link BlobIntegrityError} after
 * logging it (error level, with `context`, e.g. the memory id) when the blob is missing or differs.
 */
export async function getVerifiedBlob(store: BlobStore, key: string, expectedHash: string, context: Record<string, unknown> = {}): Promise<Buffer> {
  const bytes = await store.get(key);
  const error = bytes === null ? new BlobIntegrityError(key, 'missing', expectedHash) : verifyBlob(key, bytes, expectedHash);
  if (error) {
    logger.error({ ...context, blobKey: key, damage: error.damage, expectedHash, actualHash: error.actualHash }, 'Blob failed its integrity check; not served');
    throw error;
  }
  return bytes!;
}

/** The {@link BlobIntegrityError} of `bytes` under `key` when they do not hash to `expectedHash`, else null (no logging). */
export function verifyBlob(key: string, bytes: Buffer, expectedHash: string): BlobIntegrityError | null {
  const actual = contentHash(bytes);
  return actual === expectedHash ? null : new BlobIntegrityError(key, 'hash-mismatch', expectedHash, actual);
}
