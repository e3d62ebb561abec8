-- Key rotation: a rotated-away key stays valid until expires_at (docs/authentication.md).
ALTER TABLE "agents"."agent_keys" ADD COLUMN "expires_at" timestamptz(3);

-- A wallet signature names one local-mode agent: a wallet belongs to at most one local agent.
CREATE UNIQUE INDEX "agents_local_wallet_key" ON "agents"."agents"("wallet_address") WHERE "mode" = 'local';
CREATE INDEX "agents_wallet_address_idx" ON "agents"."agents"("wallet_address");

-- Humans sign in with passkeys (WebAuthn) and own the agents they claimed.
CREATE TABLE "agents"."humans" (
  "id" text PRIMARY KEY,
  "name" text NOT NULL,
  "webauthn_user_id" text NOT NULL UNIQUE,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE "agents"."passkey_credentials" (
  "id" text PRIMARY KEY,
  "human_id" text NOT NULL REFERENCES "agents"."humans"("id") ON DELETE CASCADE,
  "public_key" bytea NOT NULL,
  "counter" bigint NOT NULL DEFAULT 0,
  "transports" text[] NOT NULL DEFAULT '{}',
  "device_type" text NOT NULL,
  "backed_up" boolean NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "last_used_at" timestamptz(3)
);
CREATE INDEX "passkey_credentials_human_id_idx" ON "agents"."passkey_credentials"("human_id");

-- Session credentials (`Authorization: Passkey <token>`), stored only as SHA-256.
CREATE TABLE "agents"."human_sessions" (
  "id" text PRIMARY KEY,
  "human_id" text NOT NULL REFERENCES "agents"."humans"("id") ON DELETE CASCADE,
  "token_hash" text NOT NULL UNIQUE,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "expires_at" timestamptz(3) NOT NULL,
  "ended_at" timestamptz(3)
);
CREATE INDEX "human_sessions_human_id_idx" ON "agents"."human_sessions"("human_id");

-- WebAuthn challenges, single use, with a TTL: in the database so that any gateway/agents replica can finish a ceremony.
CREATE TABLE "agents"."webauthn_challenges" (
  "challenge" text PRIMARY KEY,
  "purpose" text NOT NULL,
  "human_id" text REFERENCES "agents"."humans"("id") ON DELETE CASCADE,
  "human_name" text,
  "webauthn_user_id" text,
  "expires_at" timestamptz(3) NOT NULL
);
CREATE INDEX "webauthn_challenges_expires_at_idx" ON "agents"."webauthn_challenges"("expires_at");

-- An agent is claimed by at most one human.
CREATE TABLE "agents"."agent_claims" (
  "agent_id" text PRIMARY KEY REFERENCES "agents"."agents"("id") ON DELETE CASCADE,
  "human_id" text NOT NULL REFERENCES "agents"."humans"("id") ON DELETE CASCADE,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "agent_claims_human_id_idx" ON "agents"."agent_claims"("human_id");
