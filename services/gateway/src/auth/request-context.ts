import type { FastifyRequest } from 'fastify';
import type { Principal } from '@agent-memory/shared';

/** What the gateway's guards learn about a request, attached to the Fastify request. */
export interface GatewayRequestState {
  principal?: Principal;
  /** How the caller authenticated; goes into the usage ledger. */
  authMethod?: 'agent_key' | 'signature';
  rateLimit?: Array<{ policy: string; limit: number; remaining: number; resetSeconds: number }>;
}

export type GatewayRequest = FastifyRequest & { gateway?: GatewayRequestState };

/** The request's gateway state, created on first use. */
export function stateOf(req: GatewayRequest): GatewayRequestState {
  req.gateway ??= {};
  return req.gateway;
}

/** The authenticated principal; throws if a guard did not run (a programming error). */
export function principalOf(req: GatewayRequest): Principal {
  const p = req.gateway?.principal;
  if (!p) throw new Error('No principal on the request: is the auth guard missing?');
  return p;
}
