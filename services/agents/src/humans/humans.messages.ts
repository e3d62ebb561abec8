import { messageClass } from '@agent-memory/platform';
import {
  ClaimsCreateMessageSchema,
  ClaimsDeleteMessageSchema,
  ClaimsListMessageSchema,
  ClaimsReleaseByAgentMessageSchema,
  ClaimsResolveMessageSchema,
  HumansGetMessageSchema,
  PasskeysDeleteMessageSchema,
  PasskeysLoginOptionsMessageSchema,
  PasskeysRegisterOptionsMessageSchema,
  PasskeysVerifyMessageSchema,
  SessionsAuthenticateMessageSchema,
  SessionsEndMessageSchema,
} from '@agent-memory/shared';

// Bus messages of human accounts: passkey ceremonies, sessions and claims (`agents.v1.passkeys.*`,
// `.sessions.*`, `.claims.*`, docs/architecture.md "Bus subjects"); each class is its schema's output
// type and carries the schema the bus edge validates with.
export class RegistrationOptionsMessage extends messageClass(PasskeysRegisterOptionsMessageSchema) {}
export class AuthenticationOptionsMessage extends messageClass(PasskeysLoginOptionsMessageSchema) {}
/** A ceremony's verify step (registration or sign-in); `humanId` is the signed-in human finishing it, if any. */
export class PasskeyVerifyMessage extends messageClass(PasskeysVerifyMessageSchema) {}
export class AuthenticateSessionMessage extends messageClass(SessionsAuthenticateMessageSchema) {}
export class EndSessionMessage extends messageClass(SessionsEndMessageSchema) {}
export class GetHumanMessage extends messageClass(HumansGetMessageSchema) {}
/** Deletes one of the human's passkeys (never the last). */
export class DeletePasskeyMessage extends messageClass(PasskeysDeleteMessageSchema) {}
export class ClaimAgentMessage extends messageClass(ClaimsCreateMessageSchema) {}
export class ListClaimsMessage extends messageClass(ClaimsListMessageSchema) {}
export class ReleaseClaimMessage extends messageClass(ClaimsDeleteMessageSchema) {}
export class ReleaseClaimByAgentMessage extends messageClass(ClaimsReleaseByAgentMessageSchema) {}
export class ResolveClaimMessage extends messageClass(ClaimsResolveMessageSchema) {}
