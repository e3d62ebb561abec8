/**
 * The security suite of `../security.e2e-spec.ts` against cluster mode: every hostile case refused with
 * its code and nothing changed in any store, across real processes, PostgreSQL, Redis and S3. The
 * payment-credential section needs a settlement injected into the gateway object and is skipped here
 * (reason printed); it runs in the standalone suite.
 */
process.env.E2E_MODE = 'cluster';
require('../security.e2e-spec');
