/* eslint-disable @typescript-eslint/no-require-imports */
import type * as Challenge from 'mppx/dist/Challenge';
import type * as Credential from 'mppx/dist/Credential';
import type * as Expires from 'mppx/dist/Expires';
import type * as Receipt from 'mppx/dist/Receipt';
import type * as EvmCharge from 'mppx/dist/evm/server/Charge';
import type * as ServerMppx from 'mppx/dist/server/Mppx';

// mppx (the Machine Payments Protocol SDK) ships only ES modules behind package "exports". Node ≥ 20.19
// loads them with require(); Jest transforms them (jest.config.js). TypeScript's node10 resolution cannot
// read "exports", hence the dist paths for the types: only the modules used here, because mppx's index
// types pull in viem's chain types, which reach ox's TypeScript sources. Everything else imports mppx here.

/** `mppx`: challenges, credentials, receipts and expiry helpers of the Payment scheme. */
export const mppx = require('mppx') as { Challenge: typeof Challenge; Credential: typeof Credential; Expires: typeof Expires; Receipt: typeof Receipt };
/** `mppx/server`: `Mppx.create` (challenges, credential validation and broadcast). */
export const mppxServer = require('mppx/server') as { Mppx: typeof ServerMppx };
/** `mppx/evm/server`: the `evm/charge` method (EIP-3009 transfer authorizations). */
export const mppxEvmServer = require('mppx/evm/server') as { charge: typeof EvmCharge.charge };
