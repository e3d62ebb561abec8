/**
 * The fixed mean vector of the context gate's centred cosine (bench/locomo-offline/context-tune.ts, reference
 * "no-dialogue"): the mean of the production embedder's unit vectors (USE-lite on the onnx runner, through
 * `embedDocument`) of texts that no evaluation uses:
 * - services/memory/src/classification/labelled-memories.fixture.ts (all memories) and
 *   classifier-set.fixture.ts (all memories), both without the dialogue-shaped ones (`"<Name>: ..."`, which
 *   use LoCoMo speaker names);
 * - bench/synthetic-memories.ts: `generateMemories(300, 42)`.
 * Each distinct text counts once. Writes tmp/context-tune/use-lite-mean-no-dialogue.json
 * ({ model, source, texts, norm, mean: number[512] }) and, when context-tune.ts has run, checks it against
 * tmp/context-tune/mean-no-dialogue.json. With `--write`, also writes the shipped constant
 * services/memory/src/recall/use-lite-mean.ts (`USE_LITE_MEAN`, used by the context gate in production).
 *
 * Run: `nice -n 10 node -r @swc-node/register bench/locomo-offline/context-mean.ts [--write]` (about 10 s).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  embedDocument,
  ensureUseLiteOnnxModel,
  loadOnnxUseLiteRunner,
  UseLiteEmbedder,
} from '@agent-memory/memory';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { LABELLED_MEMORIES } from '../../services/memory/src/classification/labelled-memories.fixture';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { CLASSIFIER_SET } from '../../services/memory/src/classification/classifier-set.fixture';
import { generateMemories } from '../synthetic-memories';
import { MODEL_CACHE_DIR } from './distil-static';

const OUT_DIR = path.resolve(__dirname, '../../tmp/context-tune');
const OUT = path.join(OUT_DIR, 'use-lite-mean-no-dialogue.json');
const SHIPPED = path.resolve(__dirname, '../../services/memory/src/recall/use-lite-mean.ts');

async function main(): Promise<void> {
  const fixtures = [...LABELLED_MEMORIES.map((m) => m.text), ...CLASSIFIER_SET.map((m) => m.text)];
  const synthetic = generateMemories(300, 42).map((m) => m.content);
  const texts = [...new Set([...fixtures, ...synthetic])].filter((t) => !/^[A-Z][a-z]+: /.test(t));
  const file = await ensureUseLiteOnnxModel(MODEL_CACHE_DIR);
  const embedder = new UseLiteEmbedder({ cacheSize: 0, loadRunner: () => loadOnnxUseLiteRunner({ modelPath: file.path, modelBytes: file.bytes }) });
  const mean = new Float64Array(512);
  for (const text of texts) {
    const v = await embedDocument(embedder, text, {});
    for (let d = 0; d < 512; d++) mean[d] += v[d] / texts.length;
  }
  await embedder.close();
  const norm = Math.sqrt(mean.reduce((s, x) => s + x * x, 0));
  mkdirSync(OUT_DIR, { recursive: true });
  const rounded = [...mean].map((x) => Number(x.toFixed(6)));
  writeFileSync(OUT, JSON.stringify({ model: 'use-lite@512 (onnx runner, embedDocument)', source: 'classifier fixtures without dialogue turns + generateMemories(300, 42)', texts: texts.length, norm: Number(norm.toFixed(6)), mean: rounded }));
  console.log(`${texts.length} texts, |mean| = ${norm.toFixed(4)} → ${OUT}`);
  if (process.argv.includes('--write')) {
    const rows: string[] = [];
    for (let i = 0; i < rounded.length; i += 8) rows.push(`  ${rounded.slice(i, i + 8).join(', ')},`);
    writeFileSync(
      SHIPPED,
      [
        '/**',
        ' * The mean of USE-lite unit vectors (`use-lite@512`, through `embedDocument`) of texts no evaluation uses:',
        ` * the memories of the classifier fixtures without their dialogue-shaped ones, and 300 memories of`,
        ` * bench/synthetic-memories.ts (seed 42): ${texts.length} texts, norm ${norm.toFixed(4)}. Written by`,
        ' * bench/locomo-offline/context-mean.ts --write (do not edit by hand). The context gate subtracts it from',
        " * both vectors before their cosine (recall/contextual-index.ts): USE-lite's vectors share this common",
        ' * component, which inflates and compresses raw cosines of unrelated texts.',
        ' */',
        '// prettier-ignore',
        'export const USE_LITE_MEAN: Float32Array = Float32Array.from([',
        ...rows,
        ']);',
        '',
      ].join('\n'),
    );
    console.log(`wrote ${SHIPPED}`);
  }
  const other = path.join(OUT_DIR, 'mean-no-dialogue.json');
  if (existsSync(other)) {
    const m = (JSON.parse(readFileSync(other, 'utf8')) as { mean: number[] }).mean;
    console.log(`max |difference| with context-tune.ts's mean-no-dialogue.json: ${Math.max(...m.map((x, d) => Math.abs(x - rounded[d]))).toExponential(2)}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
