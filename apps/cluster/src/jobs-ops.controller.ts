import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type BullMqJobQueue, JOB_QUEUE } from '@agent-memory/platform';

/**
 * Operators' view of the job queues on a process's ops port (never on the public API): `GET /jobs`
 * gives the depth of every queue, `GET /jobs/failed` the dead letters (jobs that exhausted their
 * retries: name, data, last error, attempts), newest first, up to 1,000 per queue.
 */
@ApiExcludeController()
@Controller('jobs')
export class JobsOpsController {
  constructor(@Inject(JOB_QUEUE) private readonly jobs: BullMqJobQueue) {}

  @Get()
  async counts() {
    return { queues: await this.jobs.counts() };
  }

  @Get('failed')
  async failed() {
    return { failed: await this.jobs.failed() };
  }
}
