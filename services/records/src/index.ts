export * from './records.module';
