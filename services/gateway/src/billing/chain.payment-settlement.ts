import {
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  nonceManager,
  parseSignature,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { KeyedMutex } from '@agent-memory/platform';
import { type PaymentOptions, ZERO_ADDRESS } from './payment.options';
import {
  PaymentPendingError,
  type PaymentSettlement,
  PaymentSettlementError,
  type SettlementRequest,
  type SettlementResult,
  UnconfiguredPaymentSettlement,
} from './payment-settlement.port';

/** `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s)` of EIP-3009 (USDC and others). */
export const EIP3009_TRANSFER_WITH_AUTHORIZATION_ABI = [
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' },
      { name: 'validBefore', type: 'uint256' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
] as const;

/** Options of {@link ChainPaymentSettlement}. */
export interface ChainSettlementOptions {
  chainId: number;
  rpcUrl: string;
  /**
   * Account that submits the transaction and pays its gas (the payer pays only the token amount). Its
   * nonces are managed per process (viem `nonceManager`): give every gateway replica its own settler key
   * (docs/billing.md "Settlement").
   */
  settlerPrivateKey: `0x${string}`;
  /** How long to wait for the transaction receipt, ms. Default 60 000. */
  receiptTimeoutMs?: number;
  /** How often to poll for the receipt, ms; default viem's (4 s). */
  pollingIntervalMs?: number;
  /** viem transport; default `http(rpcUrl)` (tests pass a custom one). */
  transport?: Transport;
}

/** viem errors after which a sent transaction may or may not have reached the node (no answer, not a refusal). */
const UNANSWERED = new Set(['HttpRequestError', 'TimeoutError', 'SocketClosedError', 'WebSocketRequestError']);

/**
 * Default settlement (docs/billing.md "Settlement"): submits the payer's EIP-3009 authorization to the
 * token contract on the configured chain through JSON-RPC and waits for a successful receipt; the
 * transaction hash is the payment's reference. The token itself refuses a reused nonce or an expired or
 * wrongly signed authorization, and a payer without the funds.
 *
 * The transaction is signed locally first, so its hash is known before it is broadcast: it is handed to
 * `request.onSubmitted` (which stores it on the claimed payment) and only then sent. Transactions of one
 * process get distinct account nonces from viem's `nonceManager`, so parallel settlements do not replace
 * each other; the manager is reset after a transaction that was not sent. Outcomes:
 * - refused before or at submission, or reverted: {@link PaymentSettlementError} (the money did not move);
 * - sent without an answer, or no receipt within `receiptTimeoutMs`: {@link PaymentPendingError} with the
 *   hash (the money may have moved: the payment stays claimed for reconciliation).
 */
export class ChainPaymentSettlement implements PaymentSettlement {
  readonly name = 'chain';
  private readonly chain: Chain;
  private readonly account: Account;
  private readonly wallet: WalletClient<Transport, Chain, Account>;
  private readonly reader: PublicClient<Transport, Chain>;

  constructor(private readonly options: ChainSettlementOptions) {
    this.chain = defineChain({
      id: options.chainId,
      name: `eip155:${options.chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [options.rpcUrl] } },
    });
    const transport = options.transport ?? http(options.rpcUrl);
    this.account = privateKeyToAccount(options.settlerPrivateKey, { nonceManager });
    this.wallet = createWalletClient({ account: this.account, chain: this.chain, transport });
    this.reader = createPublicClient({ chain: this.chain, transport, ...(options.pollingIntervalMs ? { pollingInterval: options.pollingIntervalMs } : {}) });
  }

  private readonly submitting = new KeyedMutex();

  async settle(request: SettlementRequest): Promise<SettlementResult> {
    if (request.chainId !== this.options.chainId) throw new PaymentSettlementError(`Payment is for chain ${request.chainId}, this server settles on chain ${this.options.chainId}`);
    const a = request.authorization;
    const sig = parseSignature(a.signature);
    const v = sig.v !== undefined ? Number(sig.v) : 27 + sig.yParity;
    const data = encodeFunctionData({
      abi: EIP3009_TRANSFER_WITH_AUTHORIZATION_ABI,
      functionName: 'transferWithAuthorization',
      args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, v, sig.r, sig.s],
    });
    // Prepare, sign, record and send one transaction at a time: with nonces handed out in parallel, a
    // transaction that is never sent (its record failed) would leave a gap that stalls the next ones.
    const hash = await this.submitting.run('submit', async () => {
      let signed: Hex;
      try {
        const prepared = await this.wallet.prepareTransactionRequest({ account: this.account, chain: this.chain, to: request.currency, data, nonceManager: this.account.nonceManager });
        signed = await this.wallet.signTransaction(prepared);
      } catch (err) {
        this.resetNonce();
        throw new PaymentSettlementError(`The transfer was refused by the chain: ${shortReason(err)}`);
      }
      const hash = keccak256(signed);
      try {
        await request.onSubmitted?.(hash);
      } catch (err) {
        this.resetNonce();
        throw new PaymentSettlementError(`The transfer could not be recorded before submission, so it was not sent: ${shortReason(err)}`);
      }
      try {
        await this.wallet.sendRawTransaction({ serializedTransaction: signed });
      } catch (err) {
        this.resetNonce();
        if (unanswered(err)) throw new PaymentPendingError(hash, `the node did not answer the submission (${shortReason(err)})`);
        throw new PaymentSettlementError(`The transfer was refused by the chain: ${shortReason(err)}`);
      }
      return hash;
    });
    const receipt = await this.reader.waitForTransactionReceipt({ hash, timeout: this.options.receiptTimeoutMs ?? 60_000 }).catch((err: unknown) => {
      throw new PaymentPendingError(hash, `no receipt yet (${shortReason(err)})`);
    });
    if (receipt.status !== 'success') throw new PaymentSettlementError(`The transfer ${hash} reverted`);
    return { reference: hash };
  }

  /** After a transaction that was not sent: the next one asks the node for the account's nonce again. */
  private resetNonce(): void {
    this.account.nonceManager?.reset({ address: this.account.address, chainId: this.options.chainId });
  }
}

/** Whether a viem error (or one it wraps) means the request got no answer, so the transaction may have been sent. */
function unanswered(err: unknown): boolean {
  for (let e = err as { name?: string; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (e.name && UNANSWERED.has(e.name)) return true;
  }
  return false;
}

/** First line of a viem error (its short message), without the request dump. */
function shortReason(err: unknown): string {
  const e = err as { shortMessage?: string; message?: string };
  return (e.shortMessage ?? e.message ?? String(err)).split('\n')[0].slice(0, 200);
}

/**
 * The settlement the options call for: on chain when an RPC URL, a settler key and a recipient are
 * configured, otherwise one that refuses every payment with the variables to set.
 */
export function defaultPaymentSettlement(options: PaymentOptions): PaymentSettlement {
  if (options.rpcUrl && options.settlerPrivateKey && options.recipient !== ZERO_ADDRESS) {
    return new ChainPaymentSettlement({ chainId: options.chainId, rpcUrl: options.rpcUrl, settlerPrivateKey: options.settlerPrivateKey });
  }
  return new UnconfiguredPaymentSettlement();
}
