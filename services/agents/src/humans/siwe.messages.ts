import { messageClass } from '@agent-memory/platform';
import { SiweNonceMessageSchema, SiweVerifyMessageSchema } from '@agent-memory/shared';

// Bus messages of Sign in with Ethereum for humans (`agents.v1.siwe.*`, docs/authentication.md "Sign in
// with Ethereum (humans)"); each class is its schema's output type and carries the schema the bus edge
// validates with.
/** Prepares the EIP-4361 message for one wallet; `origin` is the asking page's origin, if the gateway saw one. */
export class SiweNonceMessage extends messageClass(SiweNonceMessageSchema) {}
/** Verifies a signed EIP-4361 message; `humanId` is the signed-in human sending it, if any. */
export class SiweVerifyMessage extends messageClass(SiweVerifyMessageSchema) {}
