import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import {
  AgentsGetWalletReplySchema,
  ForbiddenError,
  RecordIdSchema,
  RecordsResolveOwnerReplySchema,
  SUBJECTS,
  UnauthorizedError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { REPLAY_CACHE, type ReplayCache } from './replay-cache';
import { type GatewayRequest, stateOf } from './request-context';
import { parseSignatureHeader, signatureMessage, verifyWalletSignature } from './wallet-signature';

/**
 * Wallet signature authentication for raw blob access of `local`-mode agents (spec, "Raw blob access";
 * DESIGN.md §4): the header's timestamp must be within the window, the signature must be the record
 * owner's wallet signing this exact request, and each signature is accepted once.
 */
@Injectable()
export class WalletSignatureGuard implements CanActivate {
  constructor(
    private readonly bus: BusClient,
    @Inject(REPLAY_CACHE) private readonly replays: ReplayCache,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest & { rawBody?: Buffer }>();
    const header = parseSignatureHeader(req.headers.authorization);
    if (!header) throw new UnauthorizedError('Missing or invalid Authorization header: expected "Signature <timestamp>:<walletAddress>:<signature>"');
    const skew = Math.abs(Date.now() / 1000 - header.timestamp);
    if (skew > this.options.signatureWindowSeconds) throw new UnauthorizedError(`Signature timestamp is outside the ±${this.options.signatureWindowSeconds} s window`);
    const message = signatureMessage({ method: req.method, pathWithQuery: req.url, timestamp: header.timestamp, body: req.rawBody ?? '' });
    if (!(await verifyWalletSignature(header.walletAddress, message, header.signature))) throw new UnauthorizedError('Invalid signature');

    const recordId = RecordIdSchema.safeParse((req.params as Record<string, string>).recordId);
    if (!recordId.success) throw new UnauthorizedError('Invalid signature');
    const owner = await this.bus.request(SUBJECTS.records.resolveOwner, { recordId: recordId.data }, RecordsResolveOwnerReplySchema);
    const agent = await this.bus.request(SUBJECTS.agents.getWallet, { agentId: owner.agentId }, AgentsGetWalletReplySchema);
    if (agent.walletAddress.toLowerCase() !== header.walletAddress.toLowerCase()) throw new UnauthorizedError("The signature is not from this record's agent wallet");
    if (agent.mode !== 'local') throw new ForbiddenError('Raw blob access is for agents in local mode');
    if (!(await this.replays.claim(header.signature.toLowerCase(), this.options.signatureWindowSeconds * 2))) {
      throw new UnauthorizedError('This signature was already used');
    }
    const state = stateOf(req);
    state.principal = { agentId: agent.agentId, keyEnvironment: agent.keyEnvironment, mode: agent.mode };
    state.authMethod = 'signature';
    return true;
  }
}

