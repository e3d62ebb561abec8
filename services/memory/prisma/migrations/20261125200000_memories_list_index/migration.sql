-- List memories with a type filter (docs/api.md "List memories"): keyset pages in path order of one type are one
-- range scan of this index; without a type the unique index (record_id, path) serves them.
CREATE INDEX IF NOT EXISTS "memories_record_id_type_path_idx" ON "memory"."memories"("record_id", "type", "path");
