import { MessagePattern, Payload } from '@nestjs/microservices';
import { SUBJECTS } from '@agent-memory/shared';
import { BusEdge } from '@agent-memory/platform';
import {
  AuthenticateSessionMessage,
  AuthenticationOptionsMessage,
  ClaimAgentMessage,
  DeletePasskeyMessage,
  EndSessionMessage,
  GetHumanMessage,
  ListClaimsMessage,
  PasskeyVerifyMessage,
  RegistrationOptionsMessage,
  ReleaseClaimByAgentMessage,
  ReleaseClaimMessage,
  ResolveClaimMessage,
} from './humans.messages';
import { ClaimsUseCases } from './use-cases/claims.use-cases';
import { PasskeysUseCases } from './use-cases/passkeys.use-cases';
import { SessionsUseCases } from './use-cases/sessions.use-cases';

/**
 * Bus edge of human accounts: passkey ceremonies, sessions and claims (`agents.v1.passkeys.*`,
 * `.sessions.*`, `.claims.*`). Receive a validated message, call one use case, return.
 */
@BusEdge()
export class HumansMessageHandler {
  constructor(
    private readonly passkeys: PasskeysUseCases,
    private readonly sessions: SessionsUseCases,
    private readonly claims: ClaimsUseCases,
  ) {}

  @MessagePattern(SUBJECTS.humans.passkeyRegisterOptions)
  registerOptions(@Payload() m: RegistrationOptionsMessage) {
    return this.passkeys.registrationOptions(m);
  }

  @MessagePattern(SUBJECTS.humans.passkeyRegisterVerify)
  registerVerify(@Payload() m: PasskeyVerifyMessage) {
    return this.passkeys.registrationVerify(m);
  }

  @MessagePattern(SUBJECTS.humans.passkeyLoginOptions)
  loginOptions(@Payload() m: AuthenticationOptionsMessage) {
    return this.passkeys.authenticationOptions(m);
  }

  @MessagePattern(SUBJECTS.humans.passkeyLoginVerify)
  loginVerify(@Payload() m: PasskeyVerifyMessage) {
    return this.passkeys.authenticationVerify(m);
  }

  @MessagePattern(SUBJECTS.humans.authenticateSession)
  authenticateSession(@Payload() m: AuthenticateSessionMessage) {
    return this.sessions.authenticate(m);
  }

  @MessagePattern(SUBJECTS.humans.endSession)
  endSession(@Payload() m: EndSessionMessage) {
    return this.sessions.end(m);
  }

  @MessagePattern(SUBJECTS.humans.get)
  get(@Payload() m: GetHumanMessage) {
    return this.passkeys.getHuman(m);
  }

  @MessagePattern(SUBJECTS.humans.deletePasskey)
  deletePasskey(@Payload() m: DeletePasskeyMessage) {
    return this.passkeys.deletePasskey(m);
  }

  @MessagePattern(SUBJECTS.humans.claim)
  claim(@Payload() m: ClaimAgentMessage) {
    return this.claims.claim(m);
  }

  @MessagePattern(SUBJECTS.humans.listClaims)
  listClaims(@Payload() m: ListClaimsMessage) {
    return this.claims.list(m);
  }

  @MessagePattern(SUBJECTS.humans.releaseClaim)
  releaseClaim(@Payload() m: ReleaseClaimMessage) {
    return this.claims.release(m);
  }

  @MessagePattern(SUBJECTS.humans.releaseClaimByAgent)
  releaseClaimByAgent(@Payload() m: ReleaseClaimByAgentMessage) {
    return this.claims.releaseByAgent(m);
  }

  @MessagePattern(SUBJECTS.humans.resolveClaim)
  resolveClaim(@Payload() m: ResolveClaimMessage) {
    return this.claims.resolve(m);
  }
}
