-- Per-agent storage quotas (docs/api.md, "Storage quotas"): one usage row per agent, the number of its
-- memories and the bytes of their content. Remember, forget and record deletion change it inside their
-- own transactions with a conditional UPDATE (the row lock orders concurrent writes of one agent, in every
-- replica), so the usage is always the sum over the agent's rows. Existing memories are counted once here.
CREATE TABLE IF NOT EXISTS "memory"."agent_usage" (
  "agent_id" text PRIMARY KEY,
  "memory_count" bigint NOT NULL DEFAULT 0,
  "memory_bytes" bigint NOT NULL DEFAULT 0
);
INSERT INTO "memory"."agent_usage" ("agent_id", "memory_count", "memory_bytes")
SELECT "agent_id", count(*), coalesce(sum("size_bytes"), 0) FROM "memory"."memories" GROUP BY "agent_id"
ON CONFLICT ("agent_id") DO NOTHING;
