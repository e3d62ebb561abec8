import { type DynamicModule, Module } from '@nestjs/common';
import { AUTH_DEFAULTS } from '@agent-memory/shared';
import { DATABASE, type Database } from '@agent-memory/platform';
import { AGENT_KEY_PREFIX } from './agent-key';
import { AgentsMessageHandler } from './agents.message-handler';
import { CLOCK, type Clock, systemClock } from './clock';
import { HumansMessageHandler } from './humans/humans.message-handler';
import { DEFAULT_PASSKEY_OPTIONS, PASSKEY_OPTIONS, type PasskeyOptions } from './humans/passkey.options';
import { ClaimsUseCases } from './humans/use-cases/claims.use-cases';
import { PasskeysUseCases } from './humans/use-cases/passkeys.use-cases';
import { SessionsUseCases } from './humans/use-cases/sessions.use-cases';
import { SiweMessageHandler } from './humans/siwe.message-handler';
import { SiweUseCases } from './humans/use-cases/siwe.use-cases';
import { AgentsRepository } from './persistence/agents.repository';
import { HumansRepository } from './persistence/humans.repository';
import { PrismaAgentsRepository } from './persistence/prisma-agents.repository';
import { PrismaHumansRepository } from './persistence/prisma-humans.repository';
import { AGENTS_PRISMA, openAgentsPrisma } from './persistence/prisma';
import { AgentKeysUseCases, KEY_ROTATION_GRACE_SECONDS } from './use-cases/agent-keys.use-cases';
import { AgentsUseCases } from './use-cases/agents.use-cases';
import { WALLET_SIGNATURE_REALM, WalletProofsUseCases, type WalletSignatureRealm } from './use-cases/wallet-proofs.use-cases';

export interface AgentsModuleOptions {
  /** Prefix of issued agent keys (`<prefix>_live_<secret>`) and session credentials (`<prefix>_session_<secret>`). */
  keyPrefix: string;
  /** How long previous keys stay valid after a rotation, seconds (default 24 h). */
  keyRotationGraceSeconds?: number;
  /** WebAuthn relying party and session lifetimes (defaults: {@link DEFAULT_PASSKEY_OPTIONS}). */
  passkeys?: Partial<PasskeyOptions>;
  /**
   * The deployment wallet challenges name (`SIGNATURE_DOMAIN` and the payment chain id; default
   * `localhost` and 84532), as the gateway's request signatures do (docs/authentication.md).
   */
  signatureRealm?: WalletSignatureRealm;
  /** The clock (tests move it to check expiries). */
  clock?: Clock;
}

/**
 * The agents service (docs/architecture.md, "Processes"): owns agents, key hashes, wallets, human
 * accounts, passkeys, sessions and claims; answers `agents.v1.*`. It has no background work (expired
 * challenges and sessions are swept when new ones are stored), hence no lifecycle class.
 */
@Module({})
export class AgentsModule {
  static forRoot(options: AgentsModuleOptions): DynamicModule {
    return {
      module: AgentsModule,
      controllers: [AgentsMessageHandler, HumansMessageHandler, SiweMessageHandler],
      providers: [
        { provide: AGENTS_PRISMA, useFactory: (db: Database) => openAgentsPrisma(db), inject: [DATABASE] },
        { provide: AgentsRepository, useClass: PrismaAgentsRepository },
        { provide: HumansRepository, useClass: PrismaHumansRepository },
        { provide: AGENT_KEY_PREFIX, useValue: options.keyPrefix },
        { provide: KEY_ROTATION_GRACE_SECONDS, useValue: options.keyRotationGraceSeconds ?? AUTH_DEFAULTS.keyRotationGraceSeconds },
        { provide: PASSKEY_OPTIONS, useValue: { ...DEFAULT_PASSKEY_OPTIONS, ...options.passkeys } },
        { provide: CLOCK, useValue: options.clock ?? systemClock },
        { provide: WALLET_SIGNATURE_REALM, useValue: options.signatureRealm ?? { domain: 'localhost', chainId: 84532 } },
        WalletProofsUseCases,
        AgentsUseCases,
        AgentKeysUseCases,
        PasskeysUseCases,
        SessionsUseCases,
        ClaimsUseCases,
        SiweUseCases,
      ],
    };
  }
}
