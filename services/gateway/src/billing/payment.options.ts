/**
 * The `Payment` scheme's options are configuration: declared once, with their `PAYMENT_*` variables, in
 * `@agent-memory/config` (docs/billing.md, "Configuration"). Re-exported here for the gateway's own files.
 */
export { defaultPaymentOptions, type PaymentEnv, PaymentEnvSchema, type PaymentOptions, paymentOptionsFromEnv, ZERO_ADDRESS } from '@agent-memory/config';
