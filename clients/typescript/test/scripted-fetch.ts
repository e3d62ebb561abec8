import { AgentMemory } from '../src/client';

// Unit-test helpers of the SDK: a client on a fetch that answers a script (no server).

/** A scripted answer: a Response, or an Error the fetch throws. */
export type Answer = Response | Error;
export const ok = (data: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify({ success: true, data }), { status: 200, headers });
export const fail = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ success: false, error: { code, message: `${code} message` } }), { status, headers: { 'x-request-id': 'req-1', ...headers } });
export const connectRefused = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

/** A client whose fetch answers `answers` in order and records each request. */
export function scripted(answers: Answer[], options: Partial<ConstructorParameters<typeof AgentMemory>[0]> = {}) {
  const calls: { method: string; url: string; body?: string; authorization?: string }[] = [];
  const fakeFetch: typeof fetch = async (url, init) => {
    const headers = init?.headers as Record<string, string>;
    calls.push({ method: init!.method!, url: url as string, body: init?.body as string | undefined, authorization: headers['authorization'] });
    const next = answers.shift();
    if (!next) throw new Error('no scripted answer left');
    if (next instanceof Error) throw next;
    return next;
  };
  const client = new AgentMemory({ baseUrl: 'http://api.test', apiKey: 'amk_test_k', fetch: fakeFetch, retries: { baseDelayMs: 1 }, ...options });
  return { client, calls };
}
