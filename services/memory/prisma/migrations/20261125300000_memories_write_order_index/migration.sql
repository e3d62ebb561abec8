-- Contextual indexing (services/memory/src/recall/contextual-index.ts): a remember or forget reads the memory's
-- neighbours in its record's write order; each side is one range scan of this index.
CREATE INDEX IF NOT EXISTS "memories_record_id_created_at_id_idx" ON "memory"."memories"("record_id", "created_at", "id");
