export * from './launcher-logger';
export * from './launch-app';
