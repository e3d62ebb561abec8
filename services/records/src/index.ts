export * from './records.module';
export * from './records.service';
