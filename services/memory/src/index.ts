export * from './memory.module';
