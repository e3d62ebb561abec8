import { AgentsApi, KeysApi } from './resources/agents';
import { BillingApi } from './resources/billing';
import { FilesApi } from './resources/files';
import { HumansApi } from './resources/humans';
import { MemoriesApi } from './resources/memories';
import { RecordsApi } from './resources/records';
import { Payer, type PaymentOptions } from './payments';
import { retryOptions, type RetryOptions } from './retry';
import { RequestSigner, resolveWallet, type SignatureRealm, type WalletAccount, type WalletOption } from './signature';
import { Transport } from './transport';
import type { CallOptions, CreateAgentInput, CreatedAgent, Prices } from './types';

/** Options of {@link AgentMemory}. */
export interface AgentMemoryOptions {
  /**
   * Where the API is served, without `/api/v1` (e.g. `https://memory.example.com`). A path prefix is kept in
   * the URLs but not in wallet signatures (they name `/api/v1/…`, what the gateway sees behind a proxy that strips it).
   */
  baseUrl: string;
  /** The agent key (`amk_live_…`/`amk_test_…`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /**
   * The agent's wallet: a private key (`0x` + 64 hex) or a viem account. Without `apiKey` a `local` agent
   * signs every request with it (docs/authentication.md, "Wallet signatures"); the raw blob routes always
   * do; paying 402 challenges uses it.
   */
  wallet?: WalletOption;
  /** Where wallet signatures are valid. Default: the host of `baseUrl` and the chain id of `GET /billing/prices`. */
  signature?: Partial<SignatureRealm>;
  /** A human's passkey session token (`Authorization: Passkey`); set by `humans.loginVerify` too. */
  sessionToken?: string;
  /**
   * Pay 402 challenges with `wallet` (off unless `enabled`), at most `maxPricePerCall` USD per call, only in
   * the token pinned by `chainId`/`currency`/`decimals` (default Base Sepolia USDC); see {@link PaymentOptions}.
   */
  payments?: PaymentOptions;
  /** Retries: a number of retries after the first attempt, or {@link RetryOptions} (default 3 attempts). */
  retries?: number | Partial<RetryOptions>;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Time limit of each attempt in ms, the body included (default 30,000). */
  timeoutMs?: number;
}

/**
 * `AgentMemory.createAgent` input: the create-agent body, where the API is, and optionally `wallet`: the
 * client's own wallet to bind (its private key never leaves the client; `signature.domain` as for the client).
 */
export type CreateAgentOptions = Omit<CreateAgentInput, 'walletAddress' | 'walletProof'> &
  Pick<AgentMemoryOptions, 'baseUrl' | 'fetch' | 'timeoutMs' | 'retries' | 'wallet' | 'signature'>;

/**
 * Client of the agent-memory HTTP API (docs/api.md). Each namespace maps one group of endpoints:
 * `agents`, `keys`, `records`, `memories`, `files`, `billing`, `humans`. Calls resolve to the `data` of
 * the success envelope and reject with {@link AgentMemoryError} (an answer) or
 * {@link AgentMemoryNetworkError} (no answer); see the README for retries and payments.
 *
 * ```ts
 * const memory = new AgentMemory({ baseUrl: 'http://localhost:8080', apiKey: process.env.AGENT_MEMORY_KEY });
 * const agent = await memory.agents.get();
 * await memory.memories.remember(agent.recordId, { content: 'The deploy key rotates every Monday.' });
 * ```
 */
export class AgentMemory {
  readonly agents: AgentsApi;
  readonly keys: KeysApi;
  readonly records: RecordsApi;
  readonly memories: MemoriesApi;
  readonly files: FilesApi;
  readonly billing: BillingApi;
  readonly humans: HumansApi;
  private readonly transport: Transport;
  private sessionToken?: string;
  private walletAccount?: Promise<WalletAccount>;
  private signer?: Promise<RequestSigner>;
  private prices?: Promise<Prices>;

  constructor(private readonly options: AgentMemoryOptions) {
    if (!options.baseUrl || !/^https?:\/\//i.test(options.baseUrl)) throw new TypeError('baseUrl: expected an http(s) URL such as https://memory.example.com');
    if (options.payments?.enabled && !options.wallet) throw new TypeError('payments.enabled needs a wallet to pay with');
    this.sessionToken = options.sessionToken;
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    const transport = (this.transport = new Transport({
      baseUrl: options.baseUrl,
      fetch: fetchImpl,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: retryOptions(options.retries),
      apiKey: options.apiKey,
      sessionToken: () => this.sessionToken,
      signer: async () => (options.wallet ? (this.signer ??= this.makeSigner()) : undefined),
      payer: options.payments?.enabled ? new Payer(() => this.account(), options.payments) : undefined,
    }));
    this.agents = new AgentsApi(transport);
    this.keys = new KeysApi(transport);
    this.records = new RecordsApi(transport);
    this.memories = new MemoriesApi(transport);
    this.files = new FilesApi(transport);
    this.billing = new BillingApi(transport);
    this.humans = new HumansApi(transport, (token) => (this.sessionToken = token));
  }

  /**
   * `POST /agents` (no auth, 201): creates an agent and its default record. The answer holds the agent
   * key and, when the service generated the wallet, `walletPrivateKey`: both are shown once, store them.
   * Not retried after the request may have reached the server (a repeat would create a second agent).
   */
  static async createAgent(input: CreateAgentOptions, options?: CallOptions): Promise<CreatedAgent> {
    const { baseUrl, fetch: fetchImpl, timeoutMs, retries, wallet, signature, ...body } = input;
    const client = new AgentMemory({ baseUrl, fetch: fetchImpl, timeoutMs, retries, wallet, signature });
    return client.createAgent(body, options);
  }

  /**
   * `POST /agents` on this client's server; see the static {@link AgentMemory.createAgent}. With the
   * client's `wallet`, binds it (docs/authentication.md, "Binding your own wallet"): asks for a wallet
   * challenge, checks that it names this deployment's domain and this wallet (as EIP-4361 tells a signer
   * to; else TypeError and nothing is signed), signs it and sends `walletAddress` and `walletProof`.
   */
  async createAgent(body: Omit<CreateAgentInput, 'walletAddress' | 'walletProof'>, options?: CallOptions): Promise<CreatedAgent> {
    let binding = {};
    if (this.options.wallet) {
      const account = await this.account();
      const { message } = await this.agents.walletChallenge(account.address, options);
      const [first, address] = message.split('\n');
      const domain = this.options.signature?.domain ?? new URL(this.options.baseUrl).host;
      if (first !== `${domain} wants you to sign in with your Ethereum account:` || address !== account.address) {
        throw new TypeError(`the wallet challenge is not for ${domain} and ${account.address}: ${first} ${address}`);
      }
      binding = { walletAddress: account.address, walletProof: { message, signature: await account.signMessage({ message }) } };
    }
    return this.transport.request({ method: 'POST', path: '/agents', body: { ...body, ...binding }, auth: 'none' }, options);
  }

  /** The wallet's address, when the client has a wallet. */
  async walletAddress(): Promise<`0x${string}` | undefined> {
    return this.options.wallet ? (await this.account()).address : undefined;
  }

  private account(): Promise<WalletAccount> {
    return (this.walletAccount ??= resolveWallet(this.options.wallet!));
  }

  private async makeSigner(): Promise<RequestSigner> {
    const account = await this.account();
    const configured = this.options.signature ?? {};
    const domain = configured.domain ?? new URL(this.options.baseUrl).host;
    let chainId = configured.chainId;
    return new RequestSigner(account, async () => {
      if (chainId === undefined) {
        // a failed look-up is not kept: the next request asks again
        this.prices ??= this.billing.prices().catch((error: unknown) => {
          this.prices = undefined;
          throw error;
        });
        chainId = (await this.prices).payment.chainId;
      }
      return { domain, chainId };
    });
  }
}
