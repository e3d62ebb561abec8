/** Names and assertions shared by the Helm chart suites (helm-chart.spec.ts, helm-chart-network.spec.ts). */
import { SERVICES, find, type K8sObject } from './helm';

export const RELEASE = 'am';
export const fullname = `${RELEASE}-agent-memory`;
export const SECRET_KEYS = ['DATABASE_URL', 'REDIS_URL', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'QDRANT_API_KEY', 'PAYMENT_SECRET_KEY', 'PAYMENT_SETTLER_PRIVATE_KEY'];

/** Secret keys of the bus credentials: a NATS password per process and the gateway's signing key pair. */
export const natsPasswordKey = (svc: string) => `NATS_PASSWORD_${svc.toUpperCase().replace(/-/g, '_')}`;
export const BUS_SECRET_KEYS = ['BUS_SIGNING_PRIVATE_KEY', 'BUS_SIGNING_PUBLIC_KEY', ...SERVICES.map(natsPasswordKey)];

/** Ports of a process: every process has ops 9090 (health, metrics); the gateway also the API, http 8080. */
export const portsOf = (svc: string) => [...(svc === 'gateway' ? [{ name: 'http', port: 8080 }] : []), { name: 'ops', port: 9090 }];

/** Assertions every process Deployment must meet, whatever the values. */
export function expectHardenedDeployment(objects: K8sObject[], svc: string, secretName: string) {
  const dep = find(objects, 'Deployment', `${fullname}-${svc}`);
  const pod = dep.spec.template.spec;
  expect(pod.containers).toHaveLength(1);
  const c = pod.containers[0];
  const ports = portsOf(svc);

  expect(c.args).toEqual([svc]);
  expect(c.ports).toEqual(ports.map(({ name, port }) => ({ name, containerPort: port, protocol: 'TCP' })));
  // probes on the ops port, the gateway's too (its API port serves health but never metrics)
  expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'ops' });
  expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
  expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'ops' });
  for (const kind of ['requests', 'limits']) {
    expect(c.resources[kind]).toEqual({ cpu: expect.anything(), memory: expect.anything() });
  }

  expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } });
  expect(c.securityContext).toEqual({
    runAsNonRoot: true,
    runAsUser: 10001,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  });
  expect(pod.automountServiceAccountToken).toBe(false);
  // read-only root: /tmp and DATA_DIR are emptyDirs
  expect(c.volumeMounts).toEqual(expect.arrayContaining([{ name: 'tmp', mountPath: '/tmp' }, { name: 'data', mountPath: '/data' }]));
  for (const v of ['tmp', 'data']) expect(pod.volumes.find((x: { name: string }) => x.name === v)?.emptyDir).toBeDefined();

  // non-secret env from the shared ConfigMap, secrets by reference, the port variable of the process
  expect(c.envFrom).toEqual([{ configMapRef: { name: `${fullname}-config` } }]);
  const env = Object.fromEntries(c.env.map((e: { name: string }) => [e.name, e]));
  expect(env.OPS_PORT.value).toBe('9090');
  if (svc === 'gateway') expect(env.PORT.value).toBe('8080');
  else expect(env.PORT).toBeUndefined();
  for (const key of SECRET_KEYS) {
    expect(env[key].valueFrom.secretKeyRef).toMatchObject({ name: secretName, key });
    expect(env[key].value).toBeUndefined();
  }
  for (const optional of ['QDRANT_API_KEY', 'PAYMENT_SETTLER_PRIVATE_KEY']) expect(env[optional].valueFrom.secretKeyRef.optional).toBe(true);
  // its own NATS user and password; the signing key only for the gateway, the public half for the others
  expect(env.NATS_USER).toEqual({ name: 'NATS_USER', value: svc });
  expect(env.NATS_PASSWORD.valueFrom.secretKeyRef).toEqual({ name: secretName, key: natsPasswordKey(svc) });
  const [has, hasNot] = svc === 'gateway' ? ['BUS_SIGNING_PRIVATE_KEY', 'BUS_SIGNING_PUBLIC_KEY'] : ['BUS_SIGNING_PUBLIC_KEY', 'BUS_SIGNING_PRIVATE_KEY'];
  expect(env[has].valueFrom.secretKeyRef).toEqual({ name: secretName, key: has });
  expect(env[hasNot]).toBeUndefined();
  expect(env.PAYMENT_SECRET_KEY.valueFrom.secretKeyRef.optional).toBeUndefined();
  expect(dep.spec.template.metadata.annotations['checksum/config']).toMatch(/^[0-9a-f]{64}$/);

  // the selector picks exactly this process's pods
  expect(dep.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'agent-memory', 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/component': svc });
  expect(dep.spec.template.metadata.labels).toMatchObject(dep.spec.selector.matchLabels);

  const service = find(objects, 'Service', `${fullname}-${svc}`);
  expect(service.spec.ports).toEqual(ports.map(({ name, port }) => ({ name, port, targetPort: name, protocol: 'TCP' })));
  expect(service.spec.selector).toEqual(dep.spec.selector.matchLabels);
  return dep;
}

/** Assertions on the pre-install/pre-upgrade migration Job. */
export function expectMigrationJob(objects: K8sObject[], secretName: string) {
  const job = find(objects, 'Job', `${fullname}-migrate`);
  expect(job.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade' });
  expect(job.metadata.annotations?.['helm.sh/hook-delete-policy']).toContain('before-hook-creation');
  const pod = job.spec.template.spec;
  expect(pod.restartPolicy).toBe('Never');
  const c = pod.containers[0];
  expect(c.args).toEqual(['migrate']);
  expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
  expect(c.resources.requests && c.resources.limits).toBeTruthy();
  const db = c.env.find((e: { name: string }) => e.name === 'DATABASE_URL');
  expect(db.valueFrom.secretKeyRef).toEqual({ name: secretName, key: 'DATABASE_URL' });
  return job;
}
