import { SetMetadata } from '@nestjs/common';

export const ALLOW_PASSKEY = 'agent-memory:allow-passkey';

/**
 * Marks a record-scoped read route that a human may call with `Authorization: Passkey <session>` on an
 * agent the human claimed (docs/authentication.md, "What each method may access"). Elsewhere a valid
 * session is FORBIDDEN.
 */
export const AllowPasskey = () => SetMetadata(ALLOW_PASSKEY, true);
