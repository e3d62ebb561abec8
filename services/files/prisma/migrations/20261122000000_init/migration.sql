CREATE TABLE "files"."files" (
  "record_id" text NOT NULL,
  "path" text NOT NULL,
  "agent_id" text NOT NULL,
  "content_hash" text NOT NULL,
  "blob_key" text NOT NULL,
  "size_bytes" integer NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "updated_at" timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("record_id", "path")
);
CREATE TABLE "files"."raw_blobs" (
  "record_id" text NOT NULL,
  "path" text NOT NULL,
  "agent_id" text NOT NULL,
  "content_type" text NOT NULL,
  "content_hash" text NOT NULL,
  "blob_key" text NOT NULL,
  "size_bytes" integer NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "updated_at" timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("record_id", "path")
);
CREATE TABLE "files"."write_log" (
  "id" bigserial PRIMARY KEY,
  "record_id" text NOT NULL,
  "op" text NOT NULL,
  "path" text NOT NULL,
  "content_hash" text NOT NULL,
  "blob_key" text NOT NULL,
  "idempotency_key" text,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "write_log_record_id_idx" ON "files"."write_log"("record_id");
CREATE TABLE "files"."idempotency_keys" (
  "record_id" text NOT NULL,
  "key" text NOT NULL,
  "request_hash" text NOT NULL,
  "status" text NOT NULL,
  "response" jsonb,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("record_id", "key")
);
CREATE TABLE "files"."purge_tasks" (
  "id" text PRIMARY KEY,
  "record_id" text NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
