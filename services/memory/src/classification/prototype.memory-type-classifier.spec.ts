import { MEMORY_TYPES, type MemoryType } from '@agent-memory/shared';
import type { Embedder } from '../embedding/embedder.port';
import { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import { LABELLED_MEMORIES } from './labelled-memories.fixture';
import { PrototypeMemoryTypeClassifier, TYPE_PROTOTYPES } from './prototype.memory-type-classifier';

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
    expect(prototypeCalls[0]).toHaveLength(Object.values(TYPE_PROTOTYPES).flat().length);
    const before = embedder.calls.length;
    await classifier.classify('Bob is my brother.', Float32Array.from([1, 0, 0, 0]));
    expect(embedder.calls.length).toBe(before);
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
