import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OPS_NO_CACHE, OpsEndpoints } from './ops-endpoints';
import { OPS_OPTIONS, type ResolvedOpsOptions } from './ops.options';

/**
 * The separate ops listener of a process whose HTTP app is a public API (standalone mode; docs/configuration.md,
 * `OPS_PORT`): `GET /healthz`, `GET /readyz` and `GET /metrics` ({@link OpsEndpoints}) on
 * `OpsOptions.listen`, so that metrics (route and subject names, request counts, process figures) are
 * not readable by anyone who can reach the API. Anything else answers 404 NOT_FOUND in the API's
 * envelope. Listens when the application boots (a taken port fails start-up) and closes with it.
 *
 * Plain `node:http`: three fixed GET routes need no router, body parsing or hooks.
 */
@Injectable()
export class OpsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | null = null;
  private readonly log = new Logger('Ops');

  constructor(
    private readonly endpoints: OpsEndpoints,
    @Inject(OPS_OPTIONS) private readonly options: ResolvedOpsOptions,
  ) {}

  /** The bound address (`http://host:port`), or null when no listener is configured or it is closed. */
  url(): string | null {
    const address = this.server?.address();
    return address && typeof address === 'object' ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const listen = this.options.listen;
    if (!listen || this.server) return;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    try {
      if (req.method === 'GET' || req.method === 'HEAD') {
        if (path === '/healthz' || path === '/readyz') {
          const { status, body } = path === '/healthz' ? await this.endpoints.liveness() : await this.endpoints.readiness();
          return send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
        }
        if (path === '/metrics') {
          const { contentType, text } = await this.endpoints.prometheus();
          return send(res, 200, contentType, text);
        }
      }
      send(res, 404, 'application/json; charset=utf-8', JSON.stringify({ success: false, error: { code: 'NOT_FOUND', message: 'Route not found' } }));
    } catch (err) {
      this.log.error(`ops endpoint ${path} failed: ${err instanceof Error ? err.message : String(err)}`);
      send(res, 500, 'application/json; charset=utf-8', JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal error' } }));
    }
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': OPS_NO_CACHE, 'x-content-type-options': 'nosniff' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
