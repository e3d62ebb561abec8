/** Rows written before a table is analysed again: autovacuum's `autovacuum_analyze_threshold` (50) … */
export const ANALYZE_BASE_THRESHOLD = 50;
/** … plus this share of its rows at the last analysis (`autovacuum_analyze_scale_factor`, 0.1). */
export const ANALYZE_SCALE_FACTOR = 0.1;
/** A table due for analysis is analysed this long after it became due (writes in a burst share one ANALYZE). */
export const ANALYZE_DELAY_MS = 1_000;

// A written table in a statement: INSERT INTO, UPDATE or DELETE FROM a schema-qualified name (quoted or not),
// anywhere in the text (data-modifying CTEs write too). Names are [A-Za-z0-9_]; no backtracking across them.
const WRITTEN_TABLE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+("?[A-Za-z_][A-Za-z0-9_]*"?\."?[A-Za-z_][A-Za-z0-9_]*"?)/gi;

/**
 * The schema-qualified tables a SQL statement writes (empty for a read), each named as PostgreSQL's
 * `format('%I.%I', schema, table)` names it: `memory.memories`, quoted only where a part needs it.
 */
export function writtenTables(sql: string): string[] {
  const tables = new Set<string>();
  for (const match of sql.matchAll(WRITTEN_TABLE)) {
    const parts = match[1].split('.').map((part) => (part.startsWith('"') ? part.slice(1, -1) : part.toLowerCase()));
    tables.add(parts.map((part) => (/^[a-z_][a-z0-9_]*$/.test(part) ? part : `"${part}"`)).join('.'));
  }
  return [...tables];
}

/** What {@link AutoAnalyze} needs of the database: run one ANALYZE, and read a table's row estimate. */
export interface AnalyzeTarget {
  analyze(table: string): Promise<void>;
  /** `pg_class.reltuples` of the table after its analysis (−1 or 0 when unknown). */
  estimatedRows(table: string): Promise<number>;
}

/**
 * Planner statistics for the embedded database (docs/configuration.md, "The embedded database"). PostgreSQL
 * keeps them fresh with autovacuum, which PGlite (one backend, no background workers) never runs, and its
 * table statistics counters stay at zero, so without this the planner sees every table as it was at
 * creation: at 10,000 memories in a record it chose a scan of the whole record (4 ms) over primary-key
 * lookups (0.9 ms once analysed). This applies autovacuum's own rule from the rows our statements report
 * written: a table is analysed once the rows written since its last analysis exceed
 * {@link ANALYZE_BASE_THRESHOLD} + {@link ANALYZE_SCALE_FACTOR} × its rows, {@link ANALYZE_DELAY_MS} after it
 * became due. ANALYZE samples at most 30,000 rows whatever the table's size. Failures are reported to
 * `onError` and the table is tried again at its next write. Memory: one counter per written table.
 */
export class AutoAnalyze {
  private readonly written = new Map<string, number>();
  private readonly rowsAtAnalysis = new Map<string, number>();
  private readonly dueTables = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly target: AnalyzeTarget,
    private readonly onError: (table: string, err: unknown) => void,
    private readonly delayMs = ANALYZE_DELAY_MS,
  ) {}

  /** Marks `tables` due for analysis (e.g. the tables of a data directory an earlier process wrote). */
  due(tables: readonly string[]): void {
    if (this.stopped) return;
    for (const table of tables) this.dueTables.add(table);
    this.schedule();
  }

  /** Counts `rows` written to each table of `tables` (from {@link writtenTables}); schedules the ones now due. */
  wrote(tables: readonly string[], rows: number): void {
    if (this.stopped || !(rows > 0)) return;
    for (const table of tables) {
      const written = (this.written.get(table) ?? 0) + rows;
      this.written.set(table, written);
      if (written > ANALYZE_BASE_THRESHOLD + ANALYZE_SCALE_FACTOR * (this.rowsAtAnalysis.get(table) ?? 0)) this.dueTables.add(table);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.dueTables.size > 0 && !this.timer && !this.stopped) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.running = this.running.then(() => this.analyzeDue());
      }, this.delayMs);
      this.timer.unref();
    }
  }

  /** Analyses every table that is due now (also what the timer runs). */
  async analyzeDue(): Promise<void> {
    const tables = [...this.dueTables];
    this.dueTables.clear();
    for (const table of tables) {
      if (this.stopped) return;
      this.written.set(table, 0);
      try {
        await this.target.analyze(table);
        this.rowsAtAnalysis.set(table, Math.max(0, await this.target.estimatedRows(table)));
      } catch (err) {
        // Due again at its next write.
        this.written.set(table, Infinity);
        this.onError(table, err);
      }
    }
  }

  /** Stops scheduling and waits for an analysis in progress (before the database closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
