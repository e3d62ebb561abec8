CREATE TABLE "memory"."memories" (
  "id" text PRIMARY KEY,
  "record_id" text NOT NULL,
  "agent_id" text NOT NULL,
  "path" text NOT NULL,
  "type" text NOT NULL,
  "summary" text NOT NULL,
  "content_hash" text NOT NULL,
  "blob_key" text NOT NULL,
  "size_bytes" integer NOT NULL,
  "embedder_id" text NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "updated_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "memories_record_id_path_key" ON "memory"."memories"("record_id", "path");
CREATE INDEX "memories_record_id_type_updated_at_idx" ON "memory"."memories"("record_id", "type", "updated_at" DESC);
CREATE TABLE "memory"."write_log" (
  "id" bigserial PRIMARY KEY,
  "record_id" text NOT NULL,
  "memory_id" text NOT NULL,
  "op" text NOT NULL,
  "path" text NOT NULL,
  "content_hash" text,
  "blob_key" text,
  "idempotency_key" text,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "write_log_memory_id_idx" ON "memory"."write_log"("memory_id");
CREATE INDEX "write_log_record_id_idx" ON "memory"."write_log"("record_id");
CREATE TABLE "memory"."idempotency_keys" (
  "record_id" text NOT NULL,
  "key" text NOT NULL,
  "request_hash" text NOT NULL,
  "status" text NOT NULL,
  "response" jsonb,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("record_id", "key")
);
CREATE TABLE "memory"."purge_tasks" (
  "id" text PRIMARY KEY,
  "record_id" text NOT NULL,
  "memory_id" text,
  "blob_keys" text[] NOT NULL DEFAULT '{}',
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "purge_tasks_record_id_idx" ON "memory"."purge_tasks"("record_id");
