/**
 * Helpers that start the whole system for end-to-end suites and benchmarks: the standalone launcher in
 * process, a cluster of processes, either by E2E_MODE, and the payment and wallet helpers that speak the
 * gateway's protocol (docs/billing.md, docs/authentication.md). They import the launchers and the gateway,
 * which libs/testing (infrastructure only) may not; see docs/architecture.md, "Processes".
 */
export * from './standalone-server';
export * from './e2e-server';
export * from './cluster-server';
export * from './payments';
export * from './test-chain';
export * from './wallets';
export * from './paraphrase-recall';
export * from './browser';
