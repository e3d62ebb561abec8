import { Inject, Injectable, Optional } from '@nestjs/common';
import { ForbiddenError, newId, NotFoundError, type RememberBody, type RememberResponse } from '@agent-memory/shared';
import {
  answerAfterLostClaim,
  assertBeforeDeadline,
  BLOB_STORE,
  type BlobStore,
  canonicalJson,
  claimIdempotencyKey,
  contentHash,
  DeadlineExceededError,
  FairScheduler,
  IdempotencyClaimLostError,
  idempotentCommitId,
  KeyedMutex,
  sha256Hex,
} from '@agent-memory/platform';
import { MEMORY_TYPE_CLASSIFIER, type MemoryTypeClassifier } from '../classification/memory-type-classifier.port';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import { assertWithinMemoryQuota } from '../persistence/memory-quota';
import { MemoryRepository, rolledBackInside } from '../persistence/memory.repository';
import { embedDocument } from '../recall/document-embedding';
import { encodeKeywords } from '../recall/keyword-encoder';
import type { MemoryRememberMessage } from '../memory.messages';
import { SUMMARISER, type Summariser } from '../summary/summariser.port';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';
import { DEFAULT_MEMORY_ADMISSION, MEMORY_WORK_SCHEDULER, rememberCost } from './admission';
import { BackgroundWork } from './background-work';
import { ContextualIndexer, type OwnMaterial } from './contextual-indexer';
import { PurgeStoresUseCase } from './purge-stores.use-case';
import { EnrichMemoryUseCase } from './enrich-memory.use-case';

/** Contextual re-indexes after remember that run at once per process (model work: blob reads, embeddings). */
const CONTEXT_CONCURRENCY = 2;
/**
 * Contextual re-indexes after remember that may wait per process; more are skipped (the own entry stays).
 * During a burst of writes the re-indexes mostly wait for the writes (one thread), so the backlog holds
 * the burst: at 1,000, a LoCoMo import of 4 conversations (2,080 turns at ~60/s) skipped 613 and recall
 * lost the context of those turns. Each waiting task holds the memory's own vector and keywords (~3 KB),
 * so 20,000 bound it at about 60 MB.
 */
const CONTEXT_BACKLOG = 20_000;

/** At most this many borrowers of a replaced memory are re-indexed by name inline; more: the whole record's stale ones. */
const INLINE_BORROWERS = 1_000;

/**
 * Remember (docs/api.md, "Memories"): classify when `type` is omitted, summarise, embed, and meanwhile
 * write content to the blob store (a new key per write), then in one transaction take the record's and the
 * path's PostgreSQL advisory locks (so replicas of the memory service agree on one writer per path and
 * never write into a deleted record), lock the row, write the vectors to the index, and write the
 * metadata row with its write log entry. The row is the commit
 * point: a crash before it leaves only unreferenced blobs and vectors, which recall never shows. Remember
 * at an existing path replaces that memory (same id) and keeps the older version's blob in the write log
 * until forget. When an enricher is configured, a `memory.enrich` job is queued after the write.
 * With contextual indexing ({@link ContextualIndexer}; absent: each memory is indexed on its own) the
 * transaction writes the memory's own entry and, for a replace, marks the memories that borrowed from it
 * stale with a durable purge task; after the answer (in the background, {@link BackgroundWork}) that task
 * runs and the memory's contextual entry is written: context is added shortly after a remember.
 */
@Injectable()
export class RememberUseCase {
  private readonly pathLocks = new KeyedMutex();
  /** Contextual re-indexes after answering: {@link CONTEXT_CONCURRENCY} at a time, {@link CONTEXT_BACKLOG} waiting. */
  private readonly afterAnswer = new BackgroundWork('contextual-index', CONTEXT_CONCURRENCY, CONTEXT_BACKLOG);

  constructor(
    private readonly repository: MemoryRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(MEMORY_TYPE_CLASSIFIER) private readonly classifier: MemoryTypeClassifier,
    @Inject(SUMMARISER) private readonly summariser: Summariser,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly enrichment: EnrichMemoryUseCase,
    @Optional() @Inject(MEMORY_WORK_SCHEDULER) private readonly scheduler: FairScheduler = new FairScheduler(DEFAULT_MEMORY_ADMISSION),
    @Optional() private readonly contextual?: ContextualIndexer,
    /** Runs a replace's context-only purge task after COMMIT (absent in unit tests: the purge sweep runs it). */
    @Optional() private readonly purge?: PurgeStoresUseCase,
  ) {}

  /**
   * Returns the memory's id, path, type and summary; `replayed` marks an idempotent replay, and
   * `commitId` (with an idempotency key) names the write that committed, the same for every replay, so the
   * gateway charges it once (docs/api.md "After a 500 or a timeout"). Nothing is committed once the bus
   * request's deadline has passed (checked inside the write transaction: INTERNAL_ERROR, nothing stored).
   * Errors: VALIDATION_ERROR (idempotency key reused with another body), RATE_LIMITED with
   * `retryAfterSeconds` (a request with this key is still in progress, also when this request's claim
   * was taken over and the new owner has not finished: docs/api.md "Idempotency keys"), NOT_FOUND
   * (the record was deleted meanwhile; nothing is left behind), FORBIDDEN (the
   * agent's storage quota, docs/api.md; nothing is stored), RATE_LIMITED (too many of this agent's
   * writes and recalls waiting, {@link FairScheduler}).
   */
  async execute({ agentId, recordId, body }: MemoryRememberMessage): Promise<{ result: RememberResponse; replayed: boolean; commitId?: string }> {
    const key = body.idempotency_key;
    const fingerprint = sha256Hex(canonicalJson({ op: 'remember', content: body.content, type: body.type, path: body.path }));
    let claimedAt: Date | undefined;
    if (key) {
      const claim = await claimIdempotencyKey(this.repository.idempotency, recordId, key, fingerprint);
      if (!claim.claimed) return { result: claim.replay as RememberResponse, replayed: true, commitId: idempotentCommitId('memory', recordId, key, claim.claimedAt) };
      claimedAt = claim.claimedAt;
    }
    try {
      await this.refuseOverQuota(agentId, recordId, body);
      const freshId = newId('memory');
      const bytes = Buffer.from(body.content, 'utf8');
      const hash = contentHash(bytes);
      // Unique per write (the fresh id), so a purge of a forgotten memory or of another version never
      // deletes this write's blob; under the record's prefix, which record deletion purges.
      const blobKey = `records/${recordId}/memories/${freshId}/${hash.slice('sha256:'.length)}`;
      // The content goes to the blob store while the model works (the two waits overlap: ~2.8 ms of a
      // ~11 ms remember here), started inside the fair turn, so a call the scheduler refuses has done
      // nothing. Nothing references the blob until the row commits; when anything fails before the
      // transaction, it is deleted again once its write has settled.
      let stored: Promise<void> | undefined;
      // The expensive part waits for this agent's fair turn (docs/configuration.md, "Fairness between agents"),
      // as one job: a write that starts finishes its model work without yielding it step by step to the
      // other writes in progress, so writes complete one after another instead of all late together.
      const analyse = () =>
        this.scheduler.run(agentId, rememberCost(body.content), async () => {
          // A call that waited past its deadline is answered 500 by the gateway already: skip its work.
          assertBeforeDeadline();
          const put = this.blobs.put(blobKey, bytes, 'text/plain; charset=utf-8');
          // Handled now (a failed write must not be an unhandled rejection while the model runs); awaited below.
          put.catch(() => undefined);
          stored = put;
          const embedding = await embedDocument(this.embedder, body.content, { scope: recordId });
          const [type, summary] = await Promise.all([body.type ?? this.classifier.classify(body.content, embedding), this.summariser.summarise(body.content)]);
          return { embedding, type, summary, sparse: encodeKeywords(body.content) };
        });
      let analysis: Awaited<ReturnType<typeof analyse>>;
      try {
        analysis = await analyse();
        await stored;
        // A request that waited past its deadline (its sender has given up) stops before storing anything.
        assertBeforeDeadline();
      } catch (err) {
        const started: Promise<void> | undefined = stored;
        if (started) {
          await started.catch(() => undefined);
          await this.blobs.delete([blobKey]).catch(() => undefined);
        }
        throw err;
      }
      const { embedding, type, summary, sparse } = analysis;
      // A fresh id: the new memory's id unless a memory exists at the path when the write's path lock is
      // held (then that memory is replaced in place, see MemoryRepository.saveRemember).
      const path = body.path ?? `${type}/${freshId}`;
      const respond = (id: string): RememberResponse => ({ id, path, type, summary });
      // Contextual indexing: the own entry in the transaction; a replace marks its borrowers stale with a
      // purge task of this id, and the contextual entry is written after COMMIT (ContextualIndexer).
      const contextTaskId = newId('purgeTask');
      let id: string;
      // Whether a vector went in under the fresh id (a new memory's is written inside the transaction just
      // before its quota charge): one that no row ends up using is deleted below.
      let wroteFresh = false;
      try {
        // The save is not a scheduler job: its transaction may wait on database locks (a record purge's
        // advisory lock, the agent's usage row locked by another replica), which must not hold a slot that
        // every agent's recall needs, and it must not queue behind the analyses its agent queued later
        // (they would make it miss its deadline). Its own work (one vector upsert and a few rows) is small.
        const save = () =>
          this.repository.saveRemember(
            { id: freshId, recordId, agentId, path, type, summary, contentHash: hash, blobKey, sizeBytes: bytes.length, embedderId: this.embedder.id, idempotency: key && claimedAt ? { key, claimedAt } : undefined, contextTaskId },
            respond,
            (id) => {
              if (id === freshId) wroteFresh = true;
              return this.index.upsert([{ id, tenant: recordId, dense: embedding, sparse, payload: { type } }]);
            },
          );
        // Writes to one given path queue here first, so they wait without holding a database connection;
        // the advisory lock inside saveRemember orders them across replicas. Generated paths never collide.
        id = body.path ? await this.pathLocks.run(`${recordId}\n${path}`, save) : await save();
        // A deadlock retry that found a row at the path (written meanwhile) replaced it: the fresh id is unused.
        if (wroteFresh && id !== freshId) await this.index.delete(recordId, [freshId]).catch(() => undefined);
      } catch (err) {
        // Thrown inside the write transaction (these four, and anything else raised there: a timeout, a lost
        // connection), which rolled back: the blob is this write's own, and so is a vector under the fresh id
        // (a new memory's; never reused, so deleting it cannot touch another write's). Best effort: an orphan
        // is never recalled. An error at COMMIT leaves the outcome unknown: nothing is deleted then.
        if (err instanceof IdempotencyClaimLostError || err instanceof NotFoundError || err instanceof ForbiddenError || err instanceof DeadlineExceededError || rolledBackInside(err)) {
          await this.blobs.delete([blobKey]).catch(() => undefined);
          await this.index.delete(recordId, [freshId]).catch(() => undefined);
        }
        throw err;
      }
      // Off the request path (the memory's own entry, written in the transaction, is safe and findable): the
      // contextual entry and a replace's purge run after the answer, a few at a time; with a full backlog they
      // are skipped (the own entry stays; a replace's durable task is run by the purge sweep).
      const taskId = id !== freshId ? contextTaskId : undefined;
      if (this.contextual?.enabled || taskId) this.afterAnswer.submit(() => this.contextualAfterWrite(id, { contentHash: hash, dense: embedding, sparse }, taskId));
      // Enrichment never overrides a type the agent gave.
      await this.enrichment.queueAfterRemember(id, hash, body.type === undefined);
      return { result: respond(id), replayed: false, commitId: key && claimedAt ? idempotentCommitId('memory', recordId, key, claimedAt) : undefined };
    } catch (err) {
      if (err instanceof IdempotencyClaimLostError) {
        const answer = answerAfterLostClaim(await this.repository.idempotency.find(recordId, err.key), fingerprint);
        return { result: answer.replay as RememberResponse, replayed: true, commitId: idempotentCommitId('memory', recordId, err.key, answer.claimedAt) };
      }
      if (key && claimedAt) await this.repository.idempotency.release(recordId, key, claimedAt);
      throw err;
    }
  }

  /**
   * After the answer (contextual indexing, {@link ContextualIndexer}): writes the memory's contextual entry and,
   * after a replace (`taskId`), runs its context-only purge task if the transaction wrote one (it re-indexes
   * the memories that borrowed from the old content; on failure its job retries). Never throws.
   */
  private async contextualAfterWrite(id: string, own: OwnMaterial, taskId: string | undefined): Promise<void> {
    await this.contextual?.afterWrite(id, own);
    if (!taskId || !this.purge) return;
    const task = await this.repository.findPurge(taskId).catch(() => null);
    if (!task) return;
    // Inline, only the borrowers of this memory still stale (the ones this replace marked, unless re-indexed
    // already); other stale memories of the record are left to their own durable tasks.
    const borrowers = await this.repository.staleContext(task.recordId, INLINE_BORROWERS, { lender: id }).catch(() => undefined);
    await this.purge.runOrQueue({ ...task, borrowers: borrowers && borrowers.length < INLINE_BORROWERS ? borrowers : undefined }).catch(() => false);
  }

  /** Contextual re-indexes skipped since start because their backlog was full (those memories keep their own entry). */
  get contextSkipped(): number {
    return this.afterAnswer.skipped;
  }

  /** Resolves once the contextual re-indexes submitted after answering are done (tests; shutdown). */
  contextSettled(): Promise<void> {
    return this.afterAnswer.settled();
  }

  /** Waits for the contextual re-indexes in flight before the process's stores close. */
  async onModuleDestroy(): Promise<void> {
    await this.afterAnswer.settled();
  }

  /**
   * Refuses early, before any work, a write that the agent's storage quota cannot take (a new memory, or
   * the size change of a replace at `body.path`); the exact check runs again inside the write's
   * transaction (MemoryRepository.saveRemember). Throws ForbiddenError (docs/api.md, "Storage quotas").
   */
  private async refuseOverQuota(agentId: string, recordId: string, body: RememberBody): Promise<void> {
    const bytes = Buffer.byteLength(body.content, 'utf8');
    const { existing, usage } = await this.repository.quotaView(recordId, body.path, agentId);
    const delta = existing ? { memories: 0, bytes: bytes - existing.sizeBytes } : { memories: 1, bytes };
    assertWithinMemoryQuota(usage, delta, this.repository.storageQuota);
  }
}
