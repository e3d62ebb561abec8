import { messageClass } from '@agent-memory/platform';
import {
  AgentsAuthenticateKeyMessageSchema,
  AgentsCreateMessageSchema,
  AgentsFindByWalletMessageSchema,
  AgentsGetMessageSchema,
  AgentsKeysListMessageSchema,
  AgentsKeysRevokeMessageSchema,
  AgentsKeysRotateMessageSchema,
  AgentsWalletChallengeMessageSchema,
} from '@agent-memory/shared';

// Bus messages of agents, wallets and agent keys (`agents.v1.*`, docs/architecture.md "Bus subjects");
// each class is its schema's output type and carries the schema the bus edge validates with.
export class CreateAgentMessage extends messageClass(AgentsCreateMessageSchema) {}
export class WalletChallengeMessage extends messageClass(AgentsWalletChallengeMessageSchema) {}
/** Names an agent (`agents.v1.get` and `agents.v1.get-wallet`). */
export class GetAgentMessage extends messageClass(AgentsGetMessageSchema) {}
export class FindAgentByWalletMessage extends messageClass(AgentsFindByWalletMessageSchema) {}
export class AuthenticateKeyMessage extends messageClass(AgentsAuthenticateKeyMessageSchema) {}
export class ListKeysMessage extends messageClass(AgentsKeysListMessageSchema) {}
export class RotateKeyMessage extends messageClass(AgentsKeysRotateMessageSchema) {}
export class RevokeKeyMessage extends messageClass(AgentsKeysRevokeMessageSchema) {}
