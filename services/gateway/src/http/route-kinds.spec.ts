import { GUARDS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { ClaimedAgentGuard, HumanSessionGuard } from '../auth/human-session.guard';
import { RecordAccessGuard } from '../auth/record-access.guard';
import { WalletSignatureGuard } from '../auth/wallet-signature.guard';
import { PaymentAuthGuard } from '../billing/payment-auth.guard';
import { AgentRateLimitGuard, AnonymousRateLimitGuard, HumanRateLimitGuard, RecordRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { AgentsController } from './agents.controller';
import { BillingController } from './billing.controller';
import { FilesController } from './files.controller';
import { HumansController } from './humans.controller';
import { MemoryController } from './memory.controller';
import { RecordsController } from './records.controller';
import { GATEWAY_CONTROLLERS } from '../gateway.module';
import { ROUTE_KIND } from './route-kinds';

// Every controller the gateway registers, so that a new one cannot miss the check.
const CONTROLLERS = GATEWAY_CONTROLLERS;

/** Every route handler of the gateway's controllers, as `Controller.method`. */
function routes(): Array<{ name: string; handler: object }> {
  return CONTROLLERS.flatMap((controller) =>
    Object.getOwnPropertyNames(controller.prototype)
      .map((name) => ({ name: `${controller.name}.${name}`, handler: (controller.prototype as unknown as Record<string, object>)[name] }))
      .filter(({ handler }) => typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined),
  );
}

const guardsOf = (handler: object): unknown[] => (Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? [];

describe('route kinds', () => {
  it('give every route exactly one kind, and no controller guards of its own', () => {
    expect(routes().length).toBeGreaterThan(30);
    for (const { name, handler } of routes()) expect([name, typeof Reflect.getMetadata(ROUTE_KIND, handler)]).toEqual([name, 'string']);
    for (const controller of CONTROLLERS) expect(Reflect.getMetadata(GUARDS_METADATA, controller)).toBeUndefined();
  });

  it('list the guards in order: authentication, per-agent limit, record access, per-record limit', () => {
    expect(guardsOf(MemoryController.prototype.recall)).toEqual([PaymentAuthGuard, AgentKeyGuard, AgentRateLimitGuard, RecordAccessGuard, RecordRateLimitGuard]);
    expect(guardsOf(FilesController.prototype.read)).toEqual([PaymentAuthGuard, AgentKeyGuard, AgentRateLimitGuard, RecordAccessGuard]);
    expect(guardsOf(FilesController.prototype.rawPut)).toEqual([WalletSignatureGuard, AgentRateLimitGuard, RecordAccessGuard]);
    expect(guardsOf(RecordsController.prototype.get)).toEqual([AgentKeyGuard, AgentRateLimitGuard, RecordAccessGuard]);
    expect(guardsOf(RecordsController.prototype.create)).toEqual([AgentKeyGuard, AgentRateLimitGuard]);
    expect(guardsOf(BillingController.prototype.topUp)).toEqual([PaymentAuthGuard, AgentKeyGuard, AgentRateLimitGuard]);
    expect(guardsOf(HumansController.prototype.keys)).toEqual([HumanSessionGuard, HumanRateLimitGuard, ClaimedAgentGuard]);
    expect(guardsOf(AgentsController.prototype.create)).toEqual([AnonymousRateLimitGuard]);
    expect(guardsOf(BillingController.prototype.prices)).toEqual([]);
  });
});
