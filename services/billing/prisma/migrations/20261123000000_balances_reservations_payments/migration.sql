-- Ledger entries are keyed by the gateway's charge id; the request id (client-chosen x-request-id) is kept for correlation only.
ALTER TABLE "billing"."ledger_entries" ADD COLUMN "charge_id" text;
UPDATE "billing"."ledger_entries" SET "charge_id" = "request_id" WHERE "charge_id" IS NULL;
ALTER TABLE "billing"."ledger_entries" ALTER COLUMN "charge_id" SET NOT NULL;
ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_charge_id_key" UNIQUE ("charge_id");
ALTER TABLE "billing"."ledger_entries" DROP CONSTRAINT "ledger_entries_request_id_key";
ALTER TABLE "billing"."ledger_entries" ADD COLUMN "environment" text NOT NULL DEFAULT 'live';
CREATE INDEX "ledger_entries_agent_id_environment_created_at_idx" ON "billing"."ledger_entries"("agent_id", "environment", "created_at" DESC);

-- Prepaid balances per agent and environment (live money, test sandbox), micro-USD.
CREATE TABLE "billing"."balances" (
  "agent_id" text NOT NULL,
  "environment" text NOT NULL CHECK ("environment" IN ('live', 'test')),
  "balance_micro_usd" bigint NOT NULL CHECK ("balance_micro_usd" >= 0),
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "updated_at" timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("agent_id", "environment")
);

-- The price of a running paid call, held from a balance.
CREATE TABLE "billing"."reservations" (
  "charge_id" text PRIMARY KEY,
  "request_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "environment" text NOT NULL,
  "operation" text NOT NULL,
  "record_id" text NOT NULL,
  "amount_micro_usd" integer NOT NULL CHECK ("amount_micro_usd" >= 0),
  "status" text NOT NULL CHECK ("status" IN ('reserved', 'committed', 'voided')),
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "updated_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "reservations_status_created_at_idx" ON "billing"."reservations"("status", "created_at");

-- Payment credentials by challenge id: the primary key is the replay guard.
CREATE TABLE "billing"."payments" (
  "challenge_id" text PRIMARY KEY,
  "purpose" text NOT NULL CHECK ("purpose" IN ('call', 'top_up')),
  "agent_id" text NOT NULL,
  "operation" text,
  "record_id" text,
  "amount_micro_usd" bigint NOT NULL CHECK ("amount_micro_usd" >= 0),
  "payer" text NOT NULL,
  "status" text NOT NULL CHECK ("status" IN ('claimed', 'settled', 'failed')),
  "reference" text,
  "request_id" text NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "updated_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "payments_agent_id_created_at_idx" ON "billing"."payments"("agent_id", "created_at" DESC);

-- Credits to balances; the primary key makes each credit apply once.
CREATE TABLE "billing"."credits" (
  "credit_id" text PRIMARY KEY,
  "agent_id" text NOT NULL,
  "environment" text NOT NULL,
  "reason" text NOT NULL CHECK ("reason" IN ('top_up', 'sandbox_grant', 'sandbox_top_up', 'refund')),
  "amount_micro_usd" bigint NOT NULL CHECK ("amount_micro_usd" > 0),
  "reference" text,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "credits_agent_id_created_at_idx" ON "billing"."credits"("agent_id", "created_at" DESC);
