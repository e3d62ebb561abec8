-- Re-embedding after an embedder change (docs/architecture.md "Processes"): each memory records which embedder made its
-- vector. Databases created by the first init migration already have the column; this adds it where it is
-- missing, attributing existing rows to Universal Sentence Encoder lite (`use-lite@512`, the only embedder
-- before), and indexes the look-up of the rows still to re-embed (embedder_id <> current, in id order).
ALTER TABLE "memory"."memories" ADD COLUMN IF NOT EXISTS "embedder_id" text NOT NULL DEFAULT 'use-lite@512';
ALTER TABLE "memory"."memories" ALTER COLUMN "embedder_id" SET DEFAULT 'use-lite@512';
CREATE INDEX IF NOT EXISTS "memories_embedder_id_id_idx" ON "memory"."memories"("embedder_id", "id");
