import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AgentsAuthenticateKeyMessageSchema, AgentsCreateMessageSchema, AgentsGetMessageSchema, SUBJECTS } from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import { AgentsService } from './agents.service';

/** Bus edge of the agents service. */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class AgentsMessageHandler {
  constructor(private readonly agents: AgentsService) {}

  @MessagePattern(SUBJECTS.agents.create)
  create(@Payload(new MessagePipe(AgentsCreateMessageSchema)) m: z.output<typeof AgentsCreateMessageSchema>) {
    return this.agents.create(m.body);
  }

  @MessagePattern(SUBJECTS.agents.authenticateKey)
  authenticate(@Payload(new MessagePipe(AgentsAuthenticateKeyMessageSchema)) m: z.output<typeof AgentsAuthenticateKeyMessageSchema>) {
    return this.agents.authenticate(m.agentKey);
  }

  @MessagePattern(SUBJECTS.agents.get)
  get(@Payload(new MessagePipe(AgentsGetMessageSchema)) m: z.output<typeof AgentsGetMessageSchema>) {
    return this.agents.get(m.agentId);
  }

  @MessagePattern(SUBJECTS.agents.getWallet)
  async getWallet(@Payload(new MessagePipe(AgentsGetMessageSchema)) m: z.output<typeof AgentsGetMessageSchema>) {
    const agent = await this.agents.get(m.agentId);
    return { agentId: agent.id, mode: agent.mode, walletAddress: agent.walletAddress, keyEnvironment: agent.keyEnvironment };
  }
}
