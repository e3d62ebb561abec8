import { Inject, Injectable } from '@nestjs/common';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getAddress } from 'viem';
import {
  type Agent,
  type CreateAgentBody,
  type CreateAgentResponse,
  DEFAULT_RECORD_CATEGORY,
  newId,
  NotFoundError,
  type Principal,
  RecordSchema,
  SUBJECTS,
  UnauthorizedError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { issueAgentKey, parseAgentKey } from './agent-key';
import type { AgentsPrismaClient } from './persistence/prisma';
import type { Agent as AgentRow } from './persistence/generated/client';

export const AGENTS_PRISMA = Symbol('AgentsPrisma');
/** Injection token of the agent key prefix (`amk` by default: `amk_live_…`). */
export const AGENT_KEY_PREFIX = Symbol('AgentKeyPrefix');

/**
 * Agents and their keys (spec, "Agents" and "Authentication"; DESIGN.md §3). Keys are shown once and
 * stored only as SHA-256 hashes; a key is looked up by its hash.
 */
@Injectable()
export class AgentsService {
  constructor(
    @Inject(AGENTS_PRISMA) private readonly prisma: AgentsPrismaClient,
    @Inject(AGENT_KEY_PREFIX) private readonly keyPrefix: string,
    private readonly bus: BusClient,
  ) {}

  /**
   * Creates an agent with its default record and first key. The wallet is the client's `walletAddress`
   * when given (a `local`-mode client keeps its own key), otherwise a new one whose private key is
   * returned once and never stored.
   */
  async create(body: CreateAgentBody): Promise<CreateAgentResponse> {
    const agentId = newId('agent');
    const recordId = newId('record');
    let walletAddress: string;
    let walletPrivateKey: string | undefined;
    if (body.walletAddress) {
      walletAddress = getAddress(body.walletAddress);
    } else {
      walletPrivateKey = generatePrivateKey();
      walletAddress = privateKeyToAccount(walletPrivateKey as `0x${string}`).address;
    }
    await this.bus.request(
      SUBJECTS.records.create,
      { agentId, recordId, body: { name: body.name, tags: body.tags, category: DEFAULT_RECORD_CATEGORY } },
      RecordSchema,
    );
    const key = issueAgentKey(this.keyPrefix, body.environment);
    await this.prisma.agent.create({
      data: {
        id: agentId,
        name: body.name,
        mode: body.mode,
        tags: body.tags,
        category: body.category,
        walletAddress,
        recordId,
        keyEnvironment: body.environment,
        keys: { create: { id: newId('agentKey'), keyHash: key.hash, environment: body.environment, displayPrefix: key.displayPrefix } },
      },
    });
    return { agentId, agentKey: key.key, recordId, walletAddress, ...(walletPrivateKey ? { walletPrivateKey } : {}), mode: body.mode };
  }

  /** The principal of a presented agent key; UNAUTHORIZED when malformed, unknown or revoked. */
  async authenticate(agentKey: string): Promise<Principal> {
    const parsed = parseAgentKey(agentKey);
    if (!parsed) throw new UnauthorizedError('Invalid agent key');
    const key = await this.prisma.agentKey.findUnique({ where: { keyHash: parsed.hash }, include: { agent: true } });
    if (!key || key.revokedAt || key.environment !== parsed.environment) throw new UnauthorizedError('Invalid agent key');
    return { agentId: key.agentId, keyEnvironment: parsed.environment, mode: key.agent.mode as Principal['mode'] };
  }

  async get(agentId: string): Promise<Agent> {
    const row = await this.prisma.agent.findUnique({ where: { id: agentId } });
    if (!row) throw new NotFoundError('Agent not found');
    return toAgent(row);
  }
}

function toAgent(row: AgentRow): Agent {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode as Agent['mode'],
    tags: row.tags,
    category: row.category,
    walletAddress: row.walletAddress,
    recordId: row.recordId,
    keyEnvironment: row.keyEnvironment as Agent['keyEnvironment'],
    createdAt: row.createdAt.toISOString(),
  };
}
