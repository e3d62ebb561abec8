import { AgentMemory } from '../src';

/** `GET /api/v1/records/{recordId}/raw` → `GET /api/v1/records/{}/raw`: a route with its parameters unnamed. */
export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

const NAMESPACES = ['agents', 'keys', 'records', 'memories', 'files', 'billing', 'humans'] as const;
/** Placeholder ids: every path segment that is one of them is a path parameter. */
const IDS = ['rec_placeholder000000000000', 'agt_placeholder000000000000', 'key_placeholder000000000000'];

/**
 * Calls every public method of every namespace of the SDK (and createAgent) against a fetch that records
 * the request and answers an empty success, and returns the routes they reached as {@link routeKey}s.
 * Methods are found by reflection, so a method added later is covered without editing this list.
 */
export async function routesCalledBySdk(): Promise<Set<string>> {
  const reached = new Set<string>();
  const recording: typeof fetch = async (url, init) => {
    const path = new URL(url as string).pathname.split('/').map((s) => (IDS.includes(s) ? '{}' : s)).join('/');
    reached.add(routeKey(init!.method!, path));
    const data = { records: [], entries: [], memories: [], files: [], total: 0, nextCursor: null, token: 'token', content: '', payment: { chainId: 1 } };
    return new Response(JSON.stringify({ success: true, data }), { status: 200 });
  };
  const client = new AgentMemory({
    baseUrl: 'http://sdk.test',
    apiKey: 'amk_test_x',
    wallet: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', // Anvil's public test account #0, for the raw routes
    signature: { chainId: 1 },
    sessionToken: 'session',
    fetch: recording,
  });
  await new AgentMemory({ baseUrl: 'http://sdk.test', fetch: recording }).createAgent({ name: 'n' });
  for (const name of NAMESPACES) {
    const api = client[name] as unknown as Record<string, (...args: unknown[]) => unknown>;
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(api)).filter((m) => m !== 'constructor' && m !== 'session' && typeof api[m] === 'function');
    methods.sort((a, b) => Number(a === 'logout') - Number(b === 'logout')); // logout ends the session the others use
    for (const method of methods) {
      // ids in place of every argument (an input object given as a string still reaches its route)
      const args: unknown[] = [name === 'humans' ? IDS[1] : IDS[0], IDS[2]];
      if (name === 'billing' && /topUp/i.test(method)) args[0] = '1';
      if (name === 'files' && method === 'rawPut') args[1] = { path: 'p', content: new Uint8Array([1]) };
      const result = api[method](...args) as Promise<unknown> | { toArray(n: number): Promise<unknown> };
      await ('toArray' in result ? result.toArray(1) : result);
    }
  }
  return reached;
}
