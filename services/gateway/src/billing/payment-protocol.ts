import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { getAddress } from 'viem';
import { formatUsd, type PaidOperation, PAID_ROUTES, PaymentRequiredError, PRICE_LIST_MICRO_USD, usdLabel } from '@agent-memory/shared';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { mppx, mppxEvmServer, mppxServer } from './mppx';
import { defaultPaymentOptions, type PaymentOptions } from './payment.options';
import { PAYMENT_SETTLEMENT, PaymentPendingError, type PaymentSettlement, PaymentSettlementError, type TransferAuthorization } from './payment-settlement.port';

/**
 * The exact HTTP request a call challenge is issued for and its credential must come back with: method,
 * path with query string as sent (`req.url`), and the raw body bytes (none for GET/DELETE without a body).
 */
export interface RequestBinding {
  method: string;
  url: string;
  body?: string | Buffer;
}

/** base64url SHA-256 of `METHOD\nurl\n` followed by the raw body: the request part of a call's scope. */
export function requestDigest(r: RequestBinding): string {
  return createHash('sha256').update(`${r.method.toUpperCase()}\n${r.url}\n`).update(r.body ?? '').digest('base64url');
}

/** The {@link RequestBinding} of a Fastify request (the gateway keeps `rawBody`: apps create it with `rawBody: true`). */
export function requestBindingOf(req: { method: string; url: string; rawBody?: Buffer | string }): RequestBinding {
  return { method: req.method, url: req.url, body: req.rawBody };
}

/**
 * What a challenge asks to be paid for (docs/billing.md): one paid call on one record, or a top-up of an
 * agent's live balance. `scope` is bound into the challenge (mppx `opaque`, covered by its HMAC id): for a
 * call `call:<operation>:<recordId>:<request digest>`, so a credential paid for one operation, record,
 * body or query is refused on another; `agentId` (top-ups only) is bound the same way.
 */
export interface PaymentTarget {
  purpose: 'call' | 'top_up';
  operation?: PaidOperation;
  recordId?: string;
  agentId?: string;
  amountMicroUsd: number;
  scope: string;
  description: string;
}

/** A credential that passed every check of the protocol (not yet settled, not yet claimed). */
export interface VerifiedPayment {
  challengeId: string;
  payer: `0x${string}`;
  amountMicroUsd: number;
  /** The agent the challenge was issued to (top-ups), from the HMAC-bound challenge metadata. */
  boundAgentId?: string;
  /** The parsed credential (mppx), passed back to {@link PaymentProtocol.settle}. */
  credential: unknown;
}

/** A settled payment: its reference and the `Payment-Receipt` header value. */
export interface SettledPayment {
  reference: string;
  receipt: string;
}

/**
 * 402 without a challenge (docs/billing.md "When a settlement is not confirmed"): the money of a Payment
 * credential may have moved (`reference`), but the request did not complete and the outcome is being
 * reconciled. No fresh challenge, so that a payment client does not pay a second time.
 */
export class PaymentReconciliationError extends PaymentRequiredError {
  constructor(
    readonly reference: string,
    message: string,
  ) {
    super(message);
  }
}

type MppxInstance = ReturnType<typeof createMppx>;
type SubmittedHook = (reference: string) => Promise<void>;

function createMppx(options: PaymentOptions, settlement: PaymentSettlement, hookOf: (challengeId: string) => SubmittedHook | undefined) {
  return mppxServer.Mppx.create({
    methods: [
      mppxEvmServer.charge({
        chainId: options.chainId,
        currency: options.currency,
        decimals: options.decimals,
        recipient: options.recipient,
        authorization: { name: options.tokenName, version: options.tokenVersion },
        settle: async ({ credential, payload, request }) =>
          settlement.settle({
            challengeId: credential.challenge.id,
            chainId: request.methodDetails.chainId,
            currency: request.currency as `0x${string}`,
            authorization: payload as unknown as TransferAuthorization,
            onSubmitted: hookOf(credential.challenge.id),
          }),
      }),
    ],
    secretKey: options.secretKey,
    realm: options.realm,
  });
}

/**
 * The HTTP `Payment` authentication scheme (IETF draft "The Payment HTTP Authentication Scheme", the
 * Machine Payments Protocol; docs/billing.md, "The `Payment` scheme") on top of `mppx`, method `evm/charge`: states prices in
 * `WWW-Authenticate: Payment` challenges whose id is an HMAC of their parameters (no server state),
 * verifies credentials (HMAC, expiry, amount, recipient, chain, scope, EIP-712 signature) and settles
 * them through the {@link PaymentSettlement} port. It does not stop replays: the caller claims the
 * challenge id in the billing service before settling.
 */
@Injectable()
export class PaymentProtocol {
  readonly options: PaymentOptions;
  private readonly server: MppxInstance;
  /** `onSubmitted` of the settlements in progress, by challenge id (mppx calls the settlement without our context). */
  private readonly submittedHooks = new Map<string, SubmittedHook>();

  constructor(@Inject(GATEWAY_OPTIONS) gateway: GatewayOptions, @Inject(PAYMENT_SETTLEMENT) readonly settlement: PaymentSettlement) {
    this.options = gateway.payments ?? defaultPaymentOptions();
    this.server = createMppx(this.options, settlement, (challengeId) => this.submittedHooks.get(challengeId));
  }

  /**
   * The target of one paid call: the operation's price (docs/billing.md, "Prices"), scoped to the operation, the record
   * and the exact request (method, path with query, raw body: {@link requestDigest}), so that the credential
   * is only good for the request whose 402 carried the challenge (a payment client repeats that request).
   */
  callTarget(operation: PaidOperation, recordId: string, request: RequestBinding): PaymentTarget {
    const amountMicroUsd = PRICE_LIST_MICRO_USD[operation];
    const unit = PAID_ROUTES.find((r) => r.operation === operation)?.unit ?? 'call';
    return {
      purpose: 'call',
      operation,
      recordId,
      amountMicroUsd,
      scope: `call:${operation}:${recordId}:${requestDigest(request)}`,
      description: `${operation}: ${usdLabel(amountMicroUsd)} per ${unit} (record ${recordId}; this exact request)`,
    };
  }

  /** The target of a top-up of `agentId`'s live balance by `amountMicroUsd`. */
  topUpTarget(agentId: string, amountMicroUsd: number): PaymentTarget {
    return { purpose: 'top_up', agentId, amountMicroUsd, scope: 'top_up', description: `top-up: ${usdLabel(amountMicroUsd)} to the balance of ${agentId}` };
  }

  /** The `WWW-Authenticate` value of a fresh challenge for `target` (expires after the configured TTL). */
  async challenge(target: PaymentTarget): Promise<string> {
    const challenge = await this.server.challenge.evm.charge({
      amount: formatUsd(target.amountMicroUsd),
      description: target.description,
      scope: target.scope,
      ...(target.agentId ? { meta: { agent: target.agentId } } : {}),
      expires: mppx.Expires.seconds(this.options.challengeTtlSeconds),
    });
    return mppx.Challenge.serialize(challenge);
  }

  /** The agent a credential's challenge was issued to, read before verification (it is checked by the HMAC then). */
  boundAgentOf(header: string): string | undefined {
    try {
      const { challenge } = mppx.Credential.deserialize(mppx.Credential.extractPaymentScheme(header) ?? '');
      // On the wire the metadata is the challenge's `opaque` parameter (base64url JSON).
      const meta = challenge.opaque ? (JSON.parse(Buffer.from(challenge.opaque, 'base64url').toString('utf8')) as Record<string, unknown>) : mppx.Challenge.meta(challenge);
      return typeof meta?.agent === 'string' ? meta.agent : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Verifies an `Authorization: Payment <credential>` header for `target` without moving money.
   * @throws PaymentRequiredError (with a fresh challenge) when the credential is malformed, was not issued
   *   by this server, has expired, is for another amount, operation, record, recipient or chain, or its
   *   signature does not match.
   */
  async verify(header: string, target: PaymentTarget): Promise<VerifiedPayment> {
    try {
      const raw = mppx.Credential.extractPaymentScheme(header);
      if (!raw) throw new Error('expected "Payment <credential>"');
      const credential = mppx.Credential.deserialize<{ from: string }>(raw);
      const validation = await this.server.validateCredential(credential, this.bindingOf(target));
      const payer = getAddress((validation.details as { payer?: string } | undefined)?.payer ?? credential.payload.from);
      return { challengeId: credential.challenge.id, payer, amountMicroUsd: target.amountMicroUsd, boundAgentId: target.agentId, credential };
    } catch (err) {
      throw new PaymentRequiredError(`Payment credential refused: ${reasonOf(err)}`, await this.challenge(target));
    }
  }

  /**
   * Settles a verified credential (re-validated by mppx, then the settlement port). `onSubmitted` gets the
   * settlement reference before the money can move (the caller stores it with the claimed payment).
   * @throws PaymentReconciliationError (402, no challenge) when the settlement was submitted but its outcome
   *   is unknown: the payment must stay claimed for reconciliation, not be marked failed.
   * @throws PaymentRequiredError (with a fresh challenge) when the money did not move.
   */
  async settle(verified: VerifiedPayment, target: PaymentTarget, onSubmitted?: SubmittedHook): Promise<SettledPayment> {
    if (onSubmitted) this.submittedHooks.set(verified.challengeId, onSubmitted);
    try {
      const receipt = await this.server.broadcastCredential(verified.credential as Parameters<MppxInstance['broadcastCredential']>[0], this.bindingOf(target));
      return { reference: receipt.reference, receipt: mppx.Receipt.serialize(receipt) };
    } catch (err) {
      if (err instanceof PaymentPendingError) {
        throw new PaymentReconciliationError(
          err.reference,
          `Payment submitted as ${err.reference} but not confirmed yet (${err.reason}): it is being reconciled. Do not pay again: this request did not complete, and if the payment confirms its amount is credited to the agent's live balance`,
        );
      }
      throw new PaymentRequiredError(`Payment could not be settled: ${reasonOf(err)}`, await this.challenge(target));
    } finally {
      if (onSubmitted) this.submittedHooks.delete(verified.challengeId);
    }
  }

  /** Public payment parameters, for `GET /billing/prices`. */
  describe() {
    const o = this.options;
    return { scheme: 'Payment' as const, method: 'evm', intent: 'charge', chainId: o.chainId, currency: o.currency, recipient: o.recipient, decimals: o.decimals };
  }

  private bindingOf(target: PaymentTarget) {
    return { request: { amount: formatUsd(target.amountMicroUsd) }, scope: target.scope, ...(target.agentId ? { meta: { agent: target.agentId } } : {}) };
  }
}

/** A short, safe reason from an mppx or settlement error. */
function reasonOf(err: unknown): string {
  if (err instanceof PaymentSettlementError) return err.message;
  const e = err as { reason?: string; shortMessage?: string; message?: string };
  return (e.reason ?? e.shortMessage ?? e.message ?? 'invalid credential').split('\n')[0].slice(0, 300);
}
