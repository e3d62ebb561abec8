import { MessagePattern, Payload } from '@nestjs/microservices';
import { SUBJECTS } from '@agent-memory/shared';
import { BusEdge } from '@agent-memory/platform';
import { SiweNonceMessage, SiweVerifyMessage } from './siwe.messages';
import { SiweUseCases } from './use-cases/siwe.use-cases';

/**
 * Bus edge of Sign in with Ethereum for humans (`agents.v1.siwe.*`, docs/authentication.md "Sign in with
 * Ethereum (humans)"). Receive a validated message, call one use case, return.
 */
@BusEdge()
export class SiweMessageHandler {
  constructor(private readonly siwe: SiweUseCases) {}

  @MessagePattern(SUBJECTS.humans.siweNonce)
  nonce(@Payload() m: SiweNonceMessage) {
    return this.siwe.nonce(m);
  }

  @MessagePattern(SUBJECTS.humans.siweVerify)
  verify(@Payload() m: SiweVerifyMessage) {
    return this.siwe.verify(m);
  }
}
