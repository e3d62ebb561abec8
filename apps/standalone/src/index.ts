export * from './standalone.app';
export * from './standalone.config';
export * from './data-check';
