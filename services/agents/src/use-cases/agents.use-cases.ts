import { Inject, Injectable } from '@nestjs/common';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getAddress } from 'viem';
import { type Agent, type CreateAgentResponse, DEFAULT_RECORD_CATEGORY, newId, NotFoundError, RecordSchema, SUBJECTS, ValidationError } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AGENT_KEY_PREFIX, issueAgentKey } from '../agent-key';
import type { CreateAgentMessage, FindAgentByWalletMessage, GetAgentMessage } from '../agents.messages';
import { AgentsRepository } from '../persistence/agents.repository';
import { WalletProofsUseCases } from './wallet-proofs.use-cases';

/** What a wallet signature resolves to (agents.v1.find-by-wallet, agents.v1.get-wallet). */
export interface AgentWallet {
  agentId: string;
  mode: Agent['mode'];
  walletAddress: string;
  keyEnvironment: Agent['keyEnvironment'];
}

const WALLET_TAKEN = 'walletAddress: already the wallet of another local-mode agent (a wallet signature must name one agent)';

/**
 * Agents (docs/api.md, "Agents and keys"): creation with the default record, wallet and first key, and
 * look-ups by id and by wallet. Keys are shown once and stored only as SHA-256 hashes.
 */
@Injectable()
export class AgentsUseCases {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(AGENT_KEY_PREFIX) private readonly keyPrefix: string,
    private readonly bus: BusClient,
    private readonly walletProofs: WalletProofsUseCases,
  ) {}

  /**
   * Creates an agent with its default record and first key. The wallet is the client's `walletAddress`
   * when given with a `walletProof` of it ({@link WalletProofsUseCases.consume}: the wallet's signature
   * of a challenge issued here; a `local`-mode client keeps its own key), otherwise a new one whose
   * private key is returned once and never stored. A `local` agent's wallet must not be another `local`
   * agent's: a wallet signature names exactly one agent (docs/authentication.md). VALIDATION_ERROR for
   * a missing or bad proof or a taken wallet, before anything is created.
   */
  async create({ body }: CreateAgentMessage): Promise<CreateAgentResponse> {
    const agentId = newId('agent');
    const recordId = newId('record');
    let walletAddress: string;
    let walletPrivateKey: string | undefined;
    if (body.walletAddress) {
      walletAddress = getAddress(body.walletAddress);
      // The schema requires the proof with the address; checked again here, where the wallet is bound.
      if (!body.walletProof) throw new ValidationError('walletProof: required with walletAddress (docs/authentication.md)');
      await this.walletProofs.consume(walletAddress, body.walletProof);
      if (body.mode === 'local' && (await this.agents.hasLocalAgentWithWallet(walletAddress))) throw new ValidationError(WALLET_TAKEN);
    } else {
      walletPrivateKey = generatePrivateKey();
      walletAddress = privateKeyToAccount(walletPrivateKey as `0x${string}`).address;
    }
    await this.bus.request(SUBJECTS.records.create, { agentId, recordId, body: { name: body.name, tags: body.tags, category: DEFAULT_RECORD_CATEGORY } }, RecordSchema);
    const key = issueAgentKey(this.keyPrefix, body.environment);
    const agent = { id: agentId, name: body.name, mode: body.mode, tags: body.tags, category: body.category, walletAddress, recordId, keyEnvironment: body.environment };
    const firstKey = { id: newId('agentKey'), agentId, keyHash: key.hash, environment: body.environment, displayPrefix: key.displayPrefix };
    // Two concurrent creates with one local wallet: the unique index decides.
    if ((await this.agents.createAgent(agent, firstKey)) === 'wallet-taken') throw new ValidationError(WALLET_TAKEN);
    return { agentId, agentKey: key.key, recordId, walletAddress, ...(walletPrivateKey ? { walletPrivateKey } : {}), mode: body.mode };
  }

  /** The agent; NOT_FOUND if it does not exist. */
  async get({ agentId }: GetAgentMessage): Promise<Agent> {
    const agent = await this.agents.findAgent(agentId);
    if (!agent) throw new NotFoundError('Agent not found');
    return agent;
  }

  /** The wallet view of an agent (mode, wallet, environment); NOT_FOUND if it does not exist. */
  async getWallet(m: GetAgentMessage): Promise<AgentWallet> {
    return toWallet(await this.get(m));
  }

  /**
   * The agent a wallet signature speaks for: the `local` agent with this wallet (at most one), else
   * any agent with it (a `cloud` agent, which the gateway then refuses with FORBIDDEN). NOT_FOUND if no
   * agent has this wallet.
   */
  async findByWallet({ walletAddress }: FindAgentByWalletMessage): Promise<AgentWallet> {
    const agent = await this.agents.findAgentByWallet(getAddress(walletAddress));
    if (!agent) throw new NotFoundError('No agent has this wallet');
    return toWallet(agent);
  }
}

function toWallet(agent: Agent): AgentWallet {
  return { agentId: agent.id, mode: agent.mode, walletAddress: agent.walletAddress, keyEnvironment: agent.keyEnvironment };
}
