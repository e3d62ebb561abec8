/**
 * The standalone end-to-end cases of `../memory-files.e2e-spec.ts`, run unchanged against cluster mode: every
 * service its own process over real NATS (JetStream), PostgreSQL, Redis and S3 (the same
 * cases in both modes). See test/support/cluster-server.ts.
 */
process.env.E2E_MODE = 'cluster';
require('../memory-files.e2e-spec');
