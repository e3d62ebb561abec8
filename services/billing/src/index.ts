export * from './billing.module';
export * from './billing.service';
