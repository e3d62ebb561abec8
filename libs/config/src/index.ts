export * from './payment-options';
export * from './service-options';
export * from './module-options';
