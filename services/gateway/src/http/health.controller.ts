import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

export const READINESS_PROBE = Symbol('ReadinessProbe');
/** What readiness checks: the launcher supplies one that pings the services it depends on. */
export type ReadinessProbe = () => Promise<Record<string, 'up' | 'down'>>;

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: its dependencies answer). */
@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(@Inject(READINESS_PROBE) private readonly probe: ReadinessProbe) {}

  @Get('healthz')
  health() {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready() {
    const checks = await this.probe();
    const ready = Object.values(checks).every((s) => s === 'up');
    if (!ready) throw Object.assign(new Error('not ready'), { readiness: checks });
    return { status: 'ready', checks };
  }
}

