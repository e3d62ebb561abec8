-- Sign in with Ethereum for humans (docs/authentication.md, "Sign in with Ethereum (humans)"): the nonce
-- of each prepared EIP-4361 message, bound to the wallet it was prepared for, single use (taken out by
-- the verify step, also when it then fails), until `expires_at`. In the database, like the WebAuthn
-- challenges, so that any replica can finish a sign-in another one began. Applied alike to PostgreSQL
-- and the embedded PGlite of standalone mode (libs/platform/src/database/migrate.ts).
CREATE TABLE "agents"."siwe_nonces" (
  "nonce" text PRIMARY KEY,
  "wallet_address" text NOT NULL,
  "expires_at" timestamptz(3) NOT NULL
);
CREATE INDEX "siwe_nonces_expires_at_idx" ON "agents"."siwe_nonces"("expires_at");
