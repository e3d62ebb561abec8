import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HumanSessionResponseSchema, PasskeyOptionsResponseSchema, SessionsEndReplySchema, SiweNonceResponseSchema, SiweSessionResponseSchema, SUBJECTS, UnauthorizedError } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { AgentAuthenticator } from '../auth/agent-authenticator';
import { parseAuthorization } from '../auth/authorization-header';
import type { GatewayRequest } from '../auth/request-context';
import { EmptyBodyDto, PasskeyRegisterOptionsDto, PasskeyVerifyDto, SiweNonceDto, SiweVerifyDto } from './dto';
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
  @Returns(PasskeyOptionsResponseSchema, {
    summary: 'Passkey registration options',
    description: 'A new account (`name` required), or, signed in with `Authorization: Passkey`, one more passkey for the account. A Sign in with Ethereum session may add only the account\'s first passkey (else 403: sign in with a passkey).',
    errors: ['FORBIDDEN'],
  })
  @PublicRoute({ limit: 'client', optionalPasskey: true })
  async registerOptions(@Req() req: GatewayRequest, @Body() { name }: PasskeyRegisterOptionsDto) {
    const session = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.passkeyRegisterOptions, { ...session, name }, PasskeyOptionsResponseSchema);
  }

  /**
   * Finishes a registration. A ceremony begun with `Authorization: Passkey` (adding a passkey) must be
   * finished with a session of the same account (none: 401, another account's: 403; docs/authentication.md).
   */
  @Post('passkey/register/verify')
  @HttpCode(200)
  @Returns(HumanSessionResponseSchema, {
    summary: 'Finish a passkey registration: a session',
    description: 'A ceremony begun signed in must be finished with a session of the same account (none: 401, another account\'s: 403). A Sign in with Ethereum session adds only the account\'s first passkey (else 403).',
    errors: ['FORBIDDEN'],
  })
  @PublicRoute({ limit: 'client', optionalPasskey: true })
  async registerVerify(@Req() req: GatewayRequest, @Body() { response }: PasskeyVerifyDto) {
    const session = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.passkeyRegisterVerify, { response, ...session }, HumanSessionResponseSchema);
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

  /**
   * Sign in with Ethereum, step 1 (docs/authentication.md, "Sign in with Ethereum (humans)"): the EIP-4361
   * message for the wallet to sign unchanged. The page's `Origin` becomes its URI when it is one of
   * `PASSKEY_ORIGINS`. An optional `Authorization: Passkey` binds the nonce to that human: verify must
   * then carry a session of the same human (and none when none was sent here).
   */
  @Post('siwe/nonce')
  @HttpCode(200)
  @Returns(SiweNonceResponseSchema, {
    summary: 'Sign in with Ethereum: the message to sign',
    description: 'An EIP-4361 message naming this deployment (domain, URI, chain id) and the wallet, with a single-use nonce valid 5 minutes. With `Authorization: Passkey` the nonce is bound to that account: verify must carry a session of the same account (without it here, none there).',
  })
  @PublicRoute({ limit: 'client', optionalPasskey: true })
  async siweNonce(@Req() req: GatewayRequest, @Body() { address }: SiweNonceDto) {
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const session = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.siweNonce, { address, ...(origin ? { origin } : {}), ...(session ? { humanId: session.humanId } : {}) }, SiweNonceResponseSchema);
  }

  /**
   * Sign in with Ethereum, step 2: the signed message → a session of the human who owns the wallet's
   * agent, if that human is the signed-in one or, nobody signed in, is linked to the wallet (else 403, no
   * session); an unclaimed agent is claimed by the signed-in human, else by a new wallet-only account, and
   * that account is linked to the wallet (a Sign in with Ethereum session may not claim one: 403). The
   * session answered reaches only the agents of this wallet. Any failed check of the message is 401 with one line.
   */
  @Post('siwe/verify')
  @HttpCode(200)
  @Returns(SiweSessionResponseSchema, {
    summary: 'Sign in with Ethereum: a session, with the wallet’s agent claimed',
    description:
      'A message that is not ours (domain, URI, chain, nonce), expired, not the wallet’s signature, a nonce asked for by another account (or with/without a session unlike this call), or a wallet no agent has: 401. With `Authorization: Passkey`, an unclaimed agent is claimed by that account, which is then linked to the wallet (with a Sign in with Ethereum session: 403, sign in with a passkey to claim more agents). An agent owned by an account not linked to the wallet (or, signed in, by another account): 403, no session. The session answered is a Sign in with Ethereum one: it reaches only the agents of this wallet (another agent of the account: 403).',
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  })
  @PublicRoute({ limit: 'client', optionalPasskey: true })
  async siweVerify(@Req() req: GatewayRequest, @Body() { message, signature }: SiweVerifyDto) {
    const session = await this.optionalSession(req);
    return this.bus.request(SUBJECTS.humans.siweVerify, { message, signature, ...(session ? { humanId: session.humanId, sessionId: session.sessionId } : {}) }, SiweSessionResponseSchema);
  }

  /** The signed-in human and session of an optional `Authorization: Passkey <session>`; undefined without the header, 401 for any other. */
  private async optionalSession(req: GatewayRequest): Promise<{ humanId: string; sessionId: string } | undefined> {
    if (req.headers.authorization === undefined) return undefined;
    const parsed = parseAuthorization(req.headers.authorization);
    if (parsed?.scheme !== 'Passkey') throw new UnauthorizedError('Invalid Authorization header: expected "Passkey <session credential>" or none');
    const { humanId, sessionId } = await this.auth.bySession(parsed.credential);
    return { humanId, sessionId };
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
