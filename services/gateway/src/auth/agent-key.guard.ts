import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, UnauthorizedError } from '@agent-memory/shared';
import { AgentAuthenticator } from './agent-authenticator';
import { ALLOW_PASSKEY, type PasskeyAccess } from './allow-passkey.decorator';
import { parseAuthorization } from './authorization-header';
import { type GatewayRequest, setPrincipal, stateOf } from './request-context';

/**
 * Authentication of the agent routes (docs/authentication.md):
 * - `Bearer <agent key>`: any agent;
 * - `Signature <timestamp>:<walletAddress>:<signature>`: `local`-mode agents, on every route that takes
 *   an agent key (their own records, memories, files; `cloud` agents' wallets: 403);
 * - `Passkey <session>`: a human, only on routes marked {@link AllowPasskey} (record-scoped reads, and
 *   the owner's erasures: forget, delete record, which are free), for a record of an agent the human
 *   claimed (else 404); a valid session elsewhere is 403.
 * Anything else (missing, malformed, another scheme) is 401. The principal and method go on the request.
 * On paid routes PaymentAuthGuard runs first (see ../http/route-kinds.ts): when it has set the principal
 * (a verified `Payment` credential), this guard lets the request through unchanged.
 */
@Injectable()
export class AgentKeyGuard implements CanActivate {
  constructor(
    private readonly auth: AgentAuthenticator,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    // A guard before this one (PaymentAuthGuard, a verified Payment credential) already set the caller.
    if (req.gateway?.principal) return true;
    const parsed = parseAuthorization(req.headers.authorization);
    const state = stateOf(req);
    switch (parsed?.scheme) {
      case 'Bearer':
        setPrincipal(req, await this.auth.byAgentKey(parsed.credential));
        state.authMethod = 'agent_key';
        return true;
      case 'Signature':
        setPrincipal(req, await this.auth.bySignature(req, parsed.credential));
        state.authMethod = 'signature';
        return true;
      case 'Passkey': {
        const human = await this.auth.bySession(parsed.credential);
        const access = this.reflector.get<PasskeyAccess | undefined>(ALLOW_PASSKEY, context.getHandler());
        if (!access) {
          throw new ForbiddenError('A passkey session may read the records, memories and files of claimed agents, forget their memories, delete their records and manage their keys; this call needs the agent key');
        }
        state.human = human;
        if (access === 'erase') state.ownerErasure = true;
        setPrincipal(req, await this.auth.claimedRecordOwner(human, (req.params as Record<string, string>).recordId));
        state.authMethod = 'passkey';
        return true;
      }
      default:
        throw new UnauthorizedError('Missing or invalid Authorization header: expected "Bearer <agent key>" (or "Signature <timestamp>:<walletAddress>:<signature>" for local-mode agents)');
    }
  }
}
