import { PassThrough } from 'node:stream';
import { createProgress, EtaEstimator } from './progress';

describe('EtaEstimator', () => {
  it('estimates from the pace of the recent items, never below the floor', () => {
    let now = 0;
    const eta = new EtaEstimator(3, () => now);
    expect(eta.secondsLeft(10)).toBeUndefined();
    expect(eta.secondsLeft(10, 20)).toBe(20);
    for (const t of [0, 100, 200, 2200, 4200]) {
      now = t;
      eta.tick();
    }
    // the window holds the last 3 (200, 2200, 4200): 2 s per item
    expect(eta.secondsLeft(10)).toBe(20);
    expect(eta.secondsLeft(10, 60)).toBe(60);
  });
});

describe('createProgress without a terminal', () => {
  it('prints plain lines: at the start, on a status, at the end; not on every item', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    let text = '';
    (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (text += chunk.toString()));
    const progress = createProgress({ label: 'import', total: 3, initial: 0, eta: () => 90, stream, plainEveryMs: 60_000 });
    progress.update(1);
    progress.update(2, 'rate limited: waiting 5 s (Retry-After)');
    progress.update(3);
    progress.stop();
    expect(text.trim().split('\n')).toEqual([
      'import: 0/3 (ETA 1 min 30 s)',
      'import: 2/3 (ETA 1 min 30 s) rate limited: waiting 5 s (Retry-After)',
      'import: 3/3 (done)',
    ]);
  });
});
