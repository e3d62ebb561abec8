import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import {
  ClaimsCreateMessageSchema,
  ClaimsDeleteMessageSchema,
  ClaimsListMessageSchema,
  ClaimsReleaseByAgentMessageSchema,
  ClaimsResolveMessageSchema,
  HumansGetMessageSchema,
  PasskeysLoginOptionsMessageSchema,
  PasskeysRegisterOptionsMessageSchema,
  PasskeysVerifyMessageSchema,
  SessionsAuthenticateMessageSchema,
  SessionsEndMessageSchema,
  SUBJECTS,
} from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import { ClaimsService } from './claims.service';
import { PasskeysService } from './passkeys.service';
import { SessionsService } from './sessions.service';

/** Bus edge of human accounts: passkey ceremonies, sessions and claims (`agents.v1.passkeys.*`, `.sessions.*`, `.claims.*`). */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class HumansMessageHandler {
  constructor(
    private readonly passkeys: PasskeysService,
    private readonly sessions: SessionsService,
    private readonly claims: ClaimsService,
  ) {}

  @MessagePattern(SUBJECTS.humans.passkeyRegisterOptions)
  registerOptions(@Payload(new MessagePipe(PasskeysRegisterOptionsMessageSchema)) m: z.output<typeof PasskeysRegisterOptionsMessageSchema>) {
    return this.passkeys.registrationOptions(m);
  }

  @MessagePattern(SUBJECTS.humans.passkeyRegisterVerify)
  registerVerify(@Payload(new MessagePipe(PasskeysVerifyMessageSchema)) m: z.output<typeof PasskeysVerifyMessageSchema>) {
    return this.passkeys.registrationVerify(m.response, m.humanId ? { humanId: m.humanId } : undefined);
  }

  @MessagePattern(SUBJECTS.humans.passkeyLoginOptions)
  loginOptions(@Payload(new MessagePipe(PasskeysLoginOptionsMessageSchema)) _m: z.output<typeof PasskeysLoginOptionsMessageSchema>) {
    return this.passkeys.authenticationOptions();
  }

  @MessagePattern(SUBJECTS.humans.passkeyLoginVerify)
  loginVerify(@Payload(new MessagePipe(PasskeysVerifyMessageSchema)) m: z.output<typeof PasskeysVerifyMessageSchema>) {
    return this.passkeys.authenticationVerify(m.response);
  }

  @MessagePattern(SUBJECTS.humans.authenticateSession)
  authenticateSession(@Payload(new MessagePipe(SessionsAuthenticateMessageSchema)) m: z.output<typeof SessionsAuthenticateMessageSchema>) {
    return this.sessions.authenticate(m.token);
  }

  @MessagePattern(SUBJECTS.humans.endSession)
  endSession(@Payload(new MessagePipe(SessionsEndMessageSchema)) m: z.output<typeof SessionsEndMessageSchema>) {
    return this.sessions.end(m.token);
  }

  @MessagePattern(SUBJECTS.humans.get)
  get(@Payload(new MessagePipe(HumansGetMessageSchema)) m: z.output<typeof HumansGetMessageSchema>) {
    return this.passkeys.getHuman(m.humanId);
  }

  @MessagePattern(SUBJECTS.humans.claim)
  claim(@Payload(new MessagePipe(ClaimsCreateMessageSchema)) m: z.output<typeof ClaimsCreateMessageSchema>) {
    return this.claims.claim(m.humanId, m.agentKey);
  }

  @MessagePattern(SUBJECTS.humans.listClaims)
  listClaims(@Payload(new MessagePipe(ClaimsListMessageSchema)) m: z.output<typeof ClaimsListMessageSchema>) {
    return this.claims.list(m.humanId);
  }

  @MessagePattern(SUBJECTS.humans.releaseClaim)
  releaseClaim(@Payload(new MessagePipe(ClaimsDeleteMessageSchema)) m: z.output<typeof ClaimsDeleteMessageSchema>) {
    return this.claims.release(m.humanId, m.agentId);
  }

  @MessagePattern(SUBJECTS.humans.releaseClaimByAgent)
  releaseClaimByAgent(@Payload(new MessagePipe(ClaimsReleaseByAgentMessageSchema)) m: z.output<typeof ClaimsReleaseByAgentMessageSchema>) {
    return this.claims.releaseByAgent(m.agentId);
  }

  @MessagePattern(SUBJECTS.humans.resolveClaim)
  resolveClaim(@Payload(new MessagePipe(ClaimsResolveMessageSchema)) m: z.output<typeof ClaimsResolveMessageSchema>) {
    return this.claims.resolve(m.humanId, m.agentId);
  }
}
