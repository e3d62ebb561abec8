import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stub received: its parsed JSON body, `Authorization` header and path. */
export interface StubRequest<B> {
  body: B;
  auth?: string;
  url?: string;
}

/**
 * A real HTTP server on 127.0.0.1 standing in for an OpenAI-compatible endpoint (embeddings, chat) in
 * unit specs: it records every request and answers with `handler`, which each test sets.
 */
export interface JsonStubServer<B> {
  /** `http://127.0.0.1:<port>/v1/` */
  baseUrl: string;
  requests: StubRequest<B>[];
  handler: (body: B, req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

/** Writes `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts a {@link JsonStubServer} on a free port; its default handler answers 500. */
export async function startJsonStubServer<B>(): Promise<JsonStubServer<B>> {
  const stub: Omit<JsonStubServer<B>, 'baseUrl' | 'close'> = { requests: [], handler: (_b, _q, res) => sendJson(res, 500, { error: { message: 'no handler' } }) };
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw) as B;
      stub.requests.push({ body, auth: req.headers.authorization, url: req.url });
      stub.handler(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(stub, {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
