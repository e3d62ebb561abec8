/**
 * The part of mppx's client (ES modules only, loaded with a dynamic import by ./payments.ts) that the
 * client uses: its package exports are not visible to the repository's `moduleResolution: node`.
 */
declare module 'mppx/client' {
  export const Mppx: {
    create(options: { methods: unknown[]; polyfill?: boolean }): { createCredential(response: Response): Promise<string> };
  };
}
declare module 'mppx/evm/client' {
  /** `evm` `charge` client method: signs only challenges on `networks`, in `currencies`, at most `maxAmount` (display units, with `decimals`). */
  export function charge(parameters: {
    account?: unknown;
    authorization?: { name: string; version: string };
    networks?: readonly number[];
    currencies?: readonly `0x${string}`[];
    decimals?: number;
    maxAmount?: string;
    maxAtomicAmount?: string;
  }): unknown;
}
