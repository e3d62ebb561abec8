export * from './files.module';
export * from './files.service';
export * from './files-check';
export { openFilesPrisma } from './persistence/prisma';
