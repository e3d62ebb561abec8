#!/usr/bin/env node
'use strict';
// The `agent-memory` command (clients/cli/README.md, "How it starts"). It runs the bundle that the root
// `postinstall` builds (clients/cli/dist/main.js, ~0.1-0.2 s to start) when that bundle is newer than every
// source file it was built from (the CLI, the SDK and libs/shared); otherwise, on a fresh edit or when the
// build was skipped, it runs the TypeScript source through @swc-node/register (slower, always current).
// AGENT_MEMORY_CLI_FROM_SOURCE=1 forces the source.
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

function bundleIsCurrent() {
  if (process.env.AGENT_MEMORY_CLI_FROM_SOURCE === '1') return false;
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  return SOURCE_DIRS.every((dir) => newestSource(dir) <= built);
}

if (bundleIsCurrent()) {
  require(bundle);
} else {
  process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || join(repoRoot, 'tsconfig.json');
  require('@swc-node/register');
  require(join(cliRoot, 'src', 'main.ts'));
}
