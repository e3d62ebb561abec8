import { runServiceAlone } from '@agent-memory/platform';
import { FilesModule } from './files.module';

/** The files service as its own process, on NATS (see libs/platform/src/service-bootstrap.ts). */
runServiceAlone('files', FilesModule).catch((err: unknown) => {
  process.stderr.write(`files failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
