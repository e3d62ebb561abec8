'use strict';
// Builds the CLI bundle clients/cli/dist/main.js with tsup (run by the root `postinstall`; see
// clients/cli/README.md, "How it starts"). Only our workspace code (the CLI, the SDK, libs/shared) is
// bundled; every npm package stays an external require, loaded when a command needs it. Skipped when the
// bundle is already newer than every source (`--force` builds anyway). The bundle is written to a
// temporary directory and renamed into place, so a CLI starting meanwhile never reads half a file.
// A failed or impossible build (tsup absent, e.g. `npm install --omit=dev`; no sources yet, as in the
// Docker image's dependency layer, which installs with package manifests and tools/ only) is reported
// and does not fail the install. bin/agent-memory.js then runs the TypeScript source through
// @swc-node/register when that dev dependency is installed; without it (`--omit=dev`) the bin says how
// to build the bundle and exits 2, so build it where the dev dependencies are: `node tools/build-cli.js`.
// `--out <file>` builds (always) into that file instead, e.g. a test's own bundle (it must lie inside the
// repository, so the bundle's external requires find node_modules); run it with AGENT_MEMORY_CLI_BUNDLE.
const { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');

const repoRoot = join(__dirname, '..');
const cliRoot = join(repoRoot, 'clients', 'cli');

const outIndex = process.argv.indexOf('--out');
const outFile = outIndex === -1 ? undefined : resolve(process.argv[outIndex + 1]);

async function main() {
  let state;
  let tsup;
  try {
    state = require(join(cliRoot, 'bin', 'bundle-state.js'));
    if (outFile === undefined && !process.argv.includes('--force') && state.bundleIsCurrent()) return;
    tsup = require('tsup');
  } catch {
    console.warn('agent-memory CLI: sources or tsup missing, skipping the bundle (the CLI runs from source)');
    if (outFile !== undefined) process.exitCode = 1;
    return;
  }
  // the bundle is dated when its build started: a source edited during the build stays newer than it
  const started = new Date();
  const target = outFile ?? state.bundle;
  mkdirSync(dirname(target), { recursive: true });
  const temp = mkdtempSync(join(dirname(target), '.build-'));
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
    renameSync(join(temp, 'main.js'), target);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  if (outFile !== undefined) {
    console.error(`agent-memory CLI: bundle ${outFile} not built: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return;
  }
  console.warn(`agent-memory CLI: bundle not built (${error instanceof Error ? error.message : String(error)}); the CLI runs from source`);
});
