import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The real `agent-memory` bin, as npm links it into node_modules/.bin. */
export const BIN = join(__dirname, '..', 'bin', 'agent-memory.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI as a child process with its own HOME and XDG_CONFIG_HOME (a temporary directory), so
 * every test sees only the config it made, and none of the caller's AGENT_MEMORY_* variables.
 */
export class CliHarness {
  readonly home = mkdtempSync(join(tmpdir(), 'agent-memory-cli-'));
  readonly configDir = join(this.home, 'config');

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('AGENT_MEMORY_') && !key.startsWith('JEST') && key !== 'NODE_OPTIONS') env[key] = value;
    return { ...env, HOME: this.home, XDG_CONFIG_HOME: this.configDir, NO_COLOR: '1', ...extra };
  }

  /** Runs `agent-memory ...args`; never rejects on a non-zero exit (the result carries the code). */
  run(args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<CliResult> {
    return new Promise((resolve) => {
      const child = execFile(process.execPath, [BIN, ...args], { env: this.env(options.env), cwd: options.cwd ?? this.home, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
        resolve({ code, stdout, stderr });
      });
      child.stdin?.end(options.input ?? '');
    });
  }

  /** Starts `agent-memory ...args` and hands back the process (to kill it mid-run). */
  spawn(args: string[], env: Record<string, string> = {}): ChildProcess {
    return spawn(process.execPath, [BIN, ...args], { env: this.env(env), cwd: this.home, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** Runs and expects exit code 0; answers stdout parsed as JSON (for `--json` runs). */
  async json<T = any>(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<T> {
    const result = await this.run([...args, '--json'], options);
    if (result.code !== 0) throw new Error(`agent-memory ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** What the proxy does with a request: forward it, answer it, or hold it until the proxy closes. */
export type ProxyDecision = 'forward' | 'hold' | { status: number; headers?: Record<string, string>; body: unknown };

/**
 * An HTTP proxy in front of the test server that records every request line and lets a test answer or
 * hold chosen requests (a 429 with Retry-After, a page that never comes while the CLI is killed);
 * `bodies` holds each finished request's body, in the order they ended.
 */
export async function startProxy(
  target: string,
  decide: (req: IncomingMessage, seen: string[]) => ProxyDecision = () => 'forward',
): Promise<{ url: string; seen: string[]; bodies: { request: string; body: string }[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const bodies: { request: string; body: string }[] = [];
  const held: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    const request = `${req.method} ${req.url}`;
    seen.push(request);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => bodies.push({ request, body: Buffer.concat(chunks).toString('utf8') }));
    const decision = decide(req, seen);
    if (decision === 'hold') {
      held.push(req);
      return;
    }
    if (decision !== 'forward') {
      res.writeHead(decision.status, { 'content-type': 'application/json', ...decision.headers });
      res.end(JSON.stringify(decision.body));
      return;
    }
    const upstream = httpRequest(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    seen,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        for (const req of held) req.socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
