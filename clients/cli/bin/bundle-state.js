'use strict';
// Where the CLI bundle is and whether it is current: newer than every source file it is built from (the
// CLI, the SDK and libs/shared). Used by bin/agent-memory.js (run the bundle or the source) and by
// tools/build-cli.js (build only when needed). See clients/cli/README.md, "How it starts".
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const cliRoot = join(__dirname, '..');
const repoRoot = join(cliRoot, '..', '..');
const bundle = join(cliRoot, 'dist', 'main.js');
const SOURCE_DIRS = ['clients/cli/src', 'clients/typescript/src', 'libs/shared/src'].map((d) => join(repoRoot, d));

/** Latest modification time (ms) of any .ts file under `dir`, or 0 when there is none. */
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** True when the bundle exists and no source file is newer. */
function bundleIsCurrent() {
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  return SOURCE_DIRS.every((dir) => newestSource(dir) <= built);
}

module.exports = { cliRoot, repoRoot, bundle, bundleIsCurrent };
