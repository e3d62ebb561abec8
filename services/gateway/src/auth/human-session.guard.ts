import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { AgentIdSchema, NotFoundError, UnauthorizedError } from '@agent-memory/shared';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { AgentAuthenticator } from './agent-authenticator';
import { parseAuthorization } from './authorization-header';
import { type GatewayRequest, humanOf, setPrincipal, stateOf } from './request-context';

/**
 * `Authorization: Passkey <session>` (humans in the dashboard; docs/authentication.md): a valid,
 * unexpired, not signed-out session, else 401. Then the per-principal limit of 100 requests per minute
 * (docs/api.md, "Rate limits"), counted per human.
 */
@Injectable()
export class HumanSessionGuard implements CanActivate {
  constructor(
    private readonly auth: AgentAuthenticator,
    private readonly limits: RateLimitService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const parsed = parseAuthorization(req.headers.authorization);
    if (parsed?.scheme !== 'Passkey') throw new UnauthorizedError('Missing or invalid Authorization header: expected "Passkey <session credential>"');
    const human = await this.auth.bySession(parsed.credential);
    stateOf(req).human = human;
    await this.limits.consume(req, 'agent', `human:${human.humanId}`);
    return true;
  }
}

/**
 * Routes under `/api/v1/humans/me/agents/:agentId`: the agent must be one the signed-in human claimed
 * (else 404, no existence leak); it becomes the request's principal. Runs after {@link HumanSessionGuard}.
 */
@Injectable()
export class ClaimedAgentGuard implements CanActivate {
  constructor(private readonly auth: AgentAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const agentId = AgentIdSchema.safeParse((req.params as Record<string, string>).agentId);
    if (!agentId.success) throw new NotFoundError('Agent not found');
    const state = stateOf(req);
    setPrincipal(req, await this.auth.claimedAgent(humanOf(req).humanId, agentId.data));
    state.authMethod = 'passkey';
    return true;
  }
}
