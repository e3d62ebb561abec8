/**
 * The SDK's main flow of `./sdk-flow.e2e-spec.ts`, run unchanged against cluster mode: every service its own
 * process over real NATS, PostgreSQL, Redis and S3, BILLING_MODE=enforce (the test agent draws on its
 * sandbox balance). See test/support/cluster-server.ts.
 */
process.env.E2E_MODE = 'cluster';
require('./sdk-flow.e2e-spec');
