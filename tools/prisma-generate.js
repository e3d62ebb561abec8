#!/usr/bin/env node
/**
 * Generates each service's Prisma Client from `services/<svc>/prisma/schema.prisma`, offline: the
 * Prisma CLI wants a native schema engine it cannot download here, and `generate` does not use it, so
 * PRISMA_SCHEMA_ENGINE_BINARY points at any existing file. Skips a service whose client is newer than
 * its schema. Migrations are SQL files applied by our own runner (libs/platform/src/database/migrate.ts).
 */
const { execFileSync } = require('node:child_process');
const { existsSync, statSync, readdirSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const force = process.argv.includes('--force');
for (const svc of readdirSync(join(root, 'services'))) {
  const schema = join(root, 'services', svc, 'prisma', 'schema.prisma');
  if (!existsSync(schema)) continue;
  const marker = join(root, 'services', svc, 'src', 'persistence', 'generated', 'client.ts');
  if (!force && existsSync(marker) && statSync(marker).mtimeMs >= statSync(schema).mtimeMs) continue;
  execFileSync(process.execPath, [require.resolve('prisma/build/index.js'), 'generate', '--schema', schema], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
  });
  console.log(`prisma client generated for ${svc}`);
}
