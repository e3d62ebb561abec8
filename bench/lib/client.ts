/**
 * A tiny HTTP client for the agent-memory API: unwraps the `{ success, data }` envelope and throws on
 * `{ success: false, error }` or a non-JSON answer. Uses the global `fetch` (Node 20).
 */

/** A created agent: its key and its default record. */
export interface BenchAgent {
  agentKey: string;
  recordId: string;
}

/** One recalled memory as the benchmarks need it. */
export interface Recalled {
  path: string;
  similarity: number;
}

/** Thrown for an error envelope or an unexpected answer; carries the HTTP status and error code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`HTTP ${status} ${code}: ${message}`);
  }
}

export class ApiClient {
  /** `baseUrl` without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  constructor(private readonly baseUrl: string) {}

  /** POSTs `body` as JSON (with `Bearer agentKey` if given) and returns the envelope's `data`. */
  async post<T>(path: string, body: unknown, agentKey?: string): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (agentKey) headers.authorization = `Bearer ${agentKey}`;
    const res = await fetch(`${this.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    let json: { success?: boolean; data?: T; error?: { code: string; message: string } };
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      throw new ApiError(res.status, 'NOT_JSON', text.slice(0, 200));
    }
    if (!res.ok || json.success !== true) {
      throw new ApiError(res.status, json.error?.code ?? 'UNKNOWN', json.error?.message ?? text.slice(0, 200));
    }
    return json.data as T;
  }

  /** POST /api/v1/agents: a new agent with its key and default record. */
  async createAgent(name: string): Promise<BenchAgent> {
    const data = await this.post<{ agentKey: string; recordId: string }>('/api/v1/agents', { name });
    return { agentKey: data.agentKey, recordId: data.recordId };
  }

  /** POST /api/v1/records/{recordId}/remember; returns the stored path. */
  async remember(agent: BenchAgent, content: string, path?: string): Promise<string> {
    const data = await this.post<{ path: string }>(`/api/v1/records/${agent.recordId}/remember`, path ? { content, path } : { content }, agent.agentKey);
    return data.path;
  }

  /** POST /api/v1/records/{recordId}/recall; returns the memories in ranked order. */
  async recall(agent: BenchAgent, query: string, limit: number): Promise<Recalled[]> {
    const data = await this.post<{ memories: Recalled[] }>(`/api/v1/records/${agent.recordId}/recall`, { query, limit }, agent.agentKey);
    return data.memories;
  }
}
