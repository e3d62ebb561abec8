import type { BlobStore } from '@agent-memory/platform';

/**
 * A blob store for race tests: wraps a real one (shared by several service "replicas" in one test, as S3
 * is in a cluster) and runs a one-shot `hook` around the next `put` — `before` it stores the bytes (so a
 * purge run by the hook has already swept the store when the put lands) or `after` (default). `barrier(n)`
 * makes the next `n` puts wait until all of them have arrived, to line concurrent writes up.
 */
export class HookedBlobStore implements BlobStore {
  hook: (() => Promise<void>) | null = null;
  private arrivals: { count: number; want: number; release: () => void; all: Promise<void> } | null = null;

  constructor(
    private readonly inner: BlobStore,
    private readonly hookRuns: 'before' | 'after' = 'after',
  ) {}

  barrier(want: number): void {
    let release!: () => void;
    const all = new Promise<void>((resolve) => (release = resolve));
    this.arrivals = { count: 0, want, release, all };
  }

  async put(key: string, data: Buffer, contentType?: string): Promise<void> {
    const hook = this.hook;
    this.hook = null;
    if (hook && this.hookRuns === 'before') await hook();
    await this.inner.put(key, data, contentType);
    if (hook && this.hookRuns === 'after') await hook();
    const arrivals = this.arrivals;
    if (arrivals) {
      if (++arrivals.count === arrivals.want) {
        this.arrivals = null;
        arrivals.release();
      }
      await arrivals.all;
    }
  }

  get = (key: string) => this.inner.get(key);
  delete = (keys: readonly string[]) => this.inner.delete(keys);
  deletePrefix = (prefix: string) => this.inner.deletePrefix(prefix);
  list = (prefix: string) => this.inner.list(prefix);
}
