import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { DASHBOARD_CSP, type DashboardOptions, DEFAULT_DASHBOARD_DIRECTORY, isDashboardPath, registerDashboard } from './dashboard';
import { registerHttpSecurity } from './http-security';

/**
 * How the gateway serves the dashboard (docs/dashboard.md): redirects, caching, content types, the
 * dashboard's CSP beside the API's, path traversal, a missing build. A real Fastify listener on 127.0.0.1
 * with the gateway's security hooks and {@link registerDashboard}; requests go over TCP with the path
 * exactly as written (fetch would resolve `..` before sending).
 */

const API_CSP = "default-src 'none'; frame-ancestors 'none'";
const INDEX_HTML = '<!doctype html><html><head><script type="module" src="/dashboard/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const SECRET = 'outside the assets';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with `path` sent byte for byte, and `host` as the Host header. */
async function get(port: number, path: string, host = `localhost:${port}`): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A dashboard build in a temporary directory, with files beside it that must never be served. */
function fakeBuild(): { root: string; dist: string } {
  const root = mkdtempSync(join(tmpdir(), 'dashboard-spec-'));
  const dist = join(root, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), INDEX_HTML);
  writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.js'), 'console.log("dashboard");');
  writeFileSync(join(dist, 'assets', 'index-Ef56Gh78.css'), 'body{margin:0}');
  writeFileSync(join(dist, 'assets', '.hidden'), SECRET);
  writeFileSync(join(dist, 'secret.txt'), SECRET);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ secret: SECRET }));
  return { root, dist };
}

/** The gateway's edge (security hooks), one API route and the dashboard, listening on a free port. */
async function serve(options: DashboardOptions): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify();
  registerHttpSecurity(app);
  app.get('/api/v1/ping', async () => ({ success: true, data: { pong: true } }));
  registerDashboard(app, options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port };
}

describe('the dashboard served by the gateway (docs/dashboard.md)', () => {
  let build: { root: string; dist: string };
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    build = fakeBuild();
    ({ app, port } = await serve({ directory: build.dist, passkeyRpId: 'localhost' }));
  });
  afterAll(async () => {
    await app.close();
    rmSync(build.root, { recursive: true, force: true });
  });

  it('knows its paths', () => {
    expect(['/dashboard', '/dashboard/', '/dashboard/agents/x', '/dashboard?a=1'].map(isDashboardPath)).toEqual([true, true, true, true]);
    expect(['/dashboards', '/api/v1/dashboard', '/', '/docs'].map(isDashboardPath)).toEqual([false, false, false, false]);
  });

  it('/dashboard redirects to /dashboard/ on localhost, keeping the query', async () => {
    const bare = await get(port, '/dashboard');
    expect([bare.status, bare.headers.location]).toEqual([301, '/dashboard/']);
    const query = await get(port, '/dashboard?next=%2Fkeys');
    expect([query.status, query.headers.location]).toEqual([301, '/dashboard/?next=%2Fkeys']);
    const page = await get(port, bare.headers.location as string);
    expect(page.status).toBe(200);
  });

  it('on 127.0.0.1 (or [::1]) redirects to the same path on localhost, where passkeys work', async () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/records/rec_1?tab=memory']) {
      const answer = await get(port, path, `127.0.0.1:${port}`);
      expect([path, answer.status, answer.headers.location]).toEqual([path, 302, `http://localhost:${port}${path}`]);
    }
    const v6 = await get(port, '/dashboard/keys', `[::1]:${port}`);
    expect([v6.status, v6.headers.location]).toEqual([302, `http://localhost:${port}/dashboard/keys`]);
    const noPort = await get(port, '/dashboard/', '127.0.0.1');
    expect([noPort.status, noPort.headers.location]).toEqual([302, 'http://localhost/dashboard/']);
    // the chain ends on localhost: 127.0.0.1/dashboard -> localhost/dashboard -> localhost/dashboard/ -> the page
    const next = await get(port, '/dashboard', `localhost:${port}`);
    expect([next.status, next.headers.location]).toEqual([301, '/dashboard/']);
  });

  it('does not redirect elsewhere: a Host that is not a loopback IP gets the page', async () => {
    for (const host of [`localhost:${port}`, 'memory.example.com', `127.0.0.1.evil.example:${port}`]) {
      const answer = await get(port, '/dashboard/', host);
      expect([host, answer.status, answer.headers.location]).toEqual([host, 200, undefined]);
    }
  });

  it('serves index.html for /dashboard/ and every client route, not cached, with the dashboard CSP', async () => {
    for (const path of ['/dashboard/', '/dashboard/agents', '/dashboard/records/rec_1/memory', '/dashboard/index.html']) {
      const answer = await get(port, path);
      expect([path, answer.status, answer.body]).toEqual([path, 200, INDEX_HTML]);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
  });

  it('serves hashed assets with a year of immutable cache and their content type', async () => {
    const js = await get(port, '/dashboard/assets/index-Ab12Cd34.js');
    expect([js.status, js.body]).toEqual([200, 'console.log("dashboard");']);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript; charset=utf-8$/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    const css = await get(port, '/dashboard/assets/index-Ef56Gh78.css');
    expect([css.status, css.headers['content-type'], css.headers['cache-control']]).toEqual([200, 'text/css; charset=utf-8', 'public, max-age=31536000, immutable']);
  });

  it('answers 404 (not the page) for an asset that is not there', async () => {
    const answer = await get(port, '/dashboard/assets/index-OLD00000.js');
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain('<html');
    expect(answer.headers['cache-control']).not.toContain('immutable');
  });

  it('never serves a file outside assets/: traversal, encoded traversal and dot files are 404', async () => {
    const attempts = [
      '/dashboard/assets/../../package.json',
      '/dashboard/assets/../secret.txt',
      '/dashboard/assets/%2e%2e/%2e%2e/package.json',
      '/dashboard/assets/%2E%2E/secret.txt',
      '/dashboard/assets/..%2f..%2fpackage.json',
      '/dashboard/assets/..%2F..%2Fpackage.json',
      '/dashboard/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/dashboard/assets/..%5c..%5cpackage.json',
      '/dashboard/assets/%252e%252e/%252e%252e/package.json',
      '/dashboard/assets/.%2e/.%2e/package.json',
      '/dashboard/assets/./../secret.txt',
      '/dashboard/assets//../secret.txt',
      '/dashboard/assets/.hidden',
      '/dashboard/assets/%2ehidden',
      '/dashboard/assets/index-Ab12Cd34.js%00.txt',
    ];
    for (const path of attempts) {
      const answer = await get(port, path);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.body).not.toContain(SECRET);
    }
  });

  it('never answers a traversal outside /dashboard/assets/ with a file either', async () => {
    for (const path of ['/dashboard/../package.json', '/dashboard/%2e%2e/package.json', '/dashboard/secret.txt', '/dashboard/..%2fpackage.json']) {
      const answer = await get(port, path);
      expect(answer.body).not.toContain(SECRET);
      // a client route (the page) or a refusal, never a file
      if (answer.status === 200) expect(answer.body).toBe(INDEX_HTML);
    }
  });

  it('leaves the API its own CSP and no-store', async () => {
    const api = await get(port, '/api/v1/ping');
    expect(api.status).toBe(200);
    expect(api.headers['content-security-policy']).toBe(API_CSP);
    expect(api.headers['cache-control']).toBe('no-store');
  });
});

describe('the dashboard on a deployment behind a domain (PASSKEY_RP_ID=memory.example.com)', () => {
  let build: { root: string; dist: string };
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    build = fakeBuild();
    ({ app, port } = await serve({ directory: build.dist, passkeyRpId: 'memory.example.com' }));
  });
  afterAll(async () => {
    await app.close();
    rmSync(build.root, { recursive: true, force: true });
  });

  it('does not send 127.0.0.1 to localhost (the relying party is the domain)', async () => {
    const page = await get(port, '/dashboard/', `127.0.0.1:${port}`);
    expect([page.status, page.headers.location, page.body]).toEqual([200, undefined, INDEX_HTML]);
    const bare = await get(port, '/dashboard', `127.0.0.1:${port}`);
    expect([bare.status, bare.headers.location]).toEqual([301, '/dashboard/']);
  });
});

describe('a rebuild while the server runs (tools/build-dashboard.js renames a new build into place)', () => {
  let build: { root: string; dist: string };
  let app: FastifyInstance;
  let port: number;
  const NEW_HTML = INDEX_HTML.replace('index-Ab12Cd34.js', 'index-Zz99Yy88.js');

  beforeAll(async () => {
    build = fakeBuild();
    ({ app, port } = await serve({ directory: build.dist, passkeyRpId: 'localhost' }));
  });
  afterAll(async () => {
    await app.close();
    rmSync(build.root, { recursive: true, force: true });
  });

  it('serves the new index.html, naming the new assets, which are served; the old ones are 404', async () => {
    expect((await get(port, '/dashboard/')).body).toBe(INDEX_HTML);
    // the build tool's swap: a new directory renamed over the old one
    const next = join(build.root, '.build-next');
    mkdirSync(join(next, 'assets'), { recursive: true });
    writeFileSync(join(next, 'index.html'), NEW_HTML);
    writeFileSync(join(next, 'assets', 'index-Zz99Yy88.js'), 'console.log("rebuilt");');
    renameSync(build.dist, join(build.root, 'dist.old'));
    renameSync(next, build.dist);
    rmSync(join(build.root, 'dist.old'), { recursive: true, force: true });

    for (const path of ['/dashboard/', '/dashboard/agents/agt_1']) expect([path, (await get(port, path)).body]).toEqual([path, NEW_HTML]);
    const asset = await get(port, '/dashboard/assets/index-Zz99Yy88.js');
    expect([asset.status, asset.body]).toEqual([200, 'console.log("rebuilt");']);
    expect((await get(port, '/dashboard/assets/index-Ab12Cd34.js')).status).toBe(404);
  });

  it('reads index.html again only when its modification time (or size, or inode) changes', async () => {
    const file = join(build.dist, 'index.html');
    // a whole second as modification time, so that it can be put back exactly
    const when = Math.floor(statSync(file).mtimeMs / 1000) - 60;
    utimesSync(file, when, when);
    expect((await get(port, '/dashboard/')).body).toBe(NEW_HTML);
    // the same size written in place, its modification time put back: the page in memory is still served
    const sameSize = NEW_HTML.replace('Zz99Yy88', 'Qq11Ww22');
    writeFileSync(file, sameSize);
    utimesSync(file, when, when);
    expect((await get(port, '/dashboard/')).body).toBe(NEW_HTML);
    // a newer modification time: read again
    utimesSync(file, when, when + 5);
    expect((await get(port, '/dashboard/')).body).toBe(sameSize);
  });

  it('answers 503 while index.html is missing (between the renames of a rebuild), then the page again', async () => {
    const file = join(build.dist, 'index.html');
    const html = readFileSync(file, 'utf8');
    rmSync(file);
    expect((await get(port, '/dashboard/')).status).toBe(503);
    writeFileSync(file, html);
    expect((await get(port, '/dashboard/')).body).toBe(html);
  });
});

describe('the dashboard without a build (DASHBOARD_DIR pointing to an empty directory)', () => {
  let empty: string;
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    empty = mkdtempSync(join(tmpdir(), 'dashboard-empty-'));
    ({ app, port } = await serve({ directory: empty, passkeyRpId: 'localhost' }));
  });
  afterAll(async () => {
    await app.close();
    rmSync(empty, { recursive: true, force: true });
  });

  it('answers 503 with how to build it, for the page and every client route', async () => {
    for (const path of ['/dashboard/', '/dashboard/agents']) {
      const answer = await get(port, path);
      expect([path, answer.status]).toEqual([path, 503]);
      expect(answer.body).toContain('npm run build:dashboard');
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(answer.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });

  it('answers 404 for assets, and the API still works', async () => {
    expect((await get(port, '/dashboard/assets/index-Ab12Cd34.js')).status).toBe(404);
    expect((await get(port, '/dashboard/assets/../../package.json')).status).toBe(404);
    expect((await get(port, '/api/v1/ping')).status).toBe(200);
  });
});

describe('the real build (clients/dashboard/dist, made by npm install)', () => {
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_DASHBOARD_DIRECTORY, 'index.html'))) throw new Error(`no dashboard build in ${DEFAULT_DASHBOARD_DIRECTORY}: run npm run build:dashboard`);
    ({ app, port } = await serve({ passkeyRpId: 'localhost' }));
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves every file the page names and every built asset (their names pass the asset check)', async () => {
    const index = await get(port, '/dashboard/');
    expect(index.status).toBe(200);
    const named = [...index.body.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    const built = readdirSync(join(DEFAULT_DASHBOARD_DIRECTORY, 'assets')).map((name) => `/dashboard/assets/${name}`);
    expect(built).toEqual(expect.arrayContaining(named));
    for (const path of built) {
      const answer = await get(port, path);
      expect([path, answer.status, answer.headers['cache-control']]).toEqual([path, 200, 'public, max-age=31536000, immutable']);
    }
  });

  it('has no inline script or style and loads nothing from another origin (the CSP would block it)', () => {
    const html = readFileSync(join(DEFAULT_DASHBOARD_DIRECTORY, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });
});
