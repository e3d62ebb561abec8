/**
 * A value loaded once, on first use, and shared by every caller (a model, prototype vectors): concurrent
 * first calls share one load; a failed load is forgotten, so the next {@link get} tries again instead of
 * failing forever.
 */
export class RetryingLoad<T> {
  private pending?: Promise<T>;

  constructor(private readonly load: () => Promise<T>) {}

  /** The loaded value; starts the load when none is done or under way. Rejects as the load does. */
  get(): Promise<T> {
    if (!this.pending) {
      const loading = this.load();
      this.pending = loading;
      loading.catch(() => {
        if (this.pending === loading) this.pending = undefined;
      });
    }
    return this.pending;
  }

  /** Forgets the value (a later {@link get} loads again) and returns it, or undefined when none was loaded or its load failed. */
  async reset(): Promise<T | undefined> {
    const pending = this.pending;
    this.pending = undefined;
    return pending?.catch(() => undefined);
  }
}
