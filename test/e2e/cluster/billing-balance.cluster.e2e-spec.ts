/**
 * The prepaid-balance cases of `../billing-balance.e2e-spec.ts`, run unchanged against cluster mode: the
 * gateway reserves and commits over NATS, the billing service debits PostgreSQL (docs/billing.md).
 */
process.env.E2E_MODE = 'cluster';
require('../billing-balance.e2e-spec');
