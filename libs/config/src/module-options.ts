import type { ServiceOptions } from './service-options';

/**
 * The options each service module takes, cut from {@link ServiceOptions}: the one mapping both launchers
 * use (`AgentsModule.forRoot(m.agents)`, `GatewayModule.forRoot(m.gateway, adapters)`, ...; docs/architecture.md,
 * "Launchers"). Plain objects: the module's own options type checks them where a launcher passes them, so
 * this library needs no service. What a launcher chooses itself (the memory service's vector index and
 * warm-up, the gateway's rate limiters and replay cache) it adds at that call.
 */
export function serviceModuleOptions(o: ServiceOptions) {
  return {
    agents: {
      keyPrefix: o.agentKeyPrefix,
      keyRotationGraceSeconds: o.auth.keyRotationGraceSeconds,
      passkeys: o.auth.passkeys,
      signatureRealm: { domain: o.signatureDomain, chainId: o.payments.chainId },
    },
    memory: { embedder: o.embedder, enrichment: o.enrichment, quota: o.quotas.memory, admission: o.memoryAdmission, vacuumDelayMs: o.forgetVacuumDelayMs, recallContext: o.recallContext },
    files: { quota: o.quotas.files, vacuumDelayMs: o.forgetVacuumDelayMs },
    billing: o.billing,
    gateway: {
      rateLimitsEnabled: o.rateLimitsEnabled,
      anonymousPerMinute: o.anonymousPerMinute,
      billingMode: o.billingMode,
      payments: o.payments,
      signatureWindowSeconds: o.signatureWindowSeconds,
      signatureDomain: o.signatureDomain,
    },
  };
}
