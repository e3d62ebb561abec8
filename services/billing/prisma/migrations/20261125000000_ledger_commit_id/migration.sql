-- The write a charge pays for (docs/api.md "After a 500 or a timeout"): the commit id the memory or files
-- service returns for an idempotent write, unique, so a write is charged at most once whichever of its
-- original request and its replays reaches the ledger first. NULL for calls that are not idempotent writes.
ALTER TABLE "billing"."ledger_entries" ADD COLUMN "commit_id" text;
CREATE UNIQUE INDEX "ledger_entries_commit_id_key" ON "billing"."ledger_entries"("commit_id");
