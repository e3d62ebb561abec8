import { SetMetadata } from '@nestjs/common';

export const ALLOW_PASSKEY = 'agent-memory:allow-passkey';

/**
 * What a passkey session may do on a record route: `read` (charged to the agent like its own call, method
 * `passkey`), or `erase` (forget a memory, delete a record: the owner's right to erase, free; docs/billing.md).
 */
export type PasskeyAccess = 'read' | 'erase';

/**
 * Marks a record-scoped route that a human may call with `Authorization: Passkey <session>` on an agent
 * the human claimed (docs/authentication.md, "What each method may access"), with the access it grants
 * ({@link PasskeyAccess}). Elsewhere a valid session is FORBIDDEN.
 */
export const AllowPasskey = (access: PasskeyAccess = 'read') => SetMetadata(ALLOW_PASSKEY, access);
