export * from './standalone-server';
export * from './api-client';
