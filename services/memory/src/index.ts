export * from './memory.module';
export * from './vector-index/vector-index.message-handler';
export * from './use-cases/check-memories';
