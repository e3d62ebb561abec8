export * from './gateway.module';
export * from './gateway.options';
export * from './http-app';
export * from './http/health.controller';
export * from './auth/wallet-signature';
