/**
 * The parts of `@energetic-ai/embeddings`' `Tokenizer` (0.2.0) that {@link WindowedUseLiteTokenizer}
 * reads: its vocabulary (`[piece, log-probability]` by id) and the trie of those pieces.
 */
export interface UseLiteTokenizerParts {
  readonly vocabulary: ReadonlyArray<readonly [string, number]>;
  readonly trie: {
    /** Every vocabulary piece that is a prefix of `symbols`, shortest first, as `[symbols, score, id]`. */
    commonPrefixSearch(symbols: string[]): [string[], number, number][];
  };
}

/** SentencePiece's word-boundary mark, which replaces every space (and starts the text). */
const SEPARATOR = '\u2581';

/**
 * The Universal Sentence Encoder lite tokeniser (SentencePiece unigram segmentation, Kudo 2018, as the
 * TensorFlow.js port of Google's `universal-sentence-encoder` implements it), in time linear in the text.
 *
 * `@energetic-ai/embeddings` 0.2.0 searches the vocabulary trie from every position with
 * `symbols.slice(i)`, copying the rest of the text each time: quadratic (a 1,000-character chunk cost
 * ~4 ms, 8 chunks of a 50 KB memory ~33 ms of CPU). No piece is longer than the longest vocabulary
 * entry, so this class hands the same trie a window of that many symbols; everything else (NFKC, the
 * separator, the Viterbi pass in the same order with the same tie rule, the walk back by the vocabulary
 * entry's UTF-16 length, merging runs of unknown pieces) follows the package's `Tokenizer.encode`, so the
 * ids are the same (use-lite.tokenizer.spec.ts compares them on many texts).
 */
export class WindowedUseLiteTokenizer {
  /** Length in symbols (code points) of the longest vocabulary piece. */
  readonly window: number;

  constructor(private readonly parts: UseLiteTokenizerParts) {
    let longest = 1;
    for (const [piece] of parts.vocabulary) longest = Math.max(longest, [...piece].length);
    this.window = longest;
  }

  /** Vocabulary ids of `text` (empty for the empty string). */
  encode(text: string): number[] {
    const normalised = text.normalize('NFKC');
    const input = normalised.length > 0 ? SEPARATOR + normalised.replace(/ /g, SEPARATOR) : normalised;
    const symbols = [...input];
    const n = symbols.length;
    // best[end]: score of the best segmentation of symbols[0, end); words[end]: id of its last piece.
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    // Forward over start positions: every piece into `end` is scored once best[start] is final, in
    // ascending start order, which is the order in which the package visits them.
    for (let start = 0; start < n; start++) {
      for (const [key, score, id] of this.parts.trie.commonPrefixSearch(symbols.slice(start, start + this.window))) {
        const end = start + key.length;
        const total = score + best[start];
        if (best[end] === 0 || total >= best[end]) {
          best[end] = total;
          words[end] = id;
        }
      }
    }
    const reversed: number[] = [];
    for (let at = n; at > 0; at -= this.parts.vocabulary[words[at]][0].length) reversed.push(words[at]);
    const ids: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === 0)) ids.push(id);
      previousUnknown = id === 0;
    }
    return ids.reverse();
  }
}
