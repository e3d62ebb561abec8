import { ClientNats } from '@nestjs/microservices';
import { createServer, type Server, type Socket } from 'node:net';
import { withTimeout } from './health.indicators';
import { busReadinessCheck } from './readiness.registry';

/** The `bus` readiness check against the real NATS server on this machine (127.0.0.1:4222). */
describe('busReadinessCheck over real NATS', () => {
  const clients: ClientNats[] = [];
  const nats = (servers: string[]) => {
    const client = new ClientNats({ servers, name: `ops-readiness-${process.pid}`, reconnect: false, timeout: 1_000 });
    clients.push(client);
    return client;
  };

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
  });

  it('passes when the client connects and the server answers a PING', async () => {
    await expect(busReadinessCheck(nats(['nats://127.0.0.1:4222']))()).resolves.toBeUndefined();
  });

  it('fails when no NATS server listens', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await expect(withTimeout(busReadinessCheck(nats([`nats://127.0.0.1:${port}`]))(), 5_000)).rejects.toThrow();
  });

  it('fails (by the per-check timeout) when the server accepts the socket but never answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      await expect(withTimeout(busReadinessCheck(nats([`nats://127.0.0.1:${port}`]))(), 500)).rejects.toThrow(/timed out after 500 ms/);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
