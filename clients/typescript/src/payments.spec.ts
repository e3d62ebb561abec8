import { PaymentRefusedError, PaymentRequiredError } from './errors';
import { baseUnitsToMicroUsd, challengeTerms, formatMicro, Payer, pinnedCurrency, usdToMicro } from './payments';
import { resolveWallet } from './signature';
import { fail, ok, scripted } from '../test/scripted-fetch';

// Paying 402 challenges (docs/billing.md, "The `Payment` scheme"): the client pays only in the token it
// pinned (chain, address, decimals; default Base Sepolia USDC) and at most its maximum, computed with its
// own decimals; mppx gets the same allowlist and cap.

const WALLET = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** A `WWW-Authenticate: Payment` challenge as the service states it (mppx's wire form). */
function challenge(amount: string, details: { chainId?: number; decimals?: number; currency?: string } = {}): string {
  const { chainId = 84532, decimals = 6, currency = BASE_SEPOLIA_USDC } = details;
  const request = { amount, currency, recipient: RECIPIENT, methodDetails: { chainId, decimals, credentialTypes: ['authorization'] } };
  const expires = new Date(Date.now() + 60_000).toISOString();
  return `Payment id="c1", realm="api.test", method="evm", intent="charge", expires="${expires}", request="${Buffer.from(JSON.stringify(request)).toString('base64url')}"`;
}

/** A client paying at most `max` USD that gets a 402 with `wwwAuthenticate`, then (if it pays) a 200. */
function payingClient(wwwAuthenticate: string, max = '0.05', payments: Record<string, unknown> = {}) {
  return scripted([fail(402, 'PAYMENT_REQUIRED', { 'www-authenticate': wwwAuthenticate }), ok({ memories: [], count: 0 })], {
    wallet: WALLET,
    payments: { enabled: true, maxPricePerCall: max, ...payments },
  });
}

/** The signed transfer of an `Authorization: Payment` credential. */
const paidValue = (authorization: string) => (JSON.parse(Buffer.from(authorization.slice('Payment '.length), 'base64url').toString()) as { payload: { value: string } }).payload.value;

describe('paying 402 challenges', () => {
  it('without payments enabled: PaymentRequiredError carrying the challenge', async () => {
    const stated = challenge('50000');
    const { client } = scripted([fail(402, 'PAYMENT_REQUIRED', { 'www-authenticate': stated })]);
    const error = await client.memories.recall('rec_1', { query: 'q' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect(error).not.toBeInstanceOf(PaymentRefusedError);
    expect((error as PaymentRequiredError).challenge).toBe(stated);
  });

  it('pays a challenge in the pinned token (default Base Sepolia USDC) at the maximum, signing its amount', async () => {
    const { client, calls } = payingClient(challenge('50000'));
    expect(await client.memories.recall('rec_1', { query: 'q' })).toEqual({ memories: [], count: 0 });
    expect(calls).toHaveLength(2);
    expect(paidValue(calls[1].authorization!)).toBe('50000');
  });

  it('refuses a challenge above maxPricePerCall before signing anything', async () => {
    const { client, calls } = payingClient(challenge('50000'), '0.049999');
    const error = await client.memories.recall('rec_1', { query: 'q' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRefusedError);
    expect(error).toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402, priceMicroUsd: 50_000n, maxPriceMicroUsd: 49_999n });
    expect(calls).toHaveLength(1);
  });

  it('refuses USDC at 5e16 base units that claims 18 decimals (0.05 "USD" by the server, 5e10 USDC signed)', async () => {
    const { client, calls } = payingClient(challenge('50000000000000000', { decimals: 18 }));
    const error = await client.memories.recall('rec_1', { query: 'q' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRefusedError);
    expect((error as Error).message).toContain('18 decimals instead of 6');
    expect(calls).toHaveLength(1);
  });

  it('refuses a challenge on another chain or in another token', async () => {
    for (const [other, reason] of [
      [challenge('50000', { chainId: 1 }), 'chain 1 instead of 84532'],
      [challenge('50000', { currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }), 'token 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
    ]) {
      const { client, calls } = payingClient(other);
      const error = await client.memories.recall('rec_1', { query: 'q' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentRefusedError);
      expect((error as Error).message).toContain(reason);
      expect(calls).toHaveLength(1);
    }
  });

  it('pays on the chain and token the client pinned (Base: its USDC by default), and refuses the default one there', async () => {
    const base = { chainId: 8453 };
    const usdcOnBase = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const paid = payingClient(challenge('50000', { chainId: 8453, currency: usdcOnBase }), '0.05', base);
    await paid.client.memories.recall('rec_1', { query: 'q' });
    expect(paidValue(paid.calls[1].authorization!)).toBe('50000');
    const refused = payingClient(challenge('50000'), '0.05', base);
    await expect(refused.client.memories.recall('rec_1', { query: 'q' })).rejects.toBeInstanceOf(PaymentRefusedError);
  });

  it('mppx itself is given the pinned chain, token and cap: it refuses to sign anything else', async () => {
    const payer = new Payer(() => resolveWallet(WALLET), { enabled: true, maxPricePerCall: '0.05' });
    const mppx = await payer['load'](50_000n);
    const as402 = (c: string) => new Response(null, { status: 402, headers: { 'WWW-Authenticate': c } });
    await expect(mppx.createCredential(as402(challenge('50000')))).resolves.toMatch(/^Payment /);
    await expect(mppx.createCredential(as402(challenge('50001')))).rejects.toThrow(/maxAmount/);
    await expect(mppx.createCredential(as402(challenge('50000', { chainId: 1 })))).rejects.toThrow(/chain ID is not allowed/);
    await expect(mppx.createCredential(as402(challenge('50000', { currency: RECIPIENT })))).rejects.toThrow(/currency is not allowed/);
  });

  it('pins from its options only: a chain without known USDC needs payments.currency; malformed values are refused', () => {
    expect(pinnedCurrency({ enabled: true, maxPricePerCall: '0.05' })).toEqual({ chainId: 84532, address: BASE_SEPOLIA_USDC, decimals: 6, token: { name: 'USDC', version: '2' } });
    expect(pinnedCurrency({ enabled: true, maxPricePerCall: '0.05', chainId: 8453 }).token).toEqual({ name: 'USD Coin', version: '2' });
    expect(() => pinnedCurrency({ enabled: true, maxPricePerCall: '0.05', chainId: 1 })).toThrow(/payments.currency: required on chain 1/);
    expect(() => pinnedCurrency({ enabled: true, maxPricePerCall: '0.05', decimals: 6.5 })).toThrow(TypeError);
    expect(pinnedCurrency({ enabled: true, maxPricePerCall: '0.05', chainId: 1, currency: RECIPIENT, decimals: 18 })).toMatchObject({ chainId: 1, address: RECIPIENT, decimals: 18 });
  });

  it('reads prices in micro-USD with the pinned decimals, rounding a fraction of a micro-USD up', () => {
    expect(usdToMicro('0.05')).toBe(50_000n);
    expect(usdToMicro(10)).toBe(10_000_000n);
    expect(() => usdToMicro('0.0000001')).toThrow(TypeError);
    expect(challengeTerms(challenge('50000'))).toEqual({ amount: 50_000n, currency: BASE_SEPOLIA_USDC, chainId: 84532, decimals: 6 });
    expect(baseUnitsToMicroUsd(50_000_000_000_000_001n, 18)).toBe(50_001n);
    expect(baseUnitsToMicroUsd(5n, 2)).toBe(50_000n);
    expect(challengeTerms('Payment request="!!"')).toBeUndefined();
    expect(formatMicro(50_000n)).toBe('0.05');
    expect(formatMicro(1_234_567n)).toBe('1.234567');
  });
});
