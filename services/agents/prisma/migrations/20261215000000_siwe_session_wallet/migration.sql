-- A Sign in with Ethereum session is scoped to the agents of the wallet that signed it in
-- (docs/authentication.md, "Sign in with Ethereum (humans)"): the session records that wallet (EIP-55);
-- null for a passkey session. Applied alike to PostgreSQL and the embedded PGlite of standalone mode
-- (libs/platform/src/database/migrate.ts).
ALTER TABLE "agents"."human_sessions" ADD COLUMN "wallet_address" text;

-- The Sign in with Ethereum sessions still open recorded no wallet and reached the whole account: they
-- are signed out (the wallet signs in again, into a scoped session).
UPDATE "agents"."human_sessions" SET "ended_at" = now() WHERE "method" = 'siwe' AND "ended_at" IS NULL;
