import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Recall quality on data that is not a conversation: the labelled paraphrase set of
 * `services/memory/src/recall/fixtures/paraphrase-set.json` (unrelated memories, each with 1 to 2 questions
 * that share few words with it), stored over HTTP in a seeded random order into one record, then every
 * question recalled once. Shared by test/e2e/recall-paraphrase.e2e-spec.ts (which holds a floor) and
 * bench/paraphrase.bench.ts (which prints the figures).
 */

/** One labelled memory of the set: `id` is used as its path, so a recalled path names the memory. */
export interface ParaphraseMemory {
  id: string;
  content: string;
  questions: string[];
}

/** Where the fixture lives (repository-relative: the recall path's tests own it). */
export const PARAPHRASE_SET_PATH = resolve(__dirname, '..', '..', 'services', 'memory', 'src', 'recall', 'fixtures', 'paraphrase-set.json');

/** The labelled memories of the fixture, in file order. */
export function loadParaphraseSet(): ParaphraseMemory[] {
  return (JSON.parse(readFileSync(PARAPHRASE_SET_PATH, 'utf8')) as { memories: ParaphraseMemory[] }).memories;
}

/** A deterministic permutation of `items` (Fisher–Yates driven by mulberry32 seeded with `seed`). */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Result of one run: recall@k as fractions in [0, 1], and the questions missed at k = 3. */
export interface ParaphraseRecall {
  memories: number;
  questions: number;
  recallAt: { 1: number; 3: number; 5: number };
  missedAt3: { question: string; expected: string; got: string[] }[];
}

async function post<T>(baseUrl: string, path: string, body: unknown, key?: string): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${baseUrl.replace(/\/$/, '')}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await res.json()) as { success: boolean; data: T; error?: { code: string; message: string } };
  if (!json.success) throw new Error(`${path}: HTTP ${res.status} ${json.error?.code}: ${json.error?.message}`);
  return json.data;
}

/**
 * Creates an agent on the server at `baseUrl` (rate limits must be off: ~110 writes to one record),
 * remembers every memory of the set one at a time in the order `seededShuffle(set, seed)` with path =
 * its id, then recalls every question (limit 5) and counts a hit at k when the memory's path is among the
 * first k results. Throws on any error envelope.
 */
export async function measureParaphraseRecall(baseUrl: string, seed = 20_261_125): Promise<ParaphraseRecall> {
  const set = loadParaphraseSet();
  const agent = await post<{ agentKey: string; recordId: string }>(baseUrl, '/api/v1/agents', { name: 'paraphrase-set' });
  const base = `/api/v1/records/${agent.recordId}`;
  for (const memory of seededShuffle(set, seed)) {
    await post(baseUrl, `${base}/remember`, { content: memory.content, path: memory.id }, agent.agentKey);
  }
  const hits = { 1: 0, 3: 0, 5: 0 };
  const missedAt3: ParaphraseRecall['missedAt3'] = [];
  let questions = 0;
  for (const memory of set) {
    for (const question of memory.questions) {
      questions++;
      const { memories } = await post<{ memories: { path: string }[] }>(baseUrl, `${base}/recall`, { query: question, limit: 5 }, agent.agentKey);
      const rank = memories.findIndex((m) => m.path === memory.id);
      for (const k of [1, 3, 5] as const) if (rank >= 0 && rank < k) hits[k]++;
      if (rank < 0 || rank >= 3) missedAt3.push({ question, expected: memory.content, got: memories.slice(0, 3).map((m) => m.path) });
    }
  }
  return {
    memories: set.length,
    questions,
    recallAt: { 1: hits[1] / questions, 3: hits[3] / questions, 5: hits[5] / questions },
    missedAt3,
  };
}
