/**
 * Bus authentication on a real nats-server configured with the cluster's users and permissions
 * (`natsAuthorizationConfig`, as deploy/nats/agent-memory.conf): an anonymous client or another service's
 * credentials cannot ask memory for a recall or billing for a credit, and a service refuses a principal
 * the gateway did not sign (unsigned, signed with another key, a changed body, stale, or a body acting
 * for another agent than the signed principal). The gateway's signed path works.
 */
import 'reflect-metadata';
import { generateKeyPairSync } from 'node:crypto';
import { Controller, Module, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { ClientProxy } from '@nestjs/microservices';
import { connect, headers as natsHeaders, JSONCodec, type NatsConnection } from 'nats';
import { z } from 'zod';
import { SUBJECTS } from '@agent-memory/shared';
import { type BusCredentials, generateBusCredentials, startNatsServer, type TestInfraServer } from '@agent-memory/testing';
import { connectMicroserviceWith } from '../ops/hybrid-microservice';
import { BusClient } from './bus-client';
import { currentBusHeaders, runWithBusHeaders, setBusPrincipal } from './bus-context';
import { BusPrincipalInterceptor } from './bus-principal';
import { BusSigner, BusVerifier } from './bus-signature';
import { natsInboxPrefix } from './nats-permissions';
import { DrainingNatsServer, NatsBusClient, NatsBusContextInterceptor } from './nats.transport';
import { RpcDomainExceptionFilter } from './rpc-exception.filter';

const json = JSONCodec();
/** What the stand-in handlers answer: the body's agent and the principal they ran under. */
const Reply = z.object({ servedFor: z.string(), principal: z.string().nullable() });
const answer = (m: { agentId: string }) => ({ servedFor: m.agentId, principal: currentBusHeaders()?.agentId ?? null });

@Controller()
@UseFilters(RpcDomainExceptionFilter)
class MemoryStandIn {
  @MessagePattern(SUBJECTS.memory.recall)
  recall(@Payload() m: { agentId: string }) {
    return answer(m);
  }
}
@Module({ controllers: [MemoryStandIn] })
class MemoryStandInModule {}

@Controller()
@UseFilters(RpcDomainExceptionFilter)
class BillingStandIn {
  @MessagePattern(SUBJECTS.billing.credit)
  credit(@Payload() m: { agentId: string }) {
    return answer(m);
  }
}
@Module({ controllers: [BillingStandIn] })
class BillingStandInModule {}

let nats: TestInfraServer;
let creds: BusCredentials;
const apps: Array<{ close(): Promise<void> }> = [];
const clients: Array<{ close(): unknown }> = [];

/** A service process as the cluster starts it: its NATS user, the verifying key, both bus interceptors. */
async function startService(module: object, user: 'memory' | 'billing') {
  const app = await NestFactory.create(module as never, new FastifyAdapter(), { logger: false });
  const server = new DrainingNatsServer({
    servers: [nats.url],
    queue: user,
    name: user,
    auth: { user, pass: creds.passwords[user], verifier: new BusVerifier(creds.signingPublicKey, 60_000) },
  });
  connectMicroserviceWith(app, { strategy: server }, { interceptors: [new NatsBusContextInterceptor(), new BusPrincipalInterceptor()] });
  await app.startAllMicroservices();
  await app.init();
  await server.unwrap<{ flush(): Promise<void> }>().flush();
  apps.push(app);
}

/** A bus client as a process with `user`'s credentials and, optionally, a signing key. */
function busAs(user: string, signingKey?: string): BusClient {
  const client = new NatsBusClient([nats.url], `test-${user}`, 3_000, { user, pass: creds.passwords[user], signer: signingKey ? new BusSigner(signingKey) : undefined });
  clients.push(client);
  return new BusClient(client as unknown as ClientProxy, 3_000);
}

/** Sends `subject` with `body` as the authenticated `agentId` (as the gateway's request context does). */
function requestAs<T extends z.ZodTypeAny>(bus: BusClient, agentId: string | undefined, subject: string, body: unknown, schema: T) {
  return runWithBusHeaders({ requestId: `req-${Math.random()}` }, () => {
    if (agentId) setBusPrincipal({ agentId, keyEnvironment: 'test' });
    return bus.request(subject, body, schema);
  });
}

/** A raw NATS connection with `user`'s credentials (its own inbox prefix, as the permissions require). */
async function rawAs(user: string): Promise<NatsConnection> {
  const nc = await connect({ servers: nats.url, user, pass: creds.passwords[user], inboxPrefix: natsInboxPrefix(user) });
  clients.push(nc);
  return nc;
}

/** Sends a Nest-framed request with hand-made headers; resolves the decoded reply packet. */
async function rawRequest(nc: NatsConnection, subject: string, data: unknown, h: Record<string, string>): Promise<{ response?: unknown; err?: { code: string; message: string } }> {
  const hdrs = natsHeaders();
  for (const [k, v] of Object.entries(h)) hdrs.set(k, v);
  const body = json.encode({ pattern: subject, data, id: 'raw-1' });
  const msg = await nc.request(subject, body, { timeout: 3_000, headers: hdrs });
  return json.decode(msg.data) as never;
}

const recallBody = (agentId: string) => ({ agentId, recordId: 'rec_victim', body: { query: 'the PIN' } });
const creditBody = (agentId: string) => ({ creditId: 'c-1', agentId, environment: 'test', amountMicroUsd: 1_000_000, reason: 'sandbox_top_up' });

beforeAll(async () => {
  creds = generateBusCredentials();
  nats = await startNatsServer({ passwords: creds.passwords });
  await startService(MemoryStandInModule, 'memory');
  await startService(BillingStandInModule, 'billing');
}, 60_000);
afterAll(async () => {
  for (const c of clients) await Promise.resolve(c.close()).catch(() => undefined);
  for (const a of apps) await a.close();
  await nats.destroy();
});

describe('the gateway (its NATS user and its signing key)', () => {
  it('asks memory and billing for the agent it authenticated', async () => {
    const gateway = busAs('gateway', creds.signingPrivateKey);
    await expect(requestAs(gateway, 'agt_alice', SUBJECTS.memory.recall, recallBody('agt_alice'), Reply)).resolves.toEqual({ servedFor: 'agt_alice', principal: 'agt_alice' });
    await expect(requestAs(gateway, 'agt_alice', SUBJECTS.billing.credit, creditBody('agt_alice'), Reply)).resolves.toEqual({ servedFor: 'agt_alice', principal: 'agt_alice' });
  });
});

describe('NATS refuses callers without the right user', () => {
  it('refuses an anonymous client and a wrong password', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
    await expect(connect({ servers: nats.url, user: 'gateway', pass: 'guessed', reconnect: false })).rejects.toThrow(/Authorization Violation/i);
  });

  it.each(['memory-worker', 'records', 'files', 'agents', 'vector-index'])('does not let %s send memory.v1.recall or billing.v1.credit', async (user) => {
    const nc = await rawAs(user);
    // the server drops the publish (permissions violation): no service ever sees it, the request fails
    await expect(rawRequest(nc, SUBJECTS.memory.recall, recallBody('agt_victim'), {})).rejects.toThrow();
    await expect(rawRequest(nc, SUBJECTS.billing.credit, creditBody('agt_thief'), {})).rejects.toThrow();
  });

  it('does not let a service read the replies meant for the gateway', async () => {
    const nc = await rawAs('memory-worker');
    const sub = nc.subscribe(`${natsInboxPrefix('gateway')}.>`);
    clients.push({ close: () => sub.unsubscribe() });
    await nc.flush();
    // the subscription is refused by the server and closed with a permissions error
    await expect((async () => {
      for await (const _ of sub) return 'received';
      return 'closed';
    })()).rejects.toThrow(/permissions violation/i);
  });
});

describe('services refuse a principal the gateway did not sign', () => {
  it('refuses a principal header without a signature', async () => {
    const nc = await rawAs('gateway');
    const reply = await rawRequest(nc, SUBJECTS.memory.recall, recallBody('agt_victim'), { 'x-request-id': 'r1', 'x-agent-id': 'agt_victim', 'x-key-environment': 'live' });
    expect(reply.err).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(reply.response).toBeUndefined();
  });

  it('refuses a message without any principal on a subject that needs one', async () => {
    const unsigned = busAs('gateway');
    await expect(requestAs(unsigned, 'agt_victim', SUBJECTS.memory.recall, recallBody('agt_victim'), Reply)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(requestAs(unsigned, undefined, SUBJECTS.billing.credit, creditBody('agt_thief'), Reply)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('refuses a principal signed with another key', async () => {
    const other = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    const forger = busAs('gateway', other);
    await expect(requestAs(forger, 'agt_victim', SUBJECTS.memory.recall, recallBody('agt_victim'), Reply)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/bad_signature/) });
    await expect(requestAs(forger, 'agt_thief', SUBJECTS.billing.credit, creditBody('agt_thief'), Reply)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('refuses a signed body acting for another agent than the signed principal', async () => {
    const gateway = busAs('gateway', creds.signingPrivateKey);
    await expect(requestAs(gateway, 'agt_mallory', SUBJECTS.memory.recall, recallBody('agt_victim'), Reply)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(requestAs(gateway, 'agt_mallory', SUBJECTS.billing.credit, creditBody('agt_victim'), Reply)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('refuses a valid signature replayed over another body or deadline, and a stale one', async () => {
    const signer = new BusSigner(creds.signingPrivateKey);
    const nc = await rawAs('gateway');
    const signedBody = json.encode({ pattern: SUBJECTS.memory.recall, data: recallBody('agt_mallory'), id: 'raw-1' });
    const base = { 'x-request-id': 'r2', 'x-agent-id': 'agt_mallory', 'x-key-environment': 'test' };
    const signedAt = Date.now();
    const signature = signer.sign({ subject: SUBJECTS.memory.recall, requestId: 'r2', agentId: 'agt_mallory', keyEnvironment: 'test', signedAt, body: signedBody });
    // the same headers over a body naming the victim's record
    const swapped = await rawRequest(nc, SUBJECTS.memory.recall, { ...recallBody('agt_mallory'), recordId: 'rec_other' }, { ...base, 'x-bus-signed-at': String(signedAt), 'x-bus-signature': signature });
    expect(swapped.err).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/bad_signature/) });
    // the same body and signature with a deadline added (the signature covers x-deadline)
    const extended = await rawRequest(nc, SUBJECTS.memory.recall, recallBody('agt_mallory'), { ...base, 'x-deadline': String(Date.now() + 3_600_000), 'x-bus-signed-at': String(signedAt), 'x-bus-signature': signature });
    expect(extended.err).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/bad_signature/) });
    // and untouched, it runs: the two refusals above are for the changes alone
    const intact = await rawRequest(nc, SUBJECTS.memory.recall, recallBody('agt_mallory'), { ...base, 'x-bus-signed-at': String(signedAt), 'x-bus-signature': signature });
    expect(intact.response).toEqual({ servedFor: 'agt_mallory', principal: 'agt_mallory' });
    // a correct signature made ten minutes ago
    const old = Date.now() - 600_000;
    const oldSignature = signer.sign({ subject: SUBJECTS.memory.recall, requestId: 'r2', agentId: 'agt_mallory', keyEnvironment: 'test', signedAt: old, body: signedBody });
    const stale = await rawRequest(nc, SUBJECTS.memory.recall, recallBody('agt_mallory'), { ...base, 'x-bus-signed-at': String(old), 'x-bus-signature': oldSignature });
    expect(stale.err).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/stale/) });
  });
});
