-- Proof of wallet possession (docs/authentication.md, "Binding your own wallet"): a create-agent call
-- with a client-supplied wallet must carry the wallet's signature of a challenge issued here. Single
-- use, with a TTL, in the database so that any replica can check what another one issued.
CREATE TABLE "agents"."wallet_challenges" (
  "nonce" text PRIMARY KEY,
  "wallet_address" text NOT NULL,
  "message" text NOT NULL,
  "expires_at" timestamptz(3) NOT NULL
);
CREATE INDEX "wallet_challenges_expires_at_idx" ON "agents"."wallet_challenges"("expires_at");
