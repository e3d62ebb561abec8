/**
 * The standalone end-to-end cases of `../storage-quotas.e2e-spec.ts` (per-agent storage quotas), run
 * unchanged against cluster mode: memory and files in their own processes over real NATS, PostgreSQL and
 * S3. See test/support/cluster-server.ts.
 */
process.env.E2E_MODE = 'cluster';
require('../storage-quotas.e2e-spec');
