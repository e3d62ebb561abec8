export * from './files.module';
export * from './files-check';
export { FILES_PRISMA, openFilesPrisma } from './persistence/prisma';
export { PrismaFilesRepository } from './persistence/prisma-files.repository';
