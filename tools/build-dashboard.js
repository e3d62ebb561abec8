'use strict';
// Builds the web dashboard (clients/dashboard, React + Vite) into clients/dashboard/dist, which the gateway
// serves at /dashboard in both run modes (docs/dashboard.md). Run by the root `postinstall` and by
// `npm start`'s prestart; a build takes a second or two. The output is written to a temporary directory
// and renamed into place, so a gateway serving meanwhile never reads half a build. A build that cannot run
// (Vite absent, e.g. `npm install --omit=dev` of an image that ships a prebuilt dist; no sources yet, as in
// the Docker image's dependency layer) is reported and does not fail the install: the gateway then answers
// /dashboard with a page that says how to build it.
const { existsSync, mkdtempSync, renameSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const dashboardRoot = join(__dirname, '..', 'clients', 'dashboard');
const outDir = join(dashboardRoot, 'dist');

async function main() {
  const config = join(dashboardRoot, 'vite.config.mts');
  if (!existsSync(config)) return console.warn('agent-memory dashboard: sources missing, skipping the build');
  let vite;
  try {
    vite = await import('vite');
  } catch {
    return console.warn('agent-memory dashboard: vite is not installed, skipping the build (run `npm install`, then `node tools/build-dashboard.js`)');
  }
  const temp = mkdtempSync(join(dashboardRoot, '.build-'));
  try {
    await vite.build({ configFile: config, logLevel: 'error', build: { outDir: temp, emptyOutDir: true } });
    const old = `${outDir}.old-${process.pid}`;
    if (existsSync(outDir)) renameSync(outDir, old);
    renameSync(temp, outDir);
    rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    console.error(`agent-memory dashboard: the build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

void main();
