import { MessagePattern, Payload } from '@nestjs/microservices';
import { SUBJECTS } from '@agent-memory/shared';
import { BusEdge } from '@agent-memory/platform';
import {
  AuthenticateKeyMessage,
  CreateAgentMessage,
  FindAgentByWalletMessage,
  GetAgentMessage,
  ListKeysMessage,
  RevokeKeyMessage,
  RotateKeyMessage,
  WalletChallengeMessage,
} from './agents.messages';
import { AgentKeysUseCases } from './use-cases/agent-keys.use-cases';
import { AgentsUseCases } from './use-cases/agents.use-cases';
import { WalletProofsUseCases } from './use-cases/wallet-proofs.use-cases';

/** Bus edge of the agents service: agents, wallets (and proofs of them) and agent keys. Receive a validated message, call one use case, return. */
@BusEdge()
export class AgentsMessageHandler {
  constructor(
    private readonly agents: AgentsUseCases,
    private readonly keys: AgentKeysUseCases,
    private readonly walletProofs: WalletProofsUseCases,
  ) {}

  @MessagePattern(SUBJECTS.agents.create)
  create(@Payload() m: CreateAgentMessage) {
    return this.agents.create(m);
  }

  @MessagePattern(SUBJECTS.agents.walletChallenge)
  walletChallenge(@Payload() m: WalletChallengeMessage) {
    return this.walletProofs.issue(m);
  }

  @MessagePattern(SUBJECTS.agents.authenticateKey)
  authenticate(@Payload() m: AuthenticateKeyMessage) {
    return this.keys.authenticate(m);
  }

  @MessagePattern(SUBJECTS.agents.get)
  get(@Payload() m: GetAgentMessage) {
    return this.agents.get(m);
  }

  @MessagePattern(SUBJECTS.agents.getWallet)
  getWallet(@Payload() m: GetAgentMessage) {
    return this.agents.getWallet(m);
  }

  @MessagePattern(SUBJECTS.agents.findByWallet)
  findByWallet(@Payload() m: FindAgentByWalletMessage) {
    return this.agents.findByWallet(m);
  }

  @MessagePattern(SUBJECTS.agents.listKeys)
  listKeys(@Payload() m: ListKeysMessage) {
    return this.keys.list(m);
  }

  @MessagePattern(SUBJECTS.agents.rotateKey)
  rotateKey(@Payload() m: RotateKeyMessage) {
    return this.keys.rotate(m);
  }

  @MessagePattern(SUBJECTS.agents.revokeKey)
  revokeKey(@Payload() m: RevokeKeyMessage) {
    return this.keys.revoke(m);
  }
}
