export * from './gateway.module';
export * from './gateway.options';
export * from './http-app';
export * from './auth/wallet-signature';
export * from './rate-limit/redis-rate-limiters';
export * from './rate-limit/sliding-window';
export * from './auth/redis-replay-cache';
export * from './auth/replay-cache';
export * from './http/log-redaction';
export * from './http/http-security';
export * from './billing/payment.options';
export * from './billing/payment-settlement.port';
export * from './billing/chain.payment-settlement';
export * from './billing/payment-protocol';

// The Authorization header parser, for the hostile-input benchmark (bench/hostile-input.bench.ts).
export { parseAuthorization } from './auth/authorization-header';
