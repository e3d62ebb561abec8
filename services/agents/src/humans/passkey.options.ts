import { AUTH_DEFAULTS } from '@agent-memory/shared';

/**
 * WebAuthn relying party and session settings (docs/authentication.md, "Passkeys"). `rpId` is the
 * domain passkeys are bound to (e.g. `memory.example.com`); `origins` are the exact origins of the pages
 * that run the ceremonies (e.g. `https://memory.example.com`).
 */
export interface PasskeyOptions {
  rpId: string;
  rpName: string;
  origins: string[];
  /** Lifetime of a session credential, seconds (absolute; default 12 h). */
  sessionTtlSeconds: number;
  /** Lifetime of a registration or sign-in challenge, seconds (default 5 min). */
  challengeTtlSeconds: number;
}
export const PASSKEY_OPTIONS = Symbol('PasskeyOptions');

/** Defaults for a local run: passkeys bound to `localhost`, pages served from http://localhost:8080. */
export const DEFAULT_PASSKEY_OPTIONS: PasskeyOptions = {
  rpId: 'localhost',
  rpName: 'agent-memory',
  origins: ['http://localhost:8080'],
  sessionTtlSeconds: AUTH_DEFAULTS.passkeySessionTtlSeconds,
  challengeTtlSeconds: AUTH_DEFAULTS.webauthnChallengeTtlSeconds,
};
