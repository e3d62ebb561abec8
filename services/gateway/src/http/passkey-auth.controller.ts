import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HumanSessionResponseSchema, PasskeyOptionsResponseSchema, SessionsEndReplySchema, SUBJECTS, UnauthorizedError } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { AgentAuthenticator } from '../auth/agent-authenticator';
import { parseAuthorization } from '../auth/authorization-header';
import type { GatewayRequest } from '../auth/request-context';
import { EmptyBodyDto, PasskeyRegisterOptionsDto, PasskeyVerifyDto } from './dto';
import { HumanRoute, PublicRoute } from './route-kinds';

/**
 * Passkey ceremonies for humans (docs/authentication.md, "Passkeys"): options → the browser's
 * `navigator.credentials.create/get` → verify, which answers a session credential for
 * `Authorization: Passkey <token>`. Free; limited per client address.
 */
@ApiTags('humans')
@Controller('api/v1/auth')
export class PasskeyAuthController {
  constructor(
    private readonly bus: BusClient,
    private readonly auth: AgentAuthenticator,
  ) {}

  /** Registration options: a new account (`name` required), or, signed in, one more passkey for the account. */
  @Post('passkey/register/options')
  @HttpCode(200)
  @Returns(PasskeyOptionsResponseSchema, { summary: 'Passkey registration options', description: 'A new account (`name` required), or, signed in with `Authorization: Passkey`, one more passkey for the account.' })
  @PublicRoute({ limit: 'client', optionalPasskey: true })
  async registerOptions(@Req() req: GatewayRequest, @Body() { name }: PasskeyRegisterOptionsDto) {
    const humanId = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.passkeyRegisterOptions, { humanId, name }, PasskeyOptionsResponseSchema);
  }

  /**
   * Finishes a registration. A ceremony begun with `Authorization: Passkey` (adding a passkey) must be
   * finished with a session of the same account (none: 401, another account's: 403; docs/authentication.md).
   */
  @Post('passkey/register/verify')
  @HttpCode(200)
  @Returns(HumanSessionResponseSchema, { summary: 'Finish a passkey registration: a session', description: 'A ceremony begun signed in must be finished with a session of the same account (none: 401, another account\'s: 403).', errors: ['FORBIDDEN'] })
  @PublicRoute({ limit: 'client', optionalPasskey: true })
  async registerVerify(@Req() req: GatewayRequest, @Body() { response }: PasskeyVerifyDto) {
    const humanId = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.passkeyRegisterVerify, { response, humanId }, HumanSessionResponseSchema);
  }

  @Post('passkey/login/options')
  @HttpCode(200)
  @Returns(PasskeyOptionsResponseSchema, { summary: 'Passkey sign-in options' })
  @PublicRoute({ limit: 'client' })
  loginOptions(@Body() _body: EmptyBodyDto) {
    return this.bus.request(SUBJECTS.humans.passkeyLoginOptions, {}, PasskeyOptionsResponseSchema);
  }

  @Post('passkey/login/verify')
  @HttpCode(200)
  @Returns(HumanSessionResponseSchema, { summary: 'Finish a passkey sign-in: a session', description: 'An unknown passkey or a response that does not verify: 401.', errors: ['UNAUTHORIZED'] })
  @PublicRoute({ limit: 'client' })
  loginVerify(@Body() body: PasskeyVerifyDto) {
    return this.bus.request(SUBJECTS.humans.passkeyLoginVerify, body, HumanSessionResponseSchema);
  }

  /** The signed-in human of an optional `Authorization: Passkey <session>`; undefined without the header, 401 for any other. */
  private async optionalSession(req: GatewayRequest): Promise<string | undefined> {
    if (req.headers.authorization === undefined) return undefined;
    const parsed = parseAuthorization(req.headers.authorization);
    if (parsed?.scheme !== 'Passkey') throw new UnauthorizedError('Invalid Authorization header: expected "Passkey <session credential>" or none');
    return (await this.auth.bySession(parsed.credential)).humanId;
  }

  /** Sign out: the session credential stops working at once. */
  @Post('logout')
  @HttpCode(200)
  @Returns(SessionsEndReplySchema, { summary: 'Sign out: the session stops working at once' })
  @HumanRoute()
  logout(@Req() req: GatewayRequest, @Body() _body: EmptyBodyDto) {
    const token = parseAuthorization(req.headers.authorization)?.credential as string;
    return this.bus.request(SUBJECTS.humans.endSession, { token }, SessionsEndReplySchema);
  }
}
