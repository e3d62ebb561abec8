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

// The OpenAPI 3.1 contract (docs/api.md, "The OpenAPI contract") and the routes the server really serves.
export { buildOpenApiDocument, type DeploymentLimits, openApiDocumentOf, type OpenApiDocument, type OpenApiOperation, type PaymentDiscovery } from './openapi/openapi-document';
export { servedRoutes, type ServedRoute } from './openapi/served-routes';
export { DASHBOARD_CSP, DASHBOARD_PATH, type DashboardOptions } from './http/dashboard';
export { UsageRecorder } from './billing/usage-recorder';
