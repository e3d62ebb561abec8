import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { UnauthorizedError } from '@agent-memory/shared';
import { AgentAuthenticator } from './agent-authenticator';
import { parseAuthorization } from './authorization-header';
import { type GatewayRequest, setPrincipal, stateOf } from './request-context';

/**
 * Wallet signature only (`Authorization: Signature <sig>`; docs/api.md, "Raw blobs (local mode) and wallet signatures"): the
 * raw blob routes of `local`-mode agents. See {@link AgentAuthenticator.bySignature} for the rules; the
 * record must then be the agent's own (RecordAccessGuard).
 */
@Injectable()
export class WalletSignatureGuard implements CanActivate {
  constructor(private readonly auth: AgentAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const parsed = parseAuthorization(req.headers.authorization);
    if (parsed?.scheme !== 'Signature') throw new UnauthorizedError('Missing or invalid Authorization header: expected "Signature <timestamp>:<walletAddress>:<signature>"');
    const state = stateOf(req);
    setPrincipal(req, await this.auth.bySignature(req, parsed.credential));
    state.authMethod = 'signature';
    return true;
  }
}
