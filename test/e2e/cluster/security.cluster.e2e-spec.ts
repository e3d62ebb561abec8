/**
 * The security suite of `../security.e2e-spec.ts` against cluster mode: every hostile case refused with
 * its code and nothing changed in any store, across real processes, PostgreSQL, Redis and S3. The
 * payment-credential cases run against a cluster in `security-payments.cluster.e2e-spec.ts`.
 */
process.env.E2E_MODE = 'cluster';
require('../security.e2e-spec');
