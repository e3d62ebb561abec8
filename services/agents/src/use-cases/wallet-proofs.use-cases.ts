import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { getAddress, verifyMessage } from 'viem';
import { createSiweMessage, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { AUTH_DEFAULTS, ValidationError, type WalletChallengeResponse, type WalletProof } from '@agent-memory/shared';
import type { WalletChallengeMessage } from '../agents.messages';
import { CLOCK, type Clock, hasExpired, secondsAfter } from '../clock';
import { AgentsRepository } from '../persistence/agents.repository';

/**
 * The deployment wallet challenges name (docs/authentication.md): `SIGNATURE_DOMAIN` as EIP-4361's
 * `domain` and the payment chain id as its `Chain ID`, the same pair that binds request signatures.
 */
export interface WalletSignatureRealm {
  domain: string;
  chainId: number;
}
export const WALLET_SIGNATURE_REALM = Symbol('WalletSignatureRealm');

/** The statement of every wallet challenge: what the wallet agrees to by signing it. */
const STATEMENT = 'Bind this wallet to a new agent-memory agent.';

/**
 * Proof of wallet possession before a client-supplied wallet is bound to an agent (docs/authentication.md,
 * "Binding your own wallet"). {@link issue} answers an EIP-4361 (Sign-In with Ethereum) message for
 * one wallet with a random nonce, valid `AUTH_DEFAULTS.walletChallengeTtlSeconds`, stored in the agents
 * database (any replica can check it); {@link consume} takes it back once, with the wallet's EIP-191
 * signature of it. Without this, anyone could create a `local` agent with someone else's address,
 * lock the owner out (one `local` agent per wallet) and have the owner's signatures authenticate as
 * the squatter's agent.
 */
@Injectable()
export class WalletProofsUseCases {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(WALLET_SIGNATURE_REALM) private readonly realm: WalletSignatureRealm,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A new challenge for `walletAddress` (any case): the message to sign, its nonce and expiry. Expired ones are purged. */
  async issue({ walletAddress }: WalletChallengeMessage): Promise<WalletChallengeResponse> {
    const address = getAddress(walletAddress);
    const now = this.clock();
    const expiresAt = secondsAfter(now, AUTH_DEFAULTS.walletChallengeTtlSeconds);
    // 128 random bits in hex (EIP-4361 wants ≥ 8 alphanumeric characters). Not viem's generateSiweNonce,
    // which draws from Math.random and returns overlapping windows of one buffer.
    const nonce = randomBytes(16).toString('hex');
    const message = createSiweMessage({
      domain: this.realm.domain,
      address,
      statement: STATEMENT,
      uri: `https://${this.realm.domain}/api/v1/agents`,
      version: '1',
      chainId: this.realm.chainId,
      nonce,
      issuedAt: now,
      expirationTime: expiresAt,
    });
    await this.agents.addWalletChallenge({ nonce, walletAddress: address, message, expiresAt }, now);
    return { message, nonce, expiresAt: expiresAt.toISOString() };
  }

  /**
   * Checks `proof` for `walletAddress` and uses its challenge up (single use, also when the check then
   * fails). The message must be one this service issued for this wallet, unchanged and unexpired, and
   * `proof.signature` the wallet's EIP-191 signature of it. Called by agent creation, not from the bus.
   * @throws ValidationError (`walletProof: …`) for an unknown, used, expired or altered challenge, another wallet's, or a bad signature.
   */
  async consume(walletAddress: string, proof: WalletProof): Promise<void> {
    const address = getAddress(walletAddress);
    const nonce = nonceOf(proof.message);
    const row = nonce ? await this.agents.takeWalletChallenge(nonce) : null;
    const now = this.clock();
    if (!row || hasExpired(row.expiresAt, now) || row.message !== proof.message) {
      throw new ValidationError('walletProof: unknown, used, expired or altered wallet challenge; get a new one from POST /api/v1/agents/wallet-challenge and sign its message unchanged');
    }
    // The text is ours (compared above), so the SIWE parser only ever sees a message we built.
    const siwe = parseSiweMessage(row.message);
    if (row.walletAddress !== address || !validateSiweMessage({ message: siwe, address, domain: this.realm.domain, nonce, time: now }) || siwe.chainId !== this.realm.chainId) {
      throw new ValidationError('walletProof: the challenge was issued for another wallet');
    }
    let valid = false;
    try {
      valid = await verifyMessage({ address, message: row.message, signature: proof.signature as `0x${string}` });
    } catch {
      valid = false;
    }
    if (!valid) throw new ValidationError('walletProof: the signature is not walletAddress’s signature of the challenge message');
  }
}

/**
 * The `Nonce:` line of an EIP-4361 message, found by splitting lines (linear in the message, which is
 * at most 2,048 characters by schema); undefined when absent or not a nonce of ours.
 */
function nonceOf(message: string): string | undefined {
  for (const line of message.split('\n')) {
    if (line.startsWith('Nonce: ')) {
      const nonce = line.slice('Nonce: '.length);
      return /^[A-Za-z0-9]{8,128}$/.test(nonce) ? nonce : undefined;
    }
  }
  return undefined;
}
