-- Tombstones of deleted records (docs/architecture.md "Record deletion"; event records.v1.record-deleted): the record purge writes one
-- before it deletes the record's rows, and every remember checks it inside its transaction, under an
-- advisory lock the purge takes exclusively and remember takes shared, so that a remember still in flight
-- when its record is deleted (another replica) never writes rows, vectors or blobs after the purge.
CREATE TABLE IF NOT EXISTS "memory"."deleted_records" (
  "record_id" text PRIMARY KEY,
  "deleted_at" timestamptz(3) NOT NULL DEFAULT now()
);
