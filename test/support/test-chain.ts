import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeFunctionData, type Hex, keccak256, parseTransaction, recoverTransactionAddress, serializeSignature, verifyTypedData } from 'viem';
import { EIP3009_TRANSFER_WITH_AUTHORIZATION_ABI, type TransferAuthorization } from '@agent-memory/gateway';

/** The EIP-712 domain and chain of the token the test chain holds (the gateway's payment defaults: Base Sepolia USDC). */
export interface TestChainToken {
  chainId: number;
  address: `0x${string}`;
  name: string;
  version: string;
}

const BASE_SEPOLIA_USDC: TestChainToken = { chainId: 84532, address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2' };

/** A transfer the test chain executed: the authorization, its token and chain, and the transaction hash. */
export interface ChainTransfer {
  chainId: number;
  currency: `0x${string}`;
  authorization: TransferAuthorization;
  reference: Hex;
}

/** One mined transaction of the test chain. */
interface MinedTransaction {
  raw: Hex;
  hash: Hex;
  from: `0x${string}`;
  to: `0x${string}` | null;
  success: boolean;
}

/** EIP-712 types of an EIP-3009 `TransferWithAuthorization` (the first six inputs of `transferWithAuthorization`). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

const hex = (n: bigint | number | undefined) => `0x${BigInt(n ?? 0).toString(16)}`;

/**
 * A JSON-RPC endpoint over HTTP that stands in for an EVM chain in tests (no chain runs on the
 * test machines), so that a gateway *process* settles payments through its real
 * {@link ChainPaymentSettlement} (`PAYMENT_RPC_URL`). It answers what viem asks while preparing, sending and
 * confirming a transaction, and "mines" each raw transaction at once: a `transferWithAuthorization` call on
 * the token whose EIP-3009 authorization is signed by its `from` (EIP-712, the token's domain) succeeds and
 * is recorded in {@link settled}; anything else gets a reverted receipt.
 *
 * Like {@link LocalPaymentSettlement} it deliberately does not refuse a reused authorization nonce, so that
 * tests prove the gateway's own replay guard. `settled`/`totalBaseUnits()` match the local settlement's,
 * so a suite can watch either. Unknown methods answer a JSON-RPC error (-32601).
 */
export class TestChainRpcServer {
  readonly settled: ChainTransfer[] = [];
  private readonly mined = new Map<Hex, MinedTransaction>();
  private readonly nonces = new Map<string, number>();
  private block = 1;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly token: TestChainToken,
  ) {}

  /** Starts the endpoint on a free port of 127.0.0.1. */
  static async start(token: TestChainToken = BASE_SEPOLIA_USDC): Promise<TestChainRpcServer> {
    let chain: TestChainRpcServer | undefined;
    const server = createServer((req, res) => {
      void readBody(req).then(async (text) => {
        let reply: unknown;
        try {
          const body = JSON.parse(text) as RpcRequest | RpcRequest[];
          reply = Array.isArray(body) ? await Promise.all(body.map((r) => chain!.answer(r))) : await chain!.answer(body);
        } catch {
          reply = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } };
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    chain = new TestChainRpcServer(server, `http://127.0.0.1:${port}`, token);
    return chain;
  }

  /** Sum of settled amounts in token base units (USDC: micro-USD). */
  totalBaseUnits(): bigint {
    return this.settled.reduce((sum, s) => sum + BigInt(s.authorization.value), 0n);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer({ id, method, params = [] }: RpcRequest): Promise<unknown> {
    try {
      return { jsonrpc: '2.0', id, result: await this.call(method, params) };
    } catch (err) {
      return { jsonrpc: '2.0', id, error: { code: (err as { code?: number }).code ?? -32000, message: (err as Error).message } };
    }
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case 'eth_chainId':
        return hex(this.token.chainId);
      case 'eth_blockNumber':
        return hex(this.block);
      case 'eth_getBlockByNumber':
        return { number: hex(this.block), baseFeePerGas: '0x1', hash: `0x${this.block.toString(16).padStart(64, '0')}`, timestamp: hex(Math.floor(Date.now() / 1000)), transactions: [] };
      case 'eth_getTransactionCount':
        return hex(this.nonces.get(String(params[0]).toLowerCase()) ?? 0);
      case 'eth_estimateGas':
        return '0x186a0';
      case 'eth_maxPriorityFeePerGas':
      case 'eth_gasPrice':
        return '0x1';
      case 'eth_sendRawTransaction':
        return this.mine(params[0] as Hex);
      case 'eth_getTransactionReceipt': {
        const tx = this.mined.get(params[0] as Hex);
        if (!tx) return null;
        return {
          transactionHash: tx.hash, transactionIndex: '0x0', blockHash: `0x${'22'.repeat(32)}`, blockNumber: hex(this.block), from: tx.from, to: tx.to,
          cumulativeGasUsed: '0x5208', gasUsed: '0x5208', effectiveGasPrice: '0x1', contractAddress: null, logs: [], logsBloom: `0x${'00'.repeat(256)}`,
          status: tx.success ? '0x1' : '0x0', type: '0x2',
        };
      }
      default:
        throw Object.assign(new Error(`method ${method} is not supported by the test chain`), { code: -32601 });
    }
  }

  /** Executes a raw transaction at once: a correctly signed `transferWithAuthorization` on the token succeeds. */
  private async mine(raw: Hex): Promise<Hex> {
    const hash = keccak256(raw);
    if (this.mined.has(hash)) throw new Error('already known');
    const tx = parseTransaction(raw);
    const from = await recoverTransactionAddress({ serializedTransaction: raw as Parameters<typeof recoverTransactionAddress>[0]['serializedTransaction'] });
    const sender = from.toLowerCase();
    if (tx.nonce !== (this.nonces.get(sender) ?? 0)) throw new Error(`nonce ${tx.nonce} is not the account's next nonce`);
    this.nonces.set(sender, (this.nonces.get(sender) ?? 0) + 1);
    this.block++;
    const record = await this.transfer(tx.to ?? null, tx.data, hash);
    if (record) this.settled.push(record);
    this.mined.set(hash, { raw, hash, from, to: tx.to ?? null, success: record !== undefined });
    return hash;
  }

  /** The settlement a transaction's call makes, or undefined when the token would revert. */
  private async transfer(to: `0x${string}` | null, data: Hex | undefined, reference: Hex): Promise<ChainTransfer | undefined> {
    if (!to || !data || to.toLowerCase() !== this.token.address.toLowerCase()) return undefined;
    let args: readonly unknown[];
    try {
      const call = decodeFunctionData({ abi: EIP3009_TRANSFER_WITH_AUTHORIZATION_ABI, data });
      args = call.args;
    } catch {
      return undefined;
    }
    const [from, recipient, value, validAfter, validBefore, nonce, v, r, s] = args as [`0x${string}`, `0x${string}`, bigint, bigint, bigint, Hex, number, Hex, Hex];
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (now <= validAfter || now >= validBefore) return undefined;
    const signature = serializeSignature({ r, s, v: BigInt(v) });
    const valid = await verifyTypedData({
      address: from,
      domain: { name: this.token.name, version: this.token.version, chainId: this.token.chainId, verifyingContract: this.token.address },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: { from, to: recipient, value, validAfter, validBefore, nonce },
      signature,
    }).catch(() => false);
    if (!valid) return undefined;
    return {
      chainId: this.token.chainId,
      currency: this.token.address,
      authorization: { from, to: recipient, value: value.toString(), validAfter: validAfter.toString(), validBefore: validBefore.toString(), nonce, signature },
      reference,
    };
  }
}

interface RpcRequest {
  id: number | string | null;
  method: string;
  params?: unknown[];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
