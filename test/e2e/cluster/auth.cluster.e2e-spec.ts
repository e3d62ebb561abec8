/**
 * The authentication cases of `../auth.e2e-spec.ts` (key rotation and revocation, environments, wallet
 * signatures, passkeys, claims) run unchanged against cluster mode: agents, sessions and WebAuthn
 * challenges in PostgreSQL, the replay cache in Redis, every service its own process over NATS.
 */
process.env.E2E_MODE = 'cluster';
require('../auth.e2e-spec');
