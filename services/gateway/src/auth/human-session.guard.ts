import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { AgentIdSchema, NotFoundError, UnauthorizedError } from '@agent-memory/shared';
import { AgentAuthenticator } from './agent-authenticator';
import { parseAuthorization } from './authorization-header';
import { type GatewayRequest, humanOf, setPrincipal, stateOf } from './request-context';

/**
 * `Authorization: Passkey <session>` (humans in the dashboard; docs/authentication.md): a valid,
 * unexpired, not signed-out session, else 401. Sets the request's signed-in human; the per-human limit is
 * HumanRateLimitGuard's, which runs next.
 */
@Injectable()
export class HumanSessionGuard implements CanActivate {
  constructor(private readonly auth: AgentAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const parsed = parseAuthorization(req.headers.authorization);
    if (parsed?.scheme !== 'Passkey') throw new UnauthorizedError('Missing or invalid Authorization header: expected "Passkey <session credential>"');
    const human = await this.auth.bySession(parsed.credential);
    stateOf(req).human = human;
    return true;
  }
}

/**
 * Routes under `/api/v1/humans/me/agents/:agentId`: the agent must be one the signed-in human claimed
 * (else 404, no existence leak) and one the session reaches (a Sign in with Ethereum session: an agent of
 * its wallet, else 403); it becomes the request's principal. Runs after {@link HumanSessionGuard} and the per-human limit.
 */
@Injectable()
export class ClaimedAgentGuard implements CanActivate {
  constructor(private readonly auth: AgentAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const agentId = AgentIdSchema.safeParse((req.params as Record<string, string>).agentId);
    if (!agentId.success) throw new NotFoundError('Agent not found');
    const state = stateOf(req);
    setPrincipal(req, await this.auth.claimedAgent(humanOf(req), agentId.data));
    state.authMethod = 'passkey';
    return true;
  }
}
