import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { BusClient, runWithBusHeaders } from '@agent-memory/platform';

/**
 * The bus as a test uses it to look behind the API (read a ledger, seed a balance): each request runs
 * as the principal its body names (`agentId`), as the gateway's request context would after
 * authenticating that agent, so services' principal checks (docs/configuration.md, "Bus
 * authentication") apply to test reads exactly as to real calls. In cluster mode the transport signs
 * with the gateway's key.
 */
export class OperatorBusClient extends BusClient {
  override request<S extends z.ZodTypeAny>(subject: string, payload: unknown, replySchema: S): Promise<z.output<S>> {
    const agentId = (payload as { agentId?: unknown } | null)?.agentId;
    const headers = typeof agentId === 'string' ? { requestId: randomUUID(), agentId, keyEnvironment: 'test' as const } : { requestId: randomUUID() };
    return runWithBusHeaders(headers, () => super.request(subject, payload, replySchema));
  }
}
