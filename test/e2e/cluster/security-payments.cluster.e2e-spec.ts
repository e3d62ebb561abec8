/**
 * The payment-credential cases of `../security-payments.e2e-spec.ts` against cluster mode: the gateway
 * process settles through its real chain adapter on a TestChainRpcServer; every credential that does not
 * pay the call is refused and no store changes, no money moves.
 */
process.env.E2E_MODE = 'cluster';
require('../security-payments.e2e-spec');
