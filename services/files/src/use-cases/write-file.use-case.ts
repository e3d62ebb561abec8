import { Inject, Injectable } from '@nestjs/common';
import type { WriteFileResponse } from '@agent-memory/shared';
import { answerAfterLostClaim, BLOB_STORE, type BlobStore, canonicalJson, claimIdempotencyKey, contentHash, IdempotencyClaimLostError, idempotentCommitId, KeyedMutex, sha256Hex } from '@agent-memory/platform';
import type { FilesWriteMessage } from '../files.messages';
import { FilesRepository } from '../persistence/files.repository';
import { commitOrDropBlob, filesPrefix, writeBlobKey } from './file-blobs';

/**
 * Write file (docs/api.md, "Write file"): a text file (≤ 1 MB) at `path`, replacing any earlier content.
 * The content goes to the blob store under a key of its own, then the row (the source of truth) in one
 * transaction ({@link FilesRepository.saveFile}).
 */
@Injectable()
export class WriteFileUseCase {
  private readonly pathLocks = new KeyedMutex();

  constructor(
    private readonly repository: FilesRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /**
   * With `idempotency_key`, a repeat of the same body returns the first response (`replayed: true`) and
   * writes nothing; a request whose claim was taken over (its deadline passed, see claimIdempotencyKey)
   * commits nothing and answers like a replay (RATE_LIMITED with `retryAfterSeconds` while the new owner
   * is still in progress). `commitId` (with a key) names the committed write for billing, the same for
   * every replay. Nothing is committed once the bus request's deadline has passed (INTERNAL_ERROR,
   * docs/api.md "After a 500 or a timeout"). NOT_FOUND when the record was deleted (tombstone), with this
   * write's blob deleted and nothing committed; FORBIDDEN when the agent's storage quota (files and raw
   * blobs, count and bytes; a replace counts its size change) would be exceeded, with nothing stored
   * (docs/api.md, "Storage quotas").
   */
  async execute({ agentId, recordId, body }: FilesWriteMessage): Promise<{ result: WriteFileResponse; replayed: boolean; commitId?: string }> {
    const key = body.idempotency_key;
    const fingerprint = sha256Hex(canonicalJson({ op: 'write', path: body.path, content: body.content }));
    let claimedAt: Date | undefined;
    if (key) {
      const claim = await claimIdempotencyKey(this.repository.idempotency, recordId, key, fingerprint);
      if (!claim.claimed) return { result: claim.replay as WriteFileResponse, replayed: true, commitId: idempotentCommitId('files', recordId, key, claim.claimedAt) };
      claimedAt = claim.claimedAt;
    }
    try {
      const result = await this.pathLocks.run(`${recordId}\n${body.path}`, async () => {
        const bytes = Buffer.from(body.content, 'utf8');
        const hash = contentHash(bytes);
        const blobKey = writeBlobKey(filesPrefix(recordId), body.path, hash);
        await this.blobs.put(blobKey, bytes, 'text/plain; charset=utf-8');
        const response: WriteFileResponse = { path: body.path, contentHash: hash };
        const idempotency = key && claimedAt ? { key, claimedAt, response } : undefined;
        await commitOrDropBlob(this.blobs, blobKey, () => this.repository.saveFile({ agentId, recordId, path: body.path, contentHash: hash, blobKey, sizeBytes: bytes.length, idempotency }));
        return response;
      });
      return { result, replayed: false, commitId: key && claimedAt ? idempotentCommitId('files', recordId, key, claimedAt) : undefined };
    } catch (err) {
      if (err instanceof IdempotencyClaimLostError) {
        const answer = answerAfterLostClaim(await this.repository.idempotency.find(recordId, err.key), fingerprint);
        return { result: answer.replay as WriteFileResponse, replayed: true, commitId: idempotentCommitId('files', recordId, err.key, answer.claimedAt) };
      }
      if (key && claimedAt) await this.repository.idempotency.release(recordId, key, claimedAt);
      throw err;
    }
  }
}
