import { createServer, type Server } from 'node:net';
import { freePort, TEST_PORT_BASE, TEST_PORTS_PER_WORKER } from './infra';

describe('freePort', () => {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const sliceStart = TEST_PORT_BASE + (worker - 1) * TEST_PORTS_PER_WORKER;
  const inSlice = (port: number) => port >= sliceStart && port < sliceStart + TEST_PORTS_PER_WORKER;

  it("gives distinct ports from this worker's slice, below the kernel's ephemeral range", async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(inSlice(port)).toBe(true);
      expect(port).toBeLessThan(32_768);
    }
  });

  it('never gives a port something listens on, even after going once round the slice', async () => {
    const taken = await freePort();
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(taken, '127.0.0.1', resolve));
    try {
      for (let i = 0; i < TEST_PORTS_PER_WORKER; i++) expect(await freePort()).not.toBe(taken);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a worker id whose slice would reach the ephemeral range', async () => {
    const saved = process.env.JEST_WORKER_ID;
    process.env.JEST_WORKER_ID = String(Math.ceil((32_768 - TEST_PORT_BASE) / TEST_PORTS_PER_WORKER) + 1);
    try {
      await expect(freePort()).rejects.toThrow(/no port slice/);
    } finally {
      if (saved === undefined) delete process.env.JEST_WORKER_ID;
      else process.env.JEST_WORKER_ID = saved;
    }
  });
});
