export * from './files.module';
export * from './files.service';
