import { type DynamicModule, Global, Inject, Injectable, Module, type OnModuleInit, Optional } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { TerminusModule } from '@nestjs/terminus';
import { BUS_METRICS_HOOK, BUS_TRANSPORT_CLIENT } from '../bus/bus-client';
import { BusMetricsInterceptor } from './bus-metrics.interceptor';
import { OpsHealthIndicators } from './health.indicators';
import { HttpMetricsHook } from './http-metrics.hook';
import { Metrics } from './metrics';
import { MetricsController, OpsController } from './ops.controller';
import { OpsEndpoints } from './ops-endpoints';
import { OpsListener } from './ops-listener';
import { OPS_OPTIONS, type OpsOptions, resolveOpsOptions, type ResolvedOpsOptions } from './ops.options';
import { busReadinessCheck, ReadinessRegistry } from './readiness.registry';

/** Registers the built-in readiness checks: `bus` when this process has a bus transport client. */
@Injectable()
class BuiltInReadinessChecks implements OnModuleInit {
  constructor(
    private readonly registry: ReadinessRegistry,
    @Inject(OPS_OPTIONS) private readonly options: ResolvedOpsOptions,
    @Optional() @Inject(BUS_TRANSPORT_CLIENT) private readonly busClient?: ClientProxy,
  ) {}

  onModuleInit(): void {
    if (this.options.busReadiness && this.busClient && !this.registry.names().includes('bus')) this.registry.register('bus', busReadinessCheck(this.busClient));
  }
}

/**
 * Health and metrics of one process (docs/configuration.md, `OPS_PORT`), global so any module can inject {@link Metrics} and
 * {@link ReadinessRegistry}:
 *
 * - `GET /healthz`, `GET /readyz` on the process's HTTP server ({@link OpsController}), and `GET /metrics`
 *   there too unless `metricsOnHttp` is false ({@link MetricsController}); with `listen`, all three on a
 *   separate ops listener as well ({@link OpsListener}; standalone's `OPS_PORT`, docs/configuration.md);
 * - {@link ReadinessRegistry} with the built-in `bus` check (transport client connected and answering),
 *   to which adapters add theirs (`database`, `redis`, `qdrant`, ...);
 * - {@link Metrics} (one prom-client registry, `service` label), also provided as `BUS_METRICS_HOOK`
 *   so `BusClient` counts transport failures;
 * - HTTP request metrics via a Fastify hook ({@link HttpMetricsHook}), installed automatically;
 * - {@link BusMetricsInterceptor}, exported for the launcher to apply to the microservice side.
 *
 * Import it once, in the process's root module (the gateway, each service, standalone).
 */
@Global()
@Module({})
export class OpsModule {
  static forService(options: OpsOptions): DynamicModule {
    const resolved = resolveOpsOptions(options);
    return {
      module: OpsModule,
      imports: [TerminusModule.forRoot({ gracefulShutdownTimeoutMs: resolved.gracefulShutdownTimeoutMs })],
      controllers: resolved.metricsOnHttp ? [OpsController, MetricsController] : [OpsController],
      providers: [
        { provide: OPS_OPTIONS, useValue: resolved },
        Metrics,
        { provide: BUS_METRICS_HOOK, useExisting: Metrics },
        ReadinessRegistry,
        OpsHealthIndicators,
        OpsEndpoints,
        OpsListener,
        HttpMetricsHook,
        BusMetricsInterceptor,
        BuiltInReadinessChecks,
      ],
      exports: [OPS_OPTIONS, Metrics, BUS_METRICS_HOOK, ReadinessRegistry, BusMetricsInterceptor, OpsListener],
    };
  }
}
