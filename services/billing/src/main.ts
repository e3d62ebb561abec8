import { runServiceAlone } from '@agent-memory/platform';
import { BillingModule } from './billing.module';

/** The billing service as its own process, on NATS (see libs/platform/src/service-bootstrap.ts). */
runServiceAlone('billing', BillingModule).catch((err: unknown) => {
  process.stderr.write(`billing failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
