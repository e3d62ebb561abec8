import { HealthIndicatorService } from '@nestjs/terminus';
import { OpsHealthIndicators } from './health.indicators';
import { resolveOpsOptions } from './ops.options';
import { ReadinessRegistry } from './readiness.registry';

/** Blocks the event loop for `ms` milliseconds (a synchronous busy wait). */
function blockLoop(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy
  }
}

/** Lets the loop turn so the delay monitor takes its samples. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 60));

describe('OpsHealthIndicators.eventLoop (liveness)', () => {
  let indicators: OpsHealthIndicators;

  beforeEach(() => {
    indicators = new OpsHealthIndicators(new HealthIndicatorService(), new ReadinessRegistry(), resolveOpsOptions({ service: 'liveness-test', livenessMaxEventLoopDelayMs: 150 }));
    indicators.onModuleInit();
  });

  afterEach(() => {
    indicators.onModuleDestroy();
  });

  it('does not count a stall of start-up, before the first probe', async () => {
    await turn();
    blockLoop(400);
    await turn();
    expect(indicators.eventLoop().eventLoop.status).toBe('up');
  });

  it('answers down after a stall longer than the limit since the previous probe, then up again', async () => {
    indicators.eventLoop();
    await turn();
    blockLoop(400);
    await turn();
    const down = indicators.eventLoop().eventLoop;
    expect(down.status).toBe('down');
    expect(down.maxDelayMs).toBeGreaterThanOrEqual(300);
    await turn();
    expect(indicators.eventLoop().eventLoop.status).toBe('up');
  });
});
