'use strict';
// Builds the CLI bundle clients/cli/dist/main.js with tsup (run by the root `postinstall`; see
// clients/cli/README.md, "How it starts"). Only our workspace code (the CLI, the SDK, libs/shared) is
// bundled; every npm package stays an external require, loaded when a command needs it. A failed or
// impossible build (tsup absent, e.g. `npm install --omit=dev`) is reported and does not fail the
// install: bin/agent-memory.js then runs the TypeScript source. (It lives in tools/ because the Docker
// image's dependency layer installs with package manifests and tools/ only, before any source.)
const { join } = require('node:path');

const repoRoot = join(__dirname, '..');
const cliRoot = join(repoRoot, 'clients', 'cli');

async function main() {
  let tsup;
  try {
    tsup = require('tsup');
  } catch {
    console.warn('agent-memory CLI: tsup is not installed, skipping the bundle (the CLI runs from source)');
    return;
  }
  await tsup.build({
    entry: { main: join(cliRoot, 'src', 'main.ts') },
    outDir: join(cliRoot, 'dist'),
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    tsconfig: join(repoRoot, 'tsconfig.json'),
    skipNodeModulesBundle: true,
    splitting: false,
    sourcemap: false,
    clean: true,
    dts: false,
    silent: true,
  });
}

main().catch((error) => {
  console.warn(`agent-memory CLI: bundle not built (${error instanceof Error ? error.message : String(error)}); the CLI runs from source`);
});
