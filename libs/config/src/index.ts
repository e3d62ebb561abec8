export * from './service-options';
