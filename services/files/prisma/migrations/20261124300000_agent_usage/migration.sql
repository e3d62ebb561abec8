-- Per-agent storage quotas (docs/api.md, "Storage quotas"): one usage row per agent, the number of its
-- files and raw blobs and the bytes of their content. File writes, raw puts and record deletion change it
-- inside their own transactions with a conditional UPDATE (the row lock orders concurrent writes of one
-- agent, in every replica). Existing files and raw blobs are counted once here.
CREATE TABLE IF NOT EXISTS "files"."agent_usage" (
  "agent_id" text PRIMARY KEY,
  "file_count" bigint NOT NULL DEFAULT 0,
  "file_bytes" bigint NOT NULL DEFAULT 0
);
INSERT INTO "files"."agent_usage" ("agent_id", "file_count", "file_bytes")
SELECT "agent_id", count(*), coalesce(sum("size_bytes"), 0)
FROM (SELECT "agent_id", "size_bytes" FROM "files"."files" UNION ALL SELECT "agent_id", "size_bytes" FROM "files"."raw_blobs") AS stored
GROUP BY "agent_id"
ON CONFLICT ("agent_id") DO NOTHING;
