-- Sign-in hardening (docs/authentication.md, "Sign in with Ethereum (humans)" and "Passkeys (humans)").
-- Applied alike to PostgreSQL and the embedded PGlite of standalone mode (libs/platform/src/database/migrate.ts).

-- The wallets a human account is linked to: Sign in with Ethereum signs a human in only with a linked
-- wallet. A link is made when the wallet's sign-in created the account (a wallet-only account), or when
-- a signed-in human signed with the wallet; it goes when the claim on that wallet's agent goes (released
-- by the human, or dropped by the agent's revocation or grace-0 rotation).
CREATE TABLE "agents"."human_wallets" (
  "human_id" text NOT NULL REFERENCES "agents"."humans"("id") ON DELETE CASCADE,
  "wallet_address" text NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("human_id", "wallet_address")
);
CREATE INDEX "human_wallets_wallet_address_idx" ON "agents"."human_wallets"("wallet_address");

-- Existing wallet-only accounts keep signing in with their wallet: an account with no passkey whose
-- claim was made with the account (same instant: the sign-in that created it) is linked to that agent's wallet.
INSERT INTO "agents"."human_wallets" ("human_id", "wallet_address", "created_at")
SELECT DISTINCT h."id", a."wallet_address", h."created_at"
FROM "agents"."humans" h
JOIN "agents"."agent_claims" c ON c."human_id" = h."id" AND c."created_at" = h."created_at"
JOIN "agents"."agents" a ON a."id" = c."agent_id"
WHERE NOT EXISTS (SELECT 1 FROM "agents"."passkey_credentials" p WHERE p."human_id" = h."id");

-- How each session was opened: 'passkey' or 'siwe' (a SIWE session of an account with passkeys may not manage them).
ALTER TABLE "agents"."human_sessions" ADD COLUMN "method" text NOT NULL DEFAULT 'passkey';

-- The human who asked for a sign-in nonce (optional Authorization: Passkey), or null: verify must come from the same.
ALTER TABLE "agents"."siwe_nonces" ADD COLUMN "human_id" text;
