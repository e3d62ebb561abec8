/* eslint-disable @typescript-eslint/no-require-imports */
import { createHash } from 'node:crypto';
import type * as ClientMppx from 'mppx/dist/client/Mppx';
import type * as EvmClientCharge from 'mppx/dist/evm/client/Charge';
import type { Account } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { PaymentPendingError, type PaymentSettlement, PaymentSettlementError, type SettlementRequest, type SettlementResult } from '@agent-memory/gateway';

// mppx ships only ES modules (see services/gateway/src/billing/mppx.ts); the types come from the dist paths.
const clientMppx: { Mppx: typeof ClientMppx } = require('mppx/client');
const evmClient: { charge: typeof EvmClientCharge.charge } = require('mppx/evm/client');

/** One settlement the local settlement accepted. */
export interface LocalSettlementRecord extends SettlementRequest {
  reference: string;
}

/**
 * A {@link PaymentSettlement} for tests (docs/billing.md "Settlement"): accepts every verified authorization
 * without a chain, records it, and answers a deterministic reference. It deliberately does not refuse a
 * reused nonce, so tests prove that the gateway's own replay guard (the claimed challenge id) stops replays.
 * Like the chain settlement it hands the reference to `onSubmitted` before the money "moves".
 * `failWith` makes the next settlements fail with that message; `pendingWith` makes them submitted but
 * unconfirmed ({@link PaymentPendingError}: the outcome is unknown, nothing is recorded as settled).
 */
export class LocalPaymentSettlement implements PaymentSettlement {
  readonly name = 'local';
  readonly settled: LocalSettlementRecord[] = [];
  failWith?: string;
  pendingWith?: string;

  async settle(request: SettlementRequest): Promise<SettlementResult> {
    if (this.failWith) throw new PaymentSettlementError(this.failWith);
    const reference = `0x${createHash('sha256').update(`${request.authorization.nonce}:${this.settled.length}`).digest('hex')}`;
    await request.onSubmitted?.(reference);
    if (this.pendingWith) throw new PaymentPendingError(reference, this.pendingWith);
    const { onSubmitted: _hook, ...settled } = request;
    this.settled.push({ ...settled, reference });
    return { reference };
  }

  /** Sum of settled amounts in token base units (USDC: micro-USD). */
  totalBaseUnits(): bigint {
    return this.settled.reduce((sum, s) => sum + BigInt(s.authorization.value), 0n);
  }
}

/** The EIP-712 domain of the payment token (the gateway's PAYMENT_CURRENCY_NAME/VERSION; Base Sepolia USDC by default). */
export interface PaymentTokenDomain {
  name: string;
  version: string;
}

/**
 * A payment-capable client (the agent's wallet) built on mppx's client side and a viem local account:
 * turns a `WWW-Authenticate: Payment` challenge into a real, signed `Authorization: Payment` credential
 * (an EIP-3009 transfer authorization), or runs a whole request through mppx's 402-handling fetch.
 */
export class PaymentTestClient {
  readonly account: Account;
  private readonly client;

  constructor(options: { privateKey?: `0x${string}`; token?: PaymentTokenDomain } = {}) {
    this.account = privateKeyToAccount(options.privateKey ?? generatePrivateKey());
    const token = options.token ?? { name: 'USDC', version: '2' };
    this.client = clientMppx.Mppx.create({ methods: [evmClient.charge({ account: this.account, authorization: token })], polyfill: false });
  }

  get address(): `0x${string}` {
    return this.account.address;
  }

  /** The `Authorization` header value (`Payment <credential>`) that pays `wwwAuthenticate`. */
  async credentialFor(wwwAuthenticate: string): Promise<string> {
    return this.client.createCredential(new Response(null, { status: 402, headers: { 'WWW-Authenticate': wwwAuthenticate } }));
  }

  /** mppx's payment-aware fetch: a 402 with a challenge is paid and the request repeated with the credential. */
  fetch(input: string, init?: RequestInit): Promise<Response> {
    return this.client.fetch(input, init);
  }
}

/** Decodes the `request` parameter of a `WWW-Authenticate: Payment` challenge (base64url JSON) and its other parameters. */
export function parsePaymentChallenge(wwwAuthenticate: string): { params: Record<string, string>; request: Record<string, unknown>; opaque?: Record<string, string> } {
  const params: Record<string, string> = {};
  for (const m of wwwAuthenticate.matchAll(/(\w+)="([^"]*)"/g)) params[m[1]] = m[2]!;
  const decode = (v: string) => JSON.parse(Buffer.from(v, 'base64url').toString('utf8'));
  return { params, request: params.request ? decode(params.request) : {}, opaque: params.opaque ? decode(params.opaque) : undefined };
}
