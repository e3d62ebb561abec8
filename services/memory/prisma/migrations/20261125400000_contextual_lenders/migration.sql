-- Contextual indexing (docs/api.md, "Recall"): each memory records the memories it may have borrowed context
-- from; a forget or replace of one of them marks it stale (recall leaves it out) in the same transaction, and
-- a durable purge task re-indexes it.
ALTER TABLE "memory"."memories" ADD COLUMN IF NOT EXISTS "context_lenders" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "memory"."memories" ADD COLUMN IF NOT EXISTS "context_stale" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "memory"."memories" ADD COLUMN IF NOT EXISTS "context_epoch" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "memory"."purge_tasks" ADD COLUMN IF NOT EXISTS "context_only" BOOLEAN NOT NULL DEFAULT false;
-- The borrowers of a memory (`lender = ANY(context_lenders)`, within its record) and the record's stale rows.
CREATE INDEX IF NOT EXISTS "memories_context_lenders_idx" ON "memory"."memories" USING GIN ("context_lenders");
CREATE INDEX IF NOT EXISTS "memories_context_stale_idx" ON "memory"."memories"("record_id") WHERE "context_stale";
