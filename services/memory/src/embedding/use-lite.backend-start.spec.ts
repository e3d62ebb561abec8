import * as tfCore from '@energetic-ai/core';
import { loadUseLiteRunner } from './use-lite.embedder';

/** The parts of tfjs's engine this test reaches into: the registered backend factories. */
interface EngineInternals {
  registryFactory: Record<string, { factory: () => Promise<unknown>; priority: number }>;
  setBackend(name: string): Promise<boolean>;
}

// A file of its own: the engine is per test file, and this one must start its wasm backend here.
describe('loadUseLiteRunner and the start of the wasm backend', () => {
  it('loads when the backend starts after the weights are read (a loaded machine)', async () => {
    const engine = (tfCore as unknown as { engine(): EngineInternals }).engine();
    const entry = engine.registryFactory['wasm'];
    if (!entry) throw new Error('tfjs registered no wasm backend');
    const start = entry.factory;
    let started = false;
    // Importing tfjs starts the backend; it starts again here and comes up a second late, far after
    // `loadGraphModel` has read the model's files.
    entry.factory = () =>
      new Promise((resolve, reject) =>
        setTimeout(() => {
          started = true;
          start().then(resolve, reject);
        }, 1_000),
      );
    const restarted = engine.setBackend('wasm');
    const runner = await loadUseLiteRunner();
    expect(await restarted).toBe(true);
    try {
      expect(started).toBe(true);
      const [vector] = await runner.run(['The backup tapes go to the off-site vault every Friday.']);
      expect(vector).toHaveLength(512);
      expect(Math.hypot(...Array.from(vector ?? []))).toBeGreaterThan(0);
    } finally {
      runner.dispose();
    }
  });
});
