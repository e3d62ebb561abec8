#!/usr/bin/env node
'use strict';
// The `agent-memory` command (clients/cli/README.md, "How it starts"). It runs the bundle that the root
// `postinstall` builds (clients/cli/dist/main.js, ~0.2 s to start) when that bundle is newer than every
// source file it was built from (./bundle-state.js); otherwise, on a fresh edit or when the build was
// skipped, it runs the TypeScript source through @swc-node/register (slower, always current).
// AGENT_MEMORY_CLI_FROM_SOURCE=1 forces the source.
const { join } = require('node:path');
const { bundle, bundleIsCurrent, cliRoot, repoRoot } = require('./bundle-state');

if (process.env.AGENT_MEMORY_CLI_FROM_SOURCE !== '1' && bundleIsCurrent()) {
  require(bundle);
} else {
  process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || join(repoRoot, 'tsconfig.json');
  require('@swc-node/register');
  require(join(cliRoot, 'src', 'main.ts'));
}
