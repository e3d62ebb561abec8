-- The deadline of the request holding a pending idempotency claim (docs/api.md "After a 500 or a timeout"):
-- that request commits nothing after it, so another request with the same key may take the claim over then
-- (until then it is answered 429 with Retry-After). NULL for claims made without a deadline (taken over 30 s
-- after they were made, as before).
ALTER TABLE "files"."idempotency_keys" ADD COLUMN IF NOT EXISTS "expires_at" timestamptz(3);
