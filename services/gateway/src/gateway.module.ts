import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { RATE_LIMITS } from '@agent-memory/shared';
import { AgentAuthenticator } from './auth/agent-authenticator';
import { AgentKeyGuard } from './auth/agent-key.guard';
import { ClaimedAgentGuard, HumanSessionGuard } from './auth/human-session.guard';
import { RecordAccessGuard } from './auth/record-access.guard';
import { ResolutionCache } from './auth/resolution-cache';
import { InMemoryReplayCache, REPLAY_CACHE, type ReplayCache } from './auth/replay-cache';
import { WalletSignatureGuard } from './auth/wallet-signature.guard';
import { defaultPaymentSettlement } from './billing/chain.payment-settlement';
import { PaymentAuthGuard } from './billing/payment-auth.guard';
import { PaymentProtocol } from './billing/payment-protocol';
import { PAYMENT_SETTLEMENT, type PaymentSettlement } from './billing/payment-settlement.port';
import { defaultPaymentOptions } from './billing/payment.options';
import { UsageRecorder } from './billing/usage-recorder';
import { GatewayLifecycle } from './gateway.lifecycle';
import { GATEWAY_OPTIONS, type GatewayOptions } from './gateway.options';
import { AgentKeysController } from './http/agent-keys.controller';
import { AgentsController } from './http/agents.controller';
import { BillingController } from './http/billing.controller';
import { DiscoveryController } from './http/discovery.controller';
import { EnvelopeInterceptor } from './http/envelope.interceptor';
import { GatewayExceptionFilter } from './http/error.filter';
import { FilesController } from './http/files.controller';
import { HumansController } from './http/humans.controller';
import { ListingController } from './http/listing.controller';
import { MemoryController } from './http/memory.controller';
import { PasskeyAuthController } from './http/passkey-auth.controller';
import { RecordsController } from './http/records.controller';
import { RequestValidationPipe } from './http/validate';
import { AgentRateLimitGuard, AnonymousRateLimitGuard, HumanRateLimitGuard, RecordRateLimitGuard } from './rate-limit/rate-limit.guards';
import { RATE_LIMITERS, type RateLimiters, RateLimitService } from './rate-limit/rate-limit.service';
import { SlidingWindowMemoryLimiter } from './rate-limit/sliding-window';

/** In-memory sliding-window limiters (standalone); cluster mode passes Redis-backed ones. */
export function inMemoryRateLimiters(anonymousPerMinute: number): RateLimiters {
  const duration = RATE_LIMITS.windowSeconds;
  return {
    agent: new SlidingWindowMemoryLimiter({ keyPrefix: 'agent', points: RATE_LIMITS.agentPerMinute, duration }),
    recordWrite: new SlidingWindowMemoryLimiter({ keyPrefix: 'record-write', points: RATE_LIMITS.recordWritesPerMinute, duration }),
    recordQuery: new SlidingWindowMemoryLimiter({ keyPrefix: 'record-query', points: RATE_LIMITS.recordQueriesPerMinute, duration }),
    anonymous: new SlidingWindowMemoryLimiter({ keyPrefix: 'client', points: anonymousPerMinute, duration }),
  };
}

/** The gateway's HTTP controllers (the route-kind spec checks every route of each). */
export const GATEWAY_CONTROLLERS = [
  AgentsController,
  AgentKeysController,
  PasskeyAuthController,
  HumansController,
  RecordsController,
  MemoryController,
  FilesController,
  ListingController,
  BillingController,
  DiscoveryController,
] as const;

/**
 * The HTTP gateway (docs/architecture.md, "Processes") and its composition root: authentication, rate
 * limits (both stated per route by the route kinds of ./http/route-kinds.ts), validation against the
 * shared schemas (RequestValidationPipe), one bus request per call, the usage charge, and the envelopes
 * of docs/api.md.
 * `/healthz`, `/readyz` and `/metrics` come from `OpsModule`, which the process root imports.
 */
@Module({})
export class GatewayModule {
  static forRoot(options: GatewayOptions, adapters: { rateLimiters: RateLimiters; replayCache?: ReplayCache; paymentSettlement?: PaymentSettlement }): DynamicModule {
    const payments = options.payments ?? defaultPaymentOptions();
    return {
      module: GatewayModule,
      controllers: [...GATEWAY_CONTROLLERS],
      providers: [
        { provide: GATEWAY_OPTIONS, useValue: { ...options, payments } },
        { provide: PAYMENT_SETTLEMENT, useValue: adapters.paymentSettlement ?? defaultPaymentSettlement(payments) },
        PaymentProtocol,
        PaymentAuthGuard,
        { provide: RATE_LIMITERS, useValue: adapters.rateLimiters },
        { provide: REPLAY_CACHE, useValue: adapters.replayCache ?? new InMemoryReplayCache() },
        { provide: APP_FILTER, useClass: GatewayExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
        RateLimitService,
        GatewayLifecycle,
        UsageRecorder,
        AgentAuthenticator,
        ResolutionCache,
        AgentKeyGuard,
        WalletSignatureGuard,
        HumanSessionGuard,
        ClaimedAgentGuard,
        RecordAccessGuard,
        AgentRateLimitGuard,
        HumanRateLimitGuard,
        AnonymousRateLimitGuard,
        RecordRateLimitGuard,
      ],
    };
  }
}
