import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  EmptyBodySchema,
  HumanSessionResponseSchema,
  PasskeyLoginOptionsBodySchema,
  PasskeyOptionsResponseSchema,
  PasskeyRegisterOptionsBodySchema,
  PasskeyVerifyBodySchema,
  SessionsEndReplySchema,
  SUBJECTS,
  UnauthorizedError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AgentAuthenticator } from '../auth/agent-authenticator';
import { parseAuthorization } from '../auth/authorization-header';
import { HumanSessionGuard } from '../auth/human-session.guard';
import type { GatewayRequest } from '../auth/request-context';
import { AnonymousRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { PasskeyRegisterOptionsDto, PasskeyVerifyDto } from './dto';
import { validate } from './validate';

/**
 * Passkey ceremonies for humans (spec, "Authentication": passkey credential; docs/authentication.md,
 * "Passkeys"): options → the browser's `navigator.credentials.create/get` → verify, which answers a
 * session credential for `Authorization: Passkey <token>`. Free; limited per client address.
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
  @UseGuards(AnonymousRateLimitGuard)
  @ApiBody({ type: PasskeyRegisterOptionsDto })
  async registerOptions(@Req() req: GatewayRequest, @Body() body: unknown) {
    const { name } = validate(PasskeyRegisterOptionsBodySchema, body === undefined ? {} : body, 'body');
    const humanId = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.passkeyRegisterOptions, { humanId, name }, PasskeyOptionsResponseSchema);
  }

  /**
   * Finishes a registration. A ceremony begun with `Authorization: Passkey` (adding a passkey) must be
   * finished with a session of the same account (none: 401, another account's: 403; docs/authentication.md).
   */
  @Post('passkey/register/verify')
  @HttpCode(200)
  @UseGuards(AnonymousRateLimitGuard)
  @ApiBody({ type: PasskeyVerifyDto })
  async registerVerify(@Req() req: GatewayRequest, @Body() body: unknown) {
    const { response } = validate(PasskeyVerifyBodySchema, body, 'body');
    const humanId = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.passkeyRegisterVerify, { response, humanId }, HumanSessionResponseSchema);
  }

  @Post('passkey/login/options')
  @HttpCode(200)
  @UseGuards(AnonymousRateLimitGuard)
  loginOptions(@Body() body: unknown) {
    validate(PasskeyLoginOptionsBodySchema, body === undefined ? {} : body, 'body');
    return this.bus.request(SUBJECTS.humans.passkeyLoginOptions, {}, PasskeyOptionsResponseSchema);
  }

  @Post('passkey/login/verify')
  @HttpCode(200)
  @UseGuards(AnonymousRateLimitGuard)
  @ApiBody({ type: PasskeyVerifyDto })
  loginVerify(@Body() body: unknown) {
    return this.bus.request(SUBJECTS.humans.passkeyLoginVerify, validate(PasskeyVerifyBodySchema, body, 'body'), HumanSessionResponseSchema);
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
  @ApiSecurity('passkey')
  @UseGuards(HumanSessionGuard)
  logout(@Req() req: GatewayRequest, @Body() body: unknown) {
    validate(EmptyBodySchema, body === undefined ? {} : body, 'body');
    const token = parseAuthorization(req.headers.authorization)?.credential as string;
    return this.bus.request(SUBJECTS.humans.endSession, { token }, SessionsEndReplySchema);
  }
}
