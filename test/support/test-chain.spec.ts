import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ChainPaymentSettlement, PaymentSettlementError, type SettlementRequest } from '@agent-memory/gateway';
import { TestChainRpcServer, TRANSFER_WITH_AUTHORIZATION_TYPES } from './test-chain';

// The test chain stands in for an EVM node behind PAYMENT_RPC_URL in cluster-mode suites; these cases make
// sure it is not a rubber stamp: the gateway's real chain adapter settles a correctly signed EIP-3009
// authorization over HTTP, and a wrongly signed or expired one reverts and settles nothing.

const RECIPIENT = '0x000000000000000000000000000000000000dEaD' as const;

async function signedAuthorization(chain: TestChainRpcServer, overrides: { value?: string; validBefore?: string } = {}): Promise<SettlementRequest> {
  const payer = privateKeyToAccount(generatePrivateKey());
  const message = { from: payer.address, to: RECIPIENT, value: 50_000n, validAfter: 0n, validBefore: 1_900_000_000n, nonce: `0x${'ab'.repeat(32)}` as const };
  if (overrides.validBefore) message.validBefore = BigInt(overrides.validBefore);
  const signature = await payer.signTypedData({
    domain: { name: chain.token.name, version: chain.token.version, chainId: chain.token.chainId, verifyingContract: chain.token.address },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  return {
    challengeId: 'challenge-1',
    chainId: chain.token.chainId,
    currency: chain.token.address,
    authorization: { from: payer.address, to: RECIPIENT, value: overrides.value ?? '50000', validAfter: '0', validBefore: message.validBefore.toString(), nonce: message.nonce, signature },
  };
}

describe('TestChainRpcServer', () => {
  let chain: TestChainRpcServer;
  let settlement: ChainPaymentSettlement;
  beforeAll(async () => {
    chain = await TestChainRpcServer.start();
    settlement = new ChainPaymentSettlement({ chainId: chain.token.chainId, rpcUrl: chain.url, settlerPrivateKey: generatePrivateKey(), receiptTimeoutMs: 5_000, pollingIntervalMs: 50 });
  });
  afterAll(() => chain.close());

  it('settles a correctly signed authorization sent by the chain adapter over HTTP', async () => {
    const request = await signedAuthorization(chain);
    const { reference } = await settlement.settle(request);
    expect(chain.settled).toEqual([{ chainId: 84532, currency: chain.token.address, authorization: request.authorization, reference }]);
    expect(chain.totalBaseUnits()).toBe(50_000n);
  });

  it('reverts an authorization whose amount was changed after signing, or that has expired, and settles nothing', async () => {
    const before = chain.settled.length;
    await expect(settlement.settle(await signedAuthorization(chain, { value: '50001' }))).rejects.toThrow(PaymentSettlementError);
    await expect(settlement.settle(await signedAuthorization(chain, { validBefore: '1000' }))).rejects.toThrow(/reverted/);
    expect(chain.settled).toHaveLength(before);
    // The settler's account nonces still advance (reverted transactions are mined), so the next one settles.
    await expect(settlement.settle(await signedAuthorization(chain))).resolves.toEqual({ reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  });
});
