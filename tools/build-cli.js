'use strict';
// Builds the CLI bundle clients/cli/dist/main.js with tsup (run by the root `postinstall`; see
// clients/cli/README.md, "How it starts"). Only our workspace code (the CLI, the SDK, libs/shared) is
// bundled; every npm package stays an external require, loaded when a command needs it. Skipped when the
// bundle is already newer than every source (`--force` builds anyway). The bundle is written to a
// temporary directory and renamed into place, so a CLI starting meanwhile never reads half a file.
// A failed or impossible build (tsup absent, e.g. `npm install --omit=dev`; no sources yet, as in the
// Docker image's dependency layer, which installs with package manifests and tools/ only) is reported
// and does not fail the install: bin/agent-memory.js then runs the TypeScript source.
const { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync } = require('node:fs');
const { join } = require('node:path');

const repoRoot = join(__dirname, '..');
const cliRoot = join(repoRoot, 'clients', 'cli');

async function main() {
  let state;
  let tsup;
  try {
    state = require(join(cliRoot, 'bin', 'bundle-state.js'));
    if (!process.argv.includes('--force') && state.bundleIsCurrent()) return;
    tsup = require('tsup');
  } catch {
    console.warn('agent-memory CLI: sources or tsup missing, skipping the bundle (the CLI runs from source)');
    return;
  }
  // the bundle is dated when its build started: a source edited during the build stays newer than it
  const started = new Date();
  mkdirSync(join(cliRoot, 'dist'), { recursive: true });
  const temp = mkdtempSync(join(cliRoot, 'dist', '.build-'));
  try {
    await tsup.build({
      entry: { main: join(cliRoot, 'src', 'main.ts') },
      outDir: temp,
      format: ['cjs'],
      platform: 'node',
      target: 'node20',
      tsconfig: join(repoRoot, 'tsconfig.json'),
      skipNodeModulesBundle: true,
      splitting: false,
      sourcemap: false,
      dts: false,
      silent: true,
    });
    utimesSync(join(temp, 'main.js'), started, started);
    renameSync(join(temp, 'main.js'), state.bundle);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.warn(`agent-memory CLI: bundle not built (${error instanceof Error ? error.message : String(error)}); the CLI runs from source`);
});
