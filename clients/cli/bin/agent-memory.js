#!/usr/bin/env node
'use strict';
// The `agent-memory` command (clients/cli/README.md, "How it starts"). It runs the bundle that the root
// `postinstall` builds (clients/cli/dist/main.js, ~0.2 s to start) when that bundle is newer than every
// source file it was built from (./bundle-state.js); otherwise (a fresh edit, or the build was skipped)
// it runs the TypeScript source through @swc-node/register, a dev dependency: slower, always current.
// Without the bundle and without @swc-node/register (e.g. after `npm install --omit=dev`) it cannot run:
// it says how to build the bundle and exits 2. AGENT_MEMORY_CLI_FROM_SOURCE=1 forces the source;
// AGENT_MEMORY_CLI_BUNDLE=<file> runs that bundle file as is (tests build their own).
const { join } = require('node:path');
const { bundle, bundleIsCurrent, cliRoot, repoRoot } = require('./bundle-state');

/** Loads `@swc-node/register`, or explains how to get a runnable CLI and exits 2 when it is absent. */
function registerTypeScript() {
  try {
    require.resolve('@swc-node/register');
  } catch {
    process.stderr.write(
      'error: the agent-memory CLI bundle (clients/cli/dist/main.js) is missing or older than its sources, and ' +
        '@swc-node/register (a dev dependency, absent after `npm install --omit=dev`) is not installed to run the sources.\n' +
        `Build the bundle: node ${join(repoRoot, 'tools', 'build-cli.js')} --force (needs the dev dependency tsup), ` +
        'or install the dev dependencies: npm install\n',
    );
    process.exit(2);
  }
  process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || join(repoRoot, 'tsconfig.json');
  require('@swc-node/register');
}

if (process.env.AGENT_MEMORY_CLI_BUNDLE) {
  require(process.env.AGENT_MEMORY_CLI_BUNDLE);
} else if (process.env.AGENT_MEMORY_CLI_FROM_SOURCE !== '1' && bundleIsCurrent()) {
  require(bundle);
} else {
  registerTypeScript();
  require(join(cliRoot, 'src', 'main.ts'));
}
