import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where the dashboard is served (docs/dashboard.md). */
export const DASHBOARD_PATH = '/dashboard';

/**
 * The dashboard's Content-Security-Policy: its own scripts, styles, images and API calls only; no inline
 * script, no plugin, no framing, no form posting elsewhere (docs/dashboard.md, "Security"). Memories,
 * files and names that agents wrote are shown as text; this policy is the second wall.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";

/** The built dashboard of this repository (`npm install` builds it with tools/build-dashboard.js). */
export const DEFAULT_DASHBOARD_DIRECTORY = resolve(__dirname, '..', '..', '..', '..', 'clients', 'dashboard', 'dist');

/** Options of {@link registerDashboard}. */
export interface DashboardOptions {
  /** The built dashboard (index.html and assets/); default {@link DEFAULT_DASHBOARD_DIRECTORY} (`DASHBOARD_DIR`). */
  directory?: string;
  /**
   * The passkey relying-party id (`PASSKEY_RP_ID`). When it is `localhost`, a dashboard page asked for on
   * an IP address of this machine (127.0.0.1, [::1]) is redirected to the same page on `localhost`,
   * because WebAuthn refuses an IP address as relying party (docs/authentication.md).
   */
  passkeyRpId?: string;
}

/** True for the dashboard's own paths (`/dashboard`, `/dashboard/…`, `/dashboard?…`). */
export function isDashboardPath(url: string): boolean {
  return url === DASHBOARD_PATH || url.startsWith(`${DASHBOARD_PATH}/`) || url.startsWith(`${DASHBOARD_PATH}?`);
}

const ASSETS_PREFIX = `${DASHBOARD_PATH}/assets/`;
/** A built asset's file name as Vite writes it (`index-<hash>.js`); anything else is not an asset. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/;

/**
 * A reader of the page `file` (the build's `index.html`) that keeps its text in memory and reads it again
 * whenever the file's modification time, size or inode changes: a rebuild while the server runs
 * (tools/build-dashboard.js renames a new build into place) names new hashed assets in it, and the old
 * ones are gone. Each call costs one `stat`. Resolves to undefined when there is no such file (no build,
 * or a build being renamed into place).
 */
export function indexPageReader(file: string): () => Promise<string | undefined> {
  let cached: { version: string; html: string } | undefined;
  return async () => {
    try {
      const { mtimeMs, size, ino } = await stat(file);
      const version = `${mtimeMs}:${size}:${ino}`;
      if (cached?.version !== version) cached = { version, html: await readFile(file, 'utf8') };
      return cached.html;
    } catch {
      cached = undefined;
      return undefined;
    }
  };
}

/**
 * Serves the dashboard, a single-page app, under `/dashboard` (docs/dashboard.md): its hashed assets from
 * `<directory>/assets` (cached for a year: their names change with their content) with @fastify/static, and
 * `index.html` (not cached; read again when a rebuild changes it, {@link indexPageReader}) for
 * `/dashboard/` and every client-side route under it. Without a build the page says how to make one
 * (503). Security headers: see {@link DASHBOARD_CSP} and ./http-security.ts.
 */
export function registerDashboard(fastify: FastifyInstance, options: DashboardOptions = {}): void {
  const directory = options.directory ?? DEFAULT_DASHBOARD_DIRECTORY;
  const page = indexPageReader(join(directory, 'index.html'));

  const serveIndex = async (req: FastifyRequest, reply: FastifyReply) => {
    const host = req.headers.host ?? '';
    if (options.passkeyRpId === 'localhost' && LOOPBACK_HOST.test(host)) {
      const port = host.slice(host.lastIndexOf(']') + 1).split(':')[1];
      return reply.redirect(`http://localhost${port ? `:${port}` : ''}${req.url}`, 302);
    }
    if (req.url === DASHBOARD_PATH || req.url.startsWith(`${DASHBOARD_PATH}?`)) return reply.redirect(`${DASHBOARD_PATH}/${req.url.slice(DASHBOARD_PATH.length)}`, 301);
    const html = await page();
    if (html === undefined) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built. Run `npm run build:dashboard` (npm install does it), then reload.');
    }
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };

  fastify.get(DASHBOARD_PATH, serveIndex);
  fastify.get(`${DASHBOARD_PATH}/`, serveIndex);
  fastify.get(`${DASHBOARD_PATH}/*`, (req, reply) => {
    // an asset that is not there is 404, not the page: a stale page asking for old assets should fail loudly
    if (req.url.startsWith(ASSETS_PREFIX)) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return serveIndex(req, reply);
  });
  // without a build there is nothing to serve (the page above says so); a build made later is served after a restart
  if (!existsSync(join(directory, 'assets'))) return;
  void fastify.register(async (assets) => {
    // Only a plain file name is served (Vite's hashed names: letters, digits, `-`, `_`, `.`), checked on the
    // path as sent: `..`, encoded dots or slashes, backslashes, NUL, dot files and subdirectories are 404
    // before @fastify/static sees them (it would answer some with 403), and never reach a file outside assets/.
    assets.addHook('onRequest', (req, reply, done) => {
      const name = req.url.slice(ASSETS_PREFIX.length).split('?')[0];
      if (!ASSET_NAME.test(name)) return void reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      done();
    });
    await assets.register(fastifyStatic, {
      root: join(directory, 'assets'),
      prefix: ASSETS_PREFIX,
      decorateReply: false,
      index: false,
      dotfiles: 'deny',
      immutable: true,
      maxAge: '365d',
    });
  });
}
