CREATE TABLE "records"."records" (
  "id" text PRIMARY KEY,
  "agent_id" text NOT NULL,
  "name" text NOT NULL,
  "tags" text[] NOT NULL DEFAULT '{}',
  "category" text NOT NULL,
  "parent_record_id" text REFERENCES "records"."records"("id") ON DELETE RESTRICT,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "updated_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "records_agent_id_created_at_id_idx" ON "records"."records"("agent_id", "created_at" DESC, "id" DESC);
CREATE INDEX "records_parent_record_id_idx" ON "records"."records"("parent_record_id");
CREATE TABLE "records"."outbox_events" (
  "id" text PRIMARY KEY,
  "subject" text NOT NULL,
  "payload" jsonb NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "published_at" timestamptz(3),
  "attempts" integer NOT NULL DEFAULT 0
);
CREATE INDEX "outbox_events_published_at_idx" ON "records"."outbox_events"("published_at");
