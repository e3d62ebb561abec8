CREATE TABLE "billing"."ledger_entries" (
  "id" text PRIMARY KEY,
  "agent_id" text NOT NULL,
  "operation" text NOT NULL,
  "record_id" text NOT NULL,
  "amount_micro_usd" integer NOT NULL,
  "request_id" text NOT NULL UNIQUE,
  "idempotency_key" text,
  "payment_method" text NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "ledger_entries_agent_id_created_at_idx" ON "billing"."ledger_entries"("agent_id", "created_at" DESC);
