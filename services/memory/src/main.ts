import { join } from 'node:path';
import { runServiceAlone } from '@agent-memory/platform';
import { MemoryModule } from './memory.module';

/** The memory service as its own process, on NATS, with the local embedder and the embedded vector index. */
runServiceAlone('memory', ({ dataDir }) =>
  MemoryModule.forRoot({ embedder: { kind: 'use-lite' }, vectorIndex: { kind: 'embedded', directory: join(dataDir, 'vectors') } }),
).catch((err: unknown) => {
  process.stderr.write(`memory failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
