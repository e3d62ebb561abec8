import { runServiceAlone } from '@agent-memory/platform';
import { AgentsModule } from './agents.module';

/** The agents service as its own process, on NATS (see libs/platform/src/service-bootstrap.ts). */
runServiceAlone('agents', () => AgentsModule.forRoot({ keyPrefix: 'amk' })).catch((err: unknown) => {
  process.stderr.write(`agents failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
