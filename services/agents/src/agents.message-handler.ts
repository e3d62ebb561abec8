import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import {
  AgentsAuthenticateKeyMessageSchema,
  AgentsCreateMessageSchema,
  AgentsFindByWalletMessageSchema,
  AgentsGetMessageSchema,
  AgentsKeysListMessageSchema,
  AgentsKeysRevokeMessageSchema,
  AgentsKeysRotateMessageSchema,
  AgentsWalletChallengeMessageSchema,
  SUBJECTS,
} from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import { AgentKeysService } from './agent-keys.service';
import { AgentsService } from './agents.service';
import { WalletProofsService } from './wallet-proofs.service';

/** Bus edge of the agents service: agents, wallets (and proofs of them) and agent keys. */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class AgentsMessageHandler {
  constructor(
    private readonly agents: AgentsService,
    private readonly keys: AgentKeysService,
    private readonly walletProofs: WalletProofsService,
  ) {}

  @MessagePattern(SUBJECTS.agents.create)
  create(@Payload(new MessagePipe(AgentsCreateMessageSchema)) m: z.output<typeof AgentsCreateMessageSchema>) {
    return this.agents.create(m.body);
  }

  @MessagePattern(SUBJECTS.agents.walletChallenge)
  walletChallenge(@Payload(new MessagePipe(AgentsWalletChallengeMessageSchema)) m: z.output<typeof AgentsWalletChallengeMessageSchema>) {
    return this.walletProofs.issue(m.walletAddress);
  }

  @MessagePattern(SUBJECTS.agents.authenticateKey)
  authenticate(@Payload(new MessagePipe(AgentsAuthenticateKeyMessageSchema)) m: z.output<typeof AgentsAuthenticateKeyMessageSchema>) {
    return this.keys.authenticate(m.agentKey);
  }

  @MessagePattern(SUBJECTS.agents.get)
  get(@Payload(new MessagePipe(AgentsGetMessageSchema)) m: z.output<typeof AgentsGetMessageSchema>) {
    return this.agents.get(m.agentId);
  }

  @MessagePattern(SUBJECTS.agents.getWallet)
  getWallet(@Payload(new MessagePipe(AgentsGetMessageSchema)) m: z.output<typeof AgentsGetMessageSchema>) {
    return this.agents.getWallet(m.agentId);
  }

  @MessagePattern(SUBJECTS.agents.findByWallet)
  findByWallet(@Payload(new MessagePipe(AgentsFindByWalletMessageSchema)) m: z.output<typeof AgentsFindByWalletMessageSchema>) {
    return this.agents.findByWallet(m.walletAddress);
  }

  @MessagePattern(SUBJECTS.agents.listKeys)
  listKeys(@Payload(new MessagePipe(AgentsKeysListMessageSchema)) m: z.output<typeof AgentsKeysListMessageSchema>) {
    return this.keys.list(m.agentId);
  }

  @MessagePattern(SUBJECTS.agents.rotateKey)
  rotateKey(@Payload(new MessagePipe(AgentsKeysRotateMessageSchema)) m: z.output<typeof AgentsKeysRotateMessageSchema>) {
    return this.keys.rotate(m.agentId, m.graceSeconds, m.requestedBy);
  }

  @MessagePattern(SUBJECTS.agents.revokeKey)
  revokeKey(@Payload(new MessagePipe(AgentsKeysRevokeMessageSchema)) m: z.output<typeof AgentsKeysRevokeMessageSchema>) {
    return this.keys.revoke(m.agentId, m.keyId, m.requestedBy);
  }
}
