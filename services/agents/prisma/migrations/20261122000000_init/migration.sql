CREATE TABLE "agents"."agents" (
  "id" text PRIMARY KEY,
  "name" text NOT NULL,
  "mode" text NOT NULL,
  "tags" text[] NOT NULL DEFAULT '{}',
  "category" text NOT NULL,
  "wallet_address" text NOT NULL,
  "record_id" text NOT NULL,
  "key_environment" text NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE TABLE "agents"."agent_keys" (
  "id" text PRIMARY KEY,
  "agent_id" text NOT NULL REFERENCES "agents"."agents"("id") ON DELETE CASCADE,
  "key_hash" text NOT NULL UNIQUE,
  "environment" text NOT NULL,
  "display_prefix" text NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "revoked_at" timestamptz(3)
);
CREATE INDEX "agent_keys_agent_id_idx" ON "agents"."agent_keys"("agent_id");
