#!/usr/bin/env node
/**
 * Prints the `Authorization` header value (`Payment <credential>`) that pays a `WWW-Authenticate: Payment`
 * challenge of agent-memory (docs/billing.md): an EIP-3009 transfer authorization signed with the wallet's
 * private key by mppx's client (method evm/charge). Nothing is sent anywhere; the server settles it.
 *
 *   node tools/pay-challenge.mjs <wallet private key 0x...> '<WWW-Authenticate value>' [tokenName] [tokenVersion]
 *
 * tokenName/tokenVersion are the EIP-712 domain of the payment token (default USDC / 2, Base Sepolia USDC;
 * Base mainnet USDC is "USD Coin" / 2), as the server's PAYMENT_CURRENCY_NAME / PAYMENT_CURRENCY_VERSION.
 */
import { Mppx, evm } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';

const [privateKey, challenge, name = 'USDC', version = '2'] = process.argv.slice(2);
if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey ?? '') || !/^Payment /.test(challenge ?? '')) {
  process.stderr.write("usage: node tools/pay-challenge.mjs <wallet private key 0x...> '<WWW-Authenticate: Payment ... value>' [tokenName] [tokenVersion]\n");
  process.exit(2);
}
const client = Mppx.create({ methods: [evm.charge({ account: privateKeyToAccount(privateKey), authorization: { name, version } })], polyfill: false });
const credential = await client.createCredential(new Response(null, { status: 402, headers: { 'WWW-Authenticate': challenge } }));
process.stdout.write(`${credential}\n`);
