import { Inject, Injectable } from '@nestjs/common';
import { newId, type RememberBody, type RememberResponse } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore, canonicalJson, claimIdempotencyKey, contentHash, KeyedMutex, sha256Hex } from '@agent-memory/platform';
import { MEMORY_TYPE_CLASSIFIER, type MemoryTypeClassifier } from '../classification/memory-type-classifier.port';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import { MemoryIdempotencyStore } from '../persistence/memory-idempotency.store';
import { MemoryRepository } from '../persistence/memory.repository';
import { MEMORY_PRISMA, type MemoryPrismaClient } from '../persistence/prisma';
import { embedDocument } from '../recall/document-embedding';
import { encodeKeywords } from '../recall/keyword-encoder';
import { SUMMARISER, type Summariser } from '../summary/summariser.port';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';

/**
 * Remember (spec, "Remember"; DESIGN.md §3): classify when `type` is omitted, summarise, embed, then
 * write content to the blob store (a new key per version), the vectors to the index, and last the
 * metadata row with its write log entry in one transaction. The row is the commit point: a crash before
 * it leaves only unreferenced blobs and vectors, which recall never shows. Remember at an existing path
 * replaces that memory (same id) and keeps the older version's blob in the write log until forget.
 */
@Injectable()
export class RememberUseCase {
  private readonly idempotency: MemoryIdempotencyStore;
  private readonly pathLocks = new KeyedMutex();

  constructor(
    private readonly repository: MemoryRepository,
    @Inject(MEMORY_PRISMA) prisma: MemoryPrismaClient,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(MEMORY_TYPE_CLASSIFIER) private readonly classifier: MemoryTypeClassifier,
    @Inject(SUMMARISER) private readonly summariser: Summariser,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {
    this.idempotency = new MemoryIdempotencyStore(prisma);
  }

  /** Returns the memory's id, path, type and summary; `replayed` marks an idempotent replay (not charged). */
  async execute(agentId: string, recordId: string, body: RememberBody): Promise<{ result: RememberResponse; replayed: boolean }> {
    const key = body.idempotency_key;
    if (key) {
      const fingerprint = sha256Hex(canonicalJson({ op: 'remember', content: body.content, type: body.type, path: body.path }));
      const claim = await claimIdempotencyKey(this.idempotency, recordId, key, fingerprint);
      if (!claim.claimed) return { result: claim.replay as RememberResponse, replayed: true };
    }
    try {
      const embedding = await embedDocument(this.embedder, body.content);
      const [type, summary] = await Promise.all([
        body.type ?? this.classifier.classify(body.content, embedding),
        this.summariser.summarise(body.content),
      ]);
      const write = async (path: string, id: string): Promise<RememberResponse> => {
        const bytes = Buffer.from(body.content, 'utf8');
        const hash = contentHash(bytes);
        const blobKey = `records/${recordId}/memories/${id}/${hash.slice('sha256:'.length)}`;
        await this.blobs.put(blobKey, bytes, 'text/plain; charset=utf-8');
        await this.index.upsert([{ id, tenant: recordId, dense: embedding, sparse: encodeKeywords(body.content), payload: { type } }]);
        const response: RememberResponse = { id, path, type, summary };
        await this.repository.saveRemember({
          id, recordId, agentId, path, type, summary, contentHash: hash, blobKey, sizeBytes: bytes.length, embedderId: this.embedder.id, idempotencyKey: key, response,
        });
        return response;
      };
      let result: RememberResponse;
      if (body.path) {
        const path = body.path;
        // One writer per path at a time, so the row, blob and vector of a path always agree.
        result = await this.pathLocks.run(`${recordId}\n${path}`, async () => {
          const existing = await this.repository.findByPath(recordId, path);
          return write(path, existing?.id ?? newId('memory'));
        });
      } else {
        const id = newId('memory');
        result = await write(`${type}/${id}`, id);
      }
      return { result, replayed: false };
    } catch (err) {
      if (key) await this.idempotency.release(recordId, key);
      throw err;
    }
  }
}
