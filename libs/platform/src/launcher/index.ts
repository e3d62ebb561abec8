export * from './launcher-logger';
export * from './listen-url';
export * from './log-format';
export * from './launch-app';
