import { MEMORY_TYPES, type MemoryType } from '@agent-memory/shared';
import { regexComplexityProblems } from '@agent-memory/testing';
import type { Embedder } from '../embedding/embedder.port';
import { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import { EMBEDDING_CHUNK_CHARS } from '../recall/document-embedding';
import { LABELLED_MEMORIES } from './labelled-memories.fixture';
import { CUE_WINDOW_CHARS, PrototypeMemoryTypeClassifier, SPEAKER_LABEL, TYPE_CUES, TYPE_PROTOTYPES } from './prototype.memory-type-classifier';

/** Every text gets the same unit vector, so all cosines tie and only the lexical cues decide. */
class ConstantEmbedder implements Embedder {
  readonly id = 'constant@4';
  readonly dimension = 4;
  calls: string[][] = [];
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map(() => Float32Array.from([0.5, 0.5, 0.5, 0.5]));
  }
}

describe('PrototypeMemoryTypeClassifier with use-lite@512', () => {
  const embedder = new UseLiteEmbedder();
  const classifier = new PrototypeMemoryTypeClassifier(embedder);
  afterAll(() => embedder.close());

  it.each(MEMORY_TYPES.map((type) => [type]))('classifies three clear %s examples', async (type) => {
    const clear = LABELLED_MEMORIES.filter((m) => m.type === type && m.set === 'tuning').slice(0, 3);
    expect(clear).toHaveLength(3);
    const got = await Promise.all(clear.map((m) => classifier.classify(m.text)));
    expect(got).toEqual([type, type, type]);
  });

  it('reaches at least 80 % accuracy on the labelled set, holdout included', async () => {
    const vectors = await embedder.embed(LABELLED_MEMORIES.map((m) => m.text));
    const results = await Promise.all(LABELLED_MEMORIES.map((m, i) => classifier.classify(m.text, vectors[i])));
    const correct = (set: string) =>
      LABELLED_MEMORIES.filter((m, i) => m.set === set && results[i] === m.type).length;
    const total = (set: string) => LABELLED_MEMORIES.filter((m) => m.set === set).length;
    const errors = LABELLED_MEMORIES.flatMap((m, i) => (results[i] === m.type ? [] : [`${m.type} → ${results[i]}: ${m.text}`]));
    const accuracy = (correct('tuning') + correct('holdout')) / LABELLED_MEMORIES.length;
    process.stdout.write(
      `classifier accuracy ${(accuracy * 100).toFixed(1)} % (tuning ${correct('tuning')}/${total('tuning')}, ` +
        `holdout ${correct('holdout')}/${total('holdout')})\n  ${errors.join('\n  ')}\n`,
    );
    expect(LABELLED_MEMORIES.length).toBeGreaterThanOrEqual(30);
    expect(accuracy).toBeGreaterThanOrEqual(0.8);
    expect(correct('holdout') / total('holdout')).toBeGreaterThanOrEqual(0.75);
  });

  it('does not classify a prototype sentence as another type (prototypes are coherent)', async () => {
    for (const type of MEMORY_TYPES) {
      const got = await Promise.all(TYPE_PROTOTYPES[type].map((text) => classifier.classify(text)));
      expect(got.filter((t) => t === type).length).toBeGreaterThanOrEqual(TYPE_PROTOTYPES[type].length - 1);
    }
  });
});

describe('PrototypeMemoryTypeClassifier mechanics', () => {
  it.each<[string, MemoryType]>([
    ['My name is Ines.', 'identity'],
    ["I'm a dentist in Porto.", 'identity'],
    ['Bob is my brother.', 'relationship'],
    ['Kai works with Lina.', 'relationship'],
    ['Yesterday we went hiking.', 'episode'],
    ['The build broke 3 days ago.', 'episode'],
    ['How to bake bread: mix, knead, then rest.', 'skill'],
    ['To release, run make tag.', 'skill'],
    ['The sky is blue.', 'fact'],
    ['Coffee costs 2 euros.', 'fact'],
  ])('lets the lexical cues decide when cosines tie: %j → %s', async (text, type) => {
    await expect(new PrototypeMemoryTypeClassifier(new ConstantEmbedder()).classify(text)).resolves.toBe(type);
  });

  it('builds the prototypes once, in one embed call, and reuses a passed embedding', async () => {
    const embedder = new ConstantEmbedder();
    const classifier = new PrototypeMemoryTypeClassifier(embedder);
    await Promise.all([classifier.classify('a'), classifier.classify('b')]);
    const prototypeCalls = embedder.calls.filter((c) => c.length > 1);
    expect(prototypeCalls).toHaveLength(1);
    // Each prototype twice: as written and as a dialogue turn ("<speaker>: <prototype>").
    const examples = Object.values(TYPE_PROTOTYPES).flat();
    expect(prototypeCalls[0]).toHaveLength(2 * examples.length);
    expect(prototypeCalls[0].slice(examples.length).every((text, i) => text.endsWith(`: ${examples[i]}`) && SPEAKER_LABEL.test(text))).toBe(true);
    const before = embedder.calls.length;
    await classifier.classify('Bob is my brother.', Float32Array.from([1, 0, 0, 0]));
    expect(embedder.calls.length).toBe(before);
  });

  it.each<[string, MemoryType]>([
    // LoCoMo-shaped dialogue turns: the speaker label and the names in a turn make no relationship.
    ['Caroline: Pottery is my favourite way to relax.', 'fact'],
    ['Caroline: Melanie and I went hiking yesterday.', 'episode'],
    ['Jon: Gina is my business partner now.', 'relationship'],
    ['Melanie: To keep clay from cracking, let it dry slowly.', 'skill'],
    ['Nate: My name is Nate and I am a gamer.', 'identity'],
  ])('reads a dialogue turn without its speaker label: %j → %s', async (text, type) => {
    await expect(new PrototypeMemoryTypeClassifier(new ConstantEmbedder()).classify(text)).resolves.toBe(type);
  });

  it('recognises a speaker label only at the start, one or two capitalised words then ": "', () => {
    expect(SPEAKER_LABEL.exec('Caroline: I went to a support group.')?.[0]).toBe('Caroline: ');
    expect(SPEAKER_LABEL.exec("Mary-Jane O'Neil: hello")?.[0]).toBe("Mary-Jane O'Neil: ");
    expect(SPEAKER_LABEL.test('The reason: it rained.')).toBe(false);
    expect(SPEAKER_LABEL.test('caroline: lower case')).toBe(false);
    expect(SPEAKER_LABEL.test('I said: Caroline: hi')).toBe(false);
    expect(SPEAKER_LABEL.test('Caroline:no space')).toBe(false);
  });

  it('treats empty content as a fact without embedding, and rejects an embedding of the wrong size', async () => {
    const embedder = new ConstantEmbedder();
    const classifier = new PrototypeMemoryTypeClassifier(embedder);
    await expect(classifier.classify('   ')).resolves.toBe('fact');
    expect(embedder.calls).toHaveLength(0);
    await expect(classifier.classify('x', new Float32Array(3))).rejects.toThrow(/3 dimensions/);
  });

  it('retries building the prototypes after an embedder failure', async () => {
    const embedder = new ConstantEmbedder();
    const embed = jest.spyOn(embedder, 'embed').mockRejectedValueOnce(new Error('model down'));
    const classifier = new PrototypeMemoryTypeClassifier(embedder);
    await expect(classifier.classify('x', Float32Array.from([1, 0, 0, 0]))).rejects.toThrow('model down');
    await expect(classifier.classify('x', Float32Array.from([1, 0, 0, 0]))).resolves.toBe('fact');
    expect(embed).toHaveBeenCalledTimes(2);
  });
});

/** Memory content limit (bytes of UTF-8); every hostile shape below is about this size. */
const CONTENT_BYTES = 50 * 1024;
const fill = (unit: string, bytes = CONTENT_BYTES) => unit.repeat(Math.floor(bytes / Buffer.byteLength(unit)));

/** Every regular expression behind the cues, named `type[index]`. */
function cuePatterns(): Record<string, RegExp> {
  const out: Record<string, RegExp> = {};
  for (const [type, cues] of Object.entries(TYPE_CUES)) {
    cues.forEach((cue, i) => {
      const patterns = cue instanceof RegExp ? [cue] : (cue as unknown as { patterns: RegExp[] }).patterns;
      patterns.forEach((pattern, j) => (out[`${type}[${i}]${patterns.length > 1 ? `.${j}` : ''}`] = pattern));
    });
  }
  return out;
}

describe('PrototypeMemoryTypeClassifier on hostile input (linear time, sane results)', () => {
  it('has only cue patterns that recheck proves linear (no ReDoS)', () => {
    const patterns = { ...cuePatterns(), SPEAKER_LABEL };
    expect(Object.keys(patterns).length).toBeGreaterThanOrEqual(19);
    expect(regexComplexityProblems(patterns)).toEqual([]);
  });

  it('hands the cues at most CUE_WINDOW_CHARS characters of a 50 KB memory', async () => {
    const patterns = new Set(Object.values(cuePatterns()));
    const seen: number[] = [];
    const exec = RegExp.prototype.exec;
    const spy = jest.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, input: string) {
      if (patterns.has(this)) seen.push(input.length);
      return exec.call(this, input);
    });
    try {
      const classifier = new PrototypeMemoryTypeClassifier(new ConstantEmbedder());
      await classifier.classify(fill('The office is in Berlin. '), Float32Array.from([0.5, 0.5, 0.5, 0.5]));
    } finally {
      spy.mockRestore();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(CUE_WINDOW_CHARS).toBeLessThanOrEqual(4_000);
    expect(Math.max(...seen)).toBeLessThanOrEqual(CUE_WINDOW_CHARS);
  });

  it('ignores a cue that only appears beyond the window', async () => {
    const classifier = new PrototypeMemoryTypeClassifier(new ConstantEmbedder());
    const padding = fill('The sky is blue. ', CUE_WINDOW_CHARS + 100);
    await expect(classifier.classify(`How to bake bread: mix, knead, then rest. ${padding}`)).resolves.toBe('skill');
    await expect(classifier.classify(`${padding} How to bake bread: mix, knead, then rest.`)).resolves.toBe('fact');
  });

  it('embeds long content in chunks when no embedding is given (the model never gets 50 KB at once)', async () => {
    const embedder = new ConstantEmbedder();
    await new PrototypeMemoryTypeClassifier(embedder).classify(fill('Bob is my brother. '));
    const contentCalls = embedder.calls.filter((texts) => !texts.includes(TYPE_PROTOTYPES.fact[0]));
    expect(contentCalls.length).toBe(1);
    expect(Math.max(...contentCalls.flat().map((t) => t.length))).toBeLessThanOrEqual(EMBEDDING_CHUNK_CHARS);
  });

  it.each<[string, string, MemoryType]>([
    ['50 KB of newlines after a word', 'x' + fill('\n', CONTENT_BYTES - 1), 'fact'],
    ['50 KB of CRLF after a word', 'x' + fill('\r\n', CONTENT_BYTES - 1), 'fact'],
    ['50 KB of " \\n" after a word', 'x' + fill(' \n', CONTENT_BYTES - 1), 'fact'],
    ['50 KB of spaces after a word', 'x' + fill(' ', CONTENT_BYTES - 1), 'fact'],
    ['mixed Unicode whitespace', 'x' + fill(' \t\u00a0\u2028\u3000\r\n', CONTENT_BYTES - 1), 'fact'],
    ['one 50 KB token', fill('a'), 'fact'],
    ['50 KB of emoji', fill('😀'), 'fact'],
    ['50 KB of CJK', fill('漢字かなカナ'), 'fact'],
    ['50 KB of punctuation', fill('.,;:!?-()'), 'fact'],
    ['"first " repeated', fill('first '), 'fact'],
    ['"then " repeated', fill('then '), 'fact'],
    ['numbered lines', fill('1. \n'), 'skill'],
    ['indented numbered lines after newlines', 'Steps:' + fill('\n'.repeat(40) + '   2) go'), 'skill'],
    ['a how-to, then 50 KB of newlines', 'How to reset a password' + fill('\n', CONTENT_BYTES - 30), 'skill'],
    ['first/then on one line after many "first"', fill('first ', 1000) + 'then', 'skill'],
    ['first and then on different lines', 'first\n' + fill('x ', 1000) + '\nthen', 'fact'],
  ])('classifies %s sanely', async (_name, content, type) => {
    const classifier = new PrototypeMemoryTypeClassifier(new ConstantEmbedder());
    await expect(classifier.classify(content, Float32Array.from([0.5, 0.5, 0.5, 0.5]))).resolves.toBe(type);
  });
});
