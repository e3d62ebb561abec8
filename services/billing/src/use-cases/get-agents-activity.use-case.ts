import { Injectable } from '@nestjs/common';
import type { AgentActivity, BillingAgentsActivityMessage } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.agents-activity`: the balances (live and test, micro-USD) and the last ledger entry's time of
 * up to 500 agents in one message, read only (a balance not opened yet reads as its opening credit and is
 * not created). For the agent list of a signed-in human (docs/authentication.md, "Claiming and managing an
 * agent").
 */
@Injectable()
export class GetAgentsActivityUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingAgentsActivityMessage): Promise<{ agents: AgentActivity[] }> {
    return { agents: await this.repository.agentsActivity(m.agentIds) };
  }
}
