import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { AgentsAuthenticateKeyReplySchema, SUBJECTS, UnauthorizedError } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { type GatewayRequest, stateOf } from './request-context';

/**
 * `Authorization: Bearer <agent key>` (spec, "Authentication"): the agents service checks the key's
 * hash; a missing, malformed, unknown or revoked key is UNAUTHORIZED.
 */
@Injectable()
export class AgentKeyGuard implements CanActivate {
  constructor(private readonly bus: BusClient) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S{1,512})$/i.exec(header.trim()) : null;
    if (!match) throw new UnauthorizedError('Missing or invalid Authorization header: expected "Bearer <agent key>"');
    const principal = await this.bus.request(SUBJECTS.agents.authenticateKey, { agentKey: match[1] }, AgentsAuthenticateKeyReplySchema);
    const state = stateOf(req);
    state.principal = principal;
    state.authMethod = 'agent_key';
    return true;
  }
}
