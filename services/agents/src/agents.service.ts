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
  RecordSchema,
  SUBJECTS,
  ValidationError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { issueAgentKey } from './agent-key';
import { AGENT_KEY_PREFIX, AGENTS_PRISMA } from './agent-keys.service';
import type { AgentsPrismaClient } from './persistence/prisma';
import { WalletProofsService } from './wallet-proofs.service';
import { Prisma, type Agent as AgentRow } from './persistence/generated/client';

/** What a wallet signature resolves to (agents.v1.find-by-wallet, agents.v1.get-wallet). */
export interface AgentWallet {
  agentId: string;
  mode: Agent['mode'];
  walletAddress: string;
  keyEnvironment: Agent['keyEnvironment'];
}

/**
 * Agents and their keys (docs/api.md, "Agents and keys"). Keys are shown once and
 * stored only as SHA-256 hashes; a key is looked up by its hash.
 */
@Injectable()
export class AgentsService {
  constructor(
    @Inject(AGENTS_PRISMA) private readonly prisma: AgentsPrismaClient,
    @Inject(AGENT_KEY_PREFIX) private readonly keyPrefix: string,
    private readonly bus: BusClient,
    private readonly walletProofs: WalletProofsService,
  ) {}

  /**
   * Creates an agent with its default record and first key. The wallet is the client's `walletAddress`
   * when given with a `walletProof` of it ({@link WalletProofsService.consume}: the wallet's signature
   * of a challenge issued here; a `local`-mode client keeps its own key), otherwise a new one whose
   * private key is returned once and never stored. A `local` agent's wallet must not be another `local`
   * agent's: a wallet signature names exactly one agent (docs/authentication.md). VALIDATION_ERROR for
   * a missing or bad proof or a taken wallet, before anything is created.
   */
  async create(body: CreateAgentBody): Promise<CreateAgentResponse> {
    const agentId = newId('agent');
    const recordId = newId('record');
    let walletAddress: string;
    let walletPrivateKey: string | undefined;
    if (body.walletAddress) {
      walletAddress = getAddress(body.walletAddress);
      // The schema requires the proof with the address; checked again here, where the wallet is bound.
      if (!body.walletProof) throw new ValidationError('walletProof: required with walletAddress (docs/authentication.md)');
      await this.walletProofs.consume(walletAddress, body.walletProof);
      if (body.mode === 'local' && (await this.prisma.agent.findFirst({ where: { walletAddress, mode: 'local' }, select: { id: true } }))) {
        throw new ValidationError(WALLET_TAKEN);
      }
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
    await this.prisma.agent
      .create({
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
    })
      .catch((err: unknown) => {
        // Two concurrent creates with one local wallet: the partial unique index decides.
        if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new ValidationError(WALLET_TAKEN);
        throw err;
      });
    return { agentId, agentKey: key.key, recordId, walletAddress, ...(walletPrivateKey ? { walletPrivateKey } : {}), mode: body.mode };
  }

  async get(agentId: string): Promise<Agent> {
    const row = await this.prisma.agent.findUnique({ where: { id: agentId } });
    if (!row) throw new NotFoundError('Agent not found');
    return toAgent(row);
  }

  /** The wallet view of an agent (mode, wallet, environment); NOT_FOUND if it does not exist. */
  async getWallet(agentId: string): Promise<AgentWallet> {
    return toWallet(await this.get(agentId));
  }

  /**
   * The agent a wallet signature speaks for: the `local` agent with this wallet (at most one), else
   * any agent with it (a `cloud` agent, which the gateway then refuses with FORBIDDEN). NOT_FOUND if no
   * agent has this wallet.
   */
  async findByWallet(walletAddress: string): Promise<AgentWallet> {
    const address = getAddress(walletAddress);
    const row =
      (await this.prisma.agent.findFirst({ where: { walletAddress: address, mode: 'local' } })) ??
      (await this.prisma.agent.findFirst({ where: { walletAddress: address }, orderBy: { createdAt: 'asc' } }));
    if (!row) throw new NotFoundError('No agent has this wallet');
    return toWallet(toAgent(row));
  }
}

const WALLET_TAKEN = 'walletAddress: already the wallet of another local-mode agent (a wallet signature must name one agent)';

function toWallet(agent: Agent): AgentWallet {
  return { agentId: agent.id, mode: agent.mode, walletAddress: agent.walletAddress, keyEnvironment: agent.keyEnvironment };
}

/** The API form of an agent row. */
export function toAgent(row: AgentRow): Agent {
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
