import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { replayKeyOf } from './agent-authenticator';
import { isCanonicalSignature, parseSignatureHeader, signatureMessage, verifyWalletSignature } from './wallet-signature';

/** The fenced block right after `<!-- worked-example:<name> -->` in docs/authentication.md, byte for byte. */
function docBlock(name: string): string {
  const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'authentication.md'), 'utf8');
  const m = new RegExp(`<!-- worked-example:${name} -->\\n\`\`\`text\\n([\\s\\S]*?)\\n\`\`\``).exec(doc);
  if (!m) throw new Error(`docs/authentication.md has no worked-example:${name} block`);
  return m[1];
}

// The documented example: Anvil/Hardhat test account #0, 2026-01-01T00:00:00Z, a deployment at
// memory.example.com taking payments on Base (chain id 8453).
const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const TIMESTAMP = 1767225600;
const PATH = '/api/v1/records/rec_4mQ8vT2nXb7LpR9sK3dW1a/remember';
const REALM = { domain: 'memory.example.com', chainId: 8453 };

describe('wallet signature: the worked example of docs/authentication.md', () => {
  const account = privateKeyToAccount(PRIVATE_KEY);
  const body = docBlock('body');

  it('builds the documented message byte for byte', () => {
    expect(body).toBe('{"content":"The deploy key rotates every Monday.","path":"ops/deploy"}');
    const message = signatureMessage({ ...REALM, method: 'POST', pathWithQuery: PATH, timestamp: TIMESTAMP, body });
    expect(message).toBe(docBlock('message'));
    expect(message.endsWith('\n')).toBe(false);
    expect(message.split('\n').slice(0, 3)).toEqual(['agent-memory request signature v2', 'domain: memory.example.com', 'chain-id: 8453']);
    expect(message).toContain(`body-sha256: ${createHash('sha256').update(body).digest('hex')}`);
  });

  it('signs it with viem into the documented header, which the server verifies', async () => {
    const message = signatureMessage({ ...REALM, method: 'POST', pathWithQuery: PATH, timestamp: TIMESTAMP, body });
    const signature = await account.signMessage({ message });
    const header = `Signature ${TIMESTAMP}:${account.address}:${signature}`;
    expect(header).toBe(docBlock('header'));
    const parsed = parseSignatureHeader(header);
    expect(parsed).toEqual({ timestamp: TIMESTAMP, walletAddress: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', signature });
    expect(await verifyWalletSignature(parsed!.walletAddress, message, parsed!.signature)).toBe(true);
  });

  it('no longer verifies when any bound part changes', async () => {
    const message = signatureMessage({ ...REALM, method: 'POST', pathWithQuery: PATH, timestamp: TIMESTAMP, body });
    const signature = await account.signMessage({ message });
    const variants = [
      // the same request on another deployment: another domain, or another chain
      signatureMessage({ domain: 'memory.example.org', chainId: REALM.chainId, method: 'POST', pathWithQuery: PATH, timestamp: TIMESTAMP, body }),
      signatureMessage({ domain: REALM.domain, chainId: 84532, method: 'POST', pathWithQuery: PATH, timestamp: TIMESTAMP, body }),
      signatureMessage({ ...REALM, method: 'PUT', pathWithQuery: PATH, timestamp: TIMESTAMP, body }),
      signatureMessage({ ...REALM, method: 'POST', pathWithQuery: `${PATH}?x=1`, timestamp: TIMESTAMP, body }),
      signatureMessage({ ...REALM, method: 'POST', pathWithQuery: PATH, timestamp: TIMESTAMP + 1, body }),
      signatureMessage({ ...REALM, method: 'POST', pathWithQuery: PATH, timestamp: TIMESTAMP, body: body.replace('Monday', 'Friday') }),
    ];
    for (const variant of variants) expect(await verifyWalletSignature(account.address, variant, signature)).toBe(false);
  });

  it('parses only well-formed headers', () => {
    expect(parseSignatureHeader(undefined)).toBeNull();
    expect(parseSignatureHeader('Signature abc')).toBeNull();
    expect(parseSignatureHeader(`Signature 1:${account.address}:0x12`)).toBeNull();
    expect(parseSignatureHeader(`Signature -1:${account.address}:0x${'a'.repeat(130)}`)).toBeNull();
    expect(parseSignatureHeader(`Signature 1:0xZZ${'0'.repeat(38)}:0x${'a'.repeat(130)}`)).toBeNull();
    expect(parseSignatureHeader(`Bearer 1:${account.address}:0x${'a'.repeat(130)}`)).toBeNull();
  });
});

/** secp256k1's group order (SEC 2, §2.4.1). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * The other spellings of a canonical 65-byte signature that ecrecover-style verifiers accept: `v` as
 * `00`/`01` instead of `1b`/`1c`, and the high-s twin `(r, n - s)` with the recovery bit flipped.
 */
function malleated(signature: `0x${string}`): { lowV: `0x${string}`; highS: `0x${string}` } {
  const r = signature.slice(2, 66);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = signature.slice(130);
  return {
    lowV: `0x${r}${signature.slice(66, 130)}${v === '1b' ? '00' : '01'}`,
    highS: `0x${r}${(N - s).toString(16).padStart(64, '0')}${v === '1b' ? '1c' : '1b'}`,
  };
}

describe('wallet signature: one accepted encoding, one use per message', () => {
  const account = privateKeyToAccount(PRIVATE_KEY);
  const message = signatureMessage({ ...REALM, method: 'POST', pathWithQuery: '/api/v1/agents/keys/rotate', timestamp: TIMESTAMP, body: '' });

  it('refuses the v=00/01 and high-s spellings of a valid signature', async () => {
    const signature = await account.signMessage({ message });
    expect(isCanonicalSignature(signature)).toBe(true);
    expect(await verifyWalletSignature(account.address, message, signature)).toBe(true);
    const { lowV, highS } = malleated(signature);
    for (const variant of [lowV, highS, malleated(highS).lowV]) {
      expect(isCanonicalSignature(variant)).toBe(false);
      expect(await verifyWalletSignature(account.address, message, variant)).toBe(false);
    }
  });

  it('keys the replay cache on wallet and message, not on the signature bytes', () => {
    const key = replayKeyOf(account.address, message);
    expect(key).toBe(`sig:${account.address.toLowerCase()}:${createHash('sha256').update(message).digest('hex')}`);
    expect(replayKeyOf(account.address.toLowerCase(), message)).toBe(key);
    expect(replayKeyOf(account.address, `${message} `)).not.toBe(key);
  });
});
