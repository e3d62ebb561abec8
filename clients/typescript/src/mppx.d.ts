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
  export function charge(parameters: { account?: unknown; authorization?: { name: string; version: string } }): unknown;
}
