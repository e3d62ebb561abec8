import { runServiceAlone } from '@agent-memory/platform';
import { RecordsModule } from './records.module';

/** The records service as its own process, on NATS (see libs/platform/src/service-bootstrap.ts). */
runServiceAlone('records', RecordsModule).catch((err: unknown) => {
  process.stderr.write(`records failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
