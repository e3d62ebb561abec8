export * from './cluster.config';
export * from './cluster.app';
export * from './migrate.command';
export * from './data-check.command';
