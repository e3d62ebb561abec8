import { type KeyEnvironment, newId } from '@agent-memory/shared';
import { issueAgentKey } from '../agent-key';
import type { AgentsRepository } from './agents.repository';

/**
 * Test fixture: stores a `cloud` agent (prefix `amk`) with one key of `environment` (default `live`,
 * created at `keyCreatedAt`, default the database's now), without the bus or a default record.
 * Returns the agent's id and its key, which exists nowhere else.
 */
export async function seedAgent(
  agents: AgentsRepository,
  options: { name: string; walletAddress: string; environment?: KeyEnvironment; keyCreatedAt?: Date },
): Promise<{ agentId: string; key: string }> {
  const agentId = newId('agent');
  const environment = options.environment ?? 'live';
  const key = issueAgentKey('amk', environment);
  const agent = { id: agentId, name: options.name, mode: 'cloud' as const, tags: [], category: 'agent', walletAddress: options.walletAddress, recordId: newId('record'), keyEnvironment: environment };
  await agents.createAgent(agent, { id: newId('agentKey'), agentId, keyHash: key.hash, environment, displayPrefix: key.displayPrefix, createdAt: options.keyCreatedAt });
  return { agentId, key: key.key };
}
