import { custom, decodeFunctionData, keccak256, parseSignature, parseTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ChainPaymentSettlement, defaultPaymentSettlement, EIP3009_TRANSFER_WITH_AUTHORIZATION_ABI } from './chain.payment-settlement';
import { PaymentEnvSchema, paymentOptionsFromEnv } from './payment.options';
import { PaymentPendingError, PaymentSettlementError, type SettlementRequest } from './payment-settlement.port';

// No chain runs on the test machines: the JSON-RPC endpoint is a scripted EIP-1193 transport
// that answers what viem asks while building, sending and confirming the transaction, and keeps the raw
// transaction so the test can decode exactly what would reach the token contract.

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as const;

function rpc(options: { receiptStatus?: '0x1' | '0x0'; refuseSend?: string; noReceipt?: boolean } = {}) {
  const sent: Hex[] = [];
  const calls: string[] = [];
  const transport = custom({
    async request({ method, params }: { method: string; params?: unknown[] }) {
      calls.push(method);
      switch (method) {
        case 'eth_chainId':
          return '0x14a34';
        case 'eth_getTransactionCount':
          return '0x0';
        case 'eth_estimateGas':
          return '0x186a0';
        case 'eth_maxPriorityFeePerGas':
        case 'eth_gasPrice':
          return '0x1';
        case 'eth_getBlockByNumber':
          return { number: '0x1', baseFeePerGas: '0x1', hash: `0x${'11'.repeat(32)}`, timestamp: '0x1', transactions: [] };
        case 'eth_blockNumber':
          return '0x2';
        case 'eth_sendRawTransaction': {
          if (options.refuseSend) throw new Error(options.refuseSend);
          const raw = (params as Hex[])[0];
          sent.push(raw);
          return keccak256(raw);
        }
        case 'eth_getTransactionByHash': {
          // Known to the node, not yet mined.
          const raw = sent.find((r) => keccak256(r) === (params as Hex[])[0]);
          if (!raw) return null;
          const tx = parseTransaction(raw);
          const hex = (n: bigint | number | undefined) => `0x${BigInt(n ?? 0).toString(16)}`;
          return {
            hash: keccak256(raw), from: '0x0000000000000000000000000000000000000001', to: tx.to, nonce: hex(tx.nonce), gas: hex(tx.gas), value: '0x0', input: tx.data,
            maxFeePerGas: hex(tx.maxFeePerGas), maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas), chainId: hex(tx.chainId), type: '0x2',
            blockHash: null, blockNumber: null, transactionIndex: null, v: '0x0', yParity: '0x0', r: tx.r, s: tx.s, accessList: [],
          };
        }
        case 'eth_getTransactionReceipt':
          if (options.noReceipt) return null;
          return {
            transactionHash: (params as Hex[])[0],
            transactionIndex: '0x0',
            blockHash: `0x${'22'.repeat(32)}`,
            blockNumber: '0x1',
            from: '0x0000000000000000000000000000000000000001',
            to: USDC,
            cumulativeGasUsed: '0x5208',
            gasUsed: '0x5208',
            effectiveGasPrice: '0x1',
            contractAddress: null,
            logs: [],
            logsBloom: `0x${'00'.repeat(256)}`,
            status: options.receiptStatus ?? '0x1',
            type: '0x2',
          };
        default:
          throw new Error(`unexpected RPC ${method}`);
      }
    },
  });
  return { transport, sent, calls };
}

async function authorization(): Promise<SettlementRequest> {
  const payer = privateKeyToAccount(generatePrivateKey());
  const signature = await payer.signMessage({ message: 'any 65-byte signature' });
  return {
    challengeId: 'challenge-1',
    chainId: 84532,
    currency: USDC,
    authorization: { from: payer.address, to: '0x000000000000000000000000000000000000dEaD', value: '50000', validAfter: '0', validBefore: '1900000000', nonce: `0x${'ab'.repeat(32)}`, signature },
  };
}

describe('ChainPaymentSettlement', () => {
  it('submits transferWithAuthorization with the payer authorization and answers the transaction hash', async () => {
    const { transport, sent } = rpc();
    const settlement = new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport, receiptTimeoutMs: 5_000 });
    const request = await authorization();
    const result = await settlement.settle(request);
    expect(sent).toHaveLength(1);
    expect(result.reference).toBe(keccak256(sent[0]));
    const tx = parseTransaction(sent[0]);
    expect(tx.to?.toLowerCase()).toBe(USDC.toLowerCase());
    expect(tx.chainId).toBe(84532);
    const call = decodeFunctionData({ abi: EIP3009_TRANSFER_WITH_AUTHORIZATION_ABI, data: tx.data! });
    const sig = parseSignature(request.authorization.signature);
    const a = request.authorization;
    expect(call.functionName).toBe('transferWithAuthorization');
    expect(call.args).toEqual([a.from, '0x000000000000000000000000000000000000dEaD', 50_000n, 0n, 1_900_000_000n, a.nonce, Number(sig.v), sig.r, sig.s]);
  });

  it('refuses a reverted transfer, a transfer the node rejects, and a payment for another chain', async () => {
    const reverted = rpc({ receiptStatus: '0x0' });
    await expect(new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport: reverted.transport }).settle(await authorization())).rejects.toThrow(/reverted/);
    const refused = rpc({ refuseSend: 'execution reverted: FiatTokenV2: invalid signature' });
    await expect(new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport: refused.transport }).settle(await authorization())).rejects.toBeInstanceOf(PaymentSettlementError);
    const other = { ...(await authorization()), chainId: 8453 };
    await expect(new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport: rpc().transport }).settle(other)).rejects.toThrow(/chain 8453/);
  });
});

describe('ChainPaymentSettlement: references, nonces and unconfirmed transfers', () => {
  it('hands the transaction hash to onSubmitted before anything is broadcast, and answers that hash', async () => {
    const { transport, sent, calls } = rpc();
    const settlement = new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport, receiptTimeoutMs: 5_000 });
    const recorded: Array<{ reference: string; sentBefore: number; sendCallsBefore: number }> = [];
    const result = await settlement.settle({ ...(await authorization()), onSubmitted: async (reference) => void recorded.push({ reference, sentBefore: sent.length, sendCallsBefore: calls.filter((c) => c === 'eth_sendRawTransaction').length }) });
    expect(recorded).toEqual([{ reference: result.reference, sentBefore: 0, sendCallsBefore: 0 }]);
    expect(result.reference).toBe(keccak256(sent[0]));
  });

  it('sends nothing when the reference cannot be stored', async () => {
    const { transport, calls } = rpc();
    const settlement = new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport });
    const attempt = settlement.settle({ ...(await authorization()), onSubmitted: () => Promise.reject(new Error('billing unavailable')) });
    await expect(attempt).rejects.toBeInstanceOf(PaymentSettlementError);
    await expect(attempt).rejects.toThrow(/not sent/);
    expect(calls).not.toContain('eth_sendRawTransaction');
  });

  it('gives parallel settlements of one process distinct account nonces (viem nonceManager)', async () => {
    const { transport, sent } = rpc();
    const settlement = new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport, receiptTimeoutMs: 5_000 });
    const results = await Promise.all([settlement.settle(await authorization()), settlement.settle(await authorization()), settlement.settle(await authorization())]);
    expect(sent).toHaveLength(3);
    expect(sent.map((raw) => parseTransaction(raw).nonce).sort()).toEqual([0, 1, 2]);
    expect(new Set(results.map((r) => r.reference)).size).toBe(3);
  });

  it('a receipt that does not arrive in time is pending with its hash, not refused', async () => {
    const { transport, sent } = rpc({ noReceipt: true });
    const settlement = new ChainPaymentSettlement({ chainId: 84532, rpcUrl: 'http://chain.invalid', settlerPrivateKey: generatePrivateKey(), transport, receiptTimeoutMs: 300, pollingIntervalMs: 50 });
    let submitted: string | undefined;
    const err = await settlement.settle({ ...(await authorization()), onSubmitted: async (reference) => void (submitted = reference) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaymentPendingError);
    expect(err).not.toBeInstanceOf(PaymentSettlementError);
    expect((err as PaymentPendingError).reference).toBe(keccak256(sent[0]));
    expect(submitted).toBe((err as PaymentPendingError).reference);
  });
});

describe('payment options and the default settlement', () => {
  it('defaults to Base Sepolia USDC, no recipient, and a settlement that refuses with the variables to set', async () => {
    const o = paymentOptionsFromEnv(PaymentEnvSchema.parse({}));
    expect(o).toMatchObject({ chainId: 84532, currency: USDC, decimals: 6, tokenName: 'USDC', tokenVersion: '2', realm: 'localhost', challengeTtlSeconds: 300 });
    expect(o.recipient).toBe('0x0000000000000000000000000000000000000000');
    expect(Buffer.byteLength(o.secretKey)).toBeGreaterThanOrEqual(32);
    await expect(defaultPaymentSettlement(o).settle(await authorization())).rejects.toThrow(/PAYMENT_RECIPIENT, PAYMENT_RPC_URL and PAYMENT_SETTLER_PRIVATE_KEY/);
    const configured = paymentOptionsFromEnv(PaymentEnvSchema.parse({ PAYMENT_RECIPIENT: '0x000000000000000000000000000000000000dEaD', PAYMENT_RPC_URL: 'http://chain.invalid', PAYMENT_SETTLER_PRIVATE_KEY: generatePrivateKey() }));
    expect(defaultPaymentSettlement(configured).name).toBe('chain');
  });

  it('names the variable of a bad secret or an unknown chain without echoing secrets', () => {
    expect(() => paymentOptionsFromEnv(PaymentEnvSchema.parse({ PAYMENT_SECRET_KEY: 'short-secret' }))).toThrow(/PAYMENT_SECRET_KEY must be at least 32 bytes/);
    expect(() => paymentOptionsFromEnv(PaymentEnvSchema.parse({ PAYMENT_SETTLER_PRIVATE_KEY: '0xnothex' }))).toThrow(/^(?!.*0xnothex).*PAYMENT_SETTLER_PRIVATE_KEY/);
    expect(() => paymentOptionsFromEnv(PaymentEnvSchema.parse({ PAYMENT_CHAIN_ID: '1' }))).toThrow(/PAYMENT_CHAIN_ID=1 needs PAYMENT_CURRENCY, PAYMENT_CURRENCY_DECIMALS, PAYMENT_CURRENCY_NAME, PAYMENT_CURRENCY_VERSION/);
  });
});
