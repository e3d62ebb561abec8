/** A response of the API: status, headers and the parsed envelope. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: { success: true; data: T } | { success: false; error: { code: string; message: string } };
  /** `body.data` of a success; throws with the error otherwise (for setup steps). */
  data: T;
  /** `body.error.code` of a failure, or undefined. */
  code?: string;
}

export interface RequestOptions {
  key?: string;
  headers?: Record<string, string>;
  /** A JS value sent as JSON, or a raw string sent as is. */
  body?: unknown;
  rawBody?: string | Buffer;
  contentType?: string;
}

/** Minimal HTTP client of the agent-memory API for tests and benchmarks (global fetch). */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      if (options.contentType) headers['content-type'] = options.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: ApiResponse['body'];
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`Non-JSON response ${res.status} for ${method} ${path}: ${text.slice(0, 200)}`);
    }
    return {
      status: res.status,
      headers: res.headers,
      body: parsed,
      get data(): T {
        if (!parsed.success) throw new Error(`${method} ${path} failed: ${parsed.error.code} ${parsed.error.message}`);
        return parsed.data as T;
      },
      code: parsed.success ? undefined : parsed.error.code,
    };
  }

  /** Creates an agent and returns its key, id and default record id. */
  async createAgent(body: Record<string, unknown> = { name: 'test agent' }): Promise<{ agentId: string; agentKey: string; recordId: string; walletAddress: string; walletPrivateKey?: string }> {
    return (await this.request('POST', '/api/v1/agents', { body })).data;
  }
}
