-- Tombstones of deleted records (docs/architecture.md "Record deletion"; event records.v1.record-deleted): the files service's record
-- deletion writes one before it deletes the record's rows, and every file write and raw blob put checks it
-- inside its transaction, under an advisory lock the deletion takes exclusively and the writes take shared,
-- so that a write still in flight when its record is deleted (another replica) never leaves a row or blob.
CREATE TABLE IF NOT EXISTS "files"."deleted_records" (
  "record_id" text PRIMARY KEY,
  "deleted_at" timestamptz(3) NOT NULL DEFAULT now()
);
