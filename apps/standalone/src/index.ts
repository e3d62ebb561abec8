export * from './standalone.app';
export * from './standalone.config';
