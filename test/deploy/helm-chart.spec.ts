/**
 * The Helm chart (deploy/helm/agent-memory) checked with the real helm binary, offline: `helm lint
 * --strict` (which applies values.schema.json), `helm template` with the default and the production-like
 * values, and structural assertions over the rendered objects. No cluster here, so nothing is applied.
 */
import { CHART, PRODUCTION_VALUES, SERVICES, find, helm, render, withValuesFile, type K8sObject } from './helm';

const RELEASE = 'am';
const fullname = `${RELEASE}-agent-memory`;
const SECRET_KEYS = ['DATABASE_URL', 'REDIS_URL', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'QDRANT_API_KEY', 'PAYMENT_SECRET_KEY', 'PAYMENT_SETTLER_PRIVATE_KEY'];

/** Secret keys of the bus credentials: a NATS password per process and the gateway's signing key pair. */
const natsPasswordKey = (svc: string) => `NATS_PASSWORD_${svc.toUpperCase().replace(/-/g, '_')}`;
const BUS_SECRET_KEYS = ['BUS_SIGNING_PRIVATE_KEY', 'BUS_SIGNING_PUBLIC_KEY', ...SERVICES.map(natsPasswordKey)];

/** Ports of a process: every process has ops 9090 (health, metrics); the gateway also the API, http 8080. */
const portsOf = (svc: string) => [...(svc === 'gateway' ? [{ name: 'http', port: 8080 }] : []), { name: 'ops', port: 9090 }];

/** Assertions every process Deployment must meet, whatever the values. */
function expectHardenedDeployment(objects: K8sObject[], svc: string, secretName: string) {
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
function expectMigrationJob(objects: K8sObject[], secretName: string) {
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

describe('helm chart: default values (development)', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(RELEASE);
  });

  it('passes helm lint --strict (values.schema.json applied)', () => {
    const res = helm(['lint', '--strict', CHART]);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it.each(SERVICES)('renders a hardened Deployment and a Service for %s', (svc) => {
    const dep = expectHardenedDeployment(objects, svc, `${fullname}-secret`);
    expect(dep.spec.replicas).toBe(1);
    // the chart made the Secret, so pods roll when it changes
    expect(dep.spec.template.metadata.annotations['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('renders exactly one Deployment per process, no HPA, PDB, Ingress or ServiceMonitor', () => {
    expect(objects.filter((o) => o.kind === 'Deployment').map((o) => o.spec.template.spec.containers[0].args[0]).sort()).toEqual([...SERVICES].sort());
    for (const kind of ['HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Ingress', 'ServiceMonitor']) {
      expect(objects.filter((o) => o.kind === kind)).toEqual([]);
    }
  });

  it('gives the gateway a preStop sleep (endpoints drop it before it stops accepting), and the NATS services none', () => {
    for (const dep of objects.filter((o) => o.kind === 'Deployment')) {
      const container = dep.spec.template.spec.containers[0];
      if (container.args[0] === 'gateway') expect(container.lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
      else expect(container.lifecycle).toBeUndefined();
    }
  });

  it('runs migrations in a pre-install,pre-upgrade hook Job after the dev Secret hook', () => {
    const job = expectMigrationJob(objects, `${fullname}-secret`);
    const secret = find(objects, 'Secret', `${fullname}-secret`);
    expect(secret.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(Number(secret.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(Number(job.metadata.annotations?.['helm.sh/hook-weight'] ?? 0));
    expect(Object.keys(secret.stringData).sort()).toEqual(['DATABASE_URL', 'PAYMENT_SECRET_KEY', 'REDIS_URL', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', ...BUS_SECRET_KEYS].sort());
  });

  it('puts the non-secret settings in the ConfigMap and no secret in it', () => {
    const cm = find(objects, 'ConfigMap', `${fullname}-config`);
    expect(cm.data).toMatchObject({
      NATS_URL: 'nats://nats:4222',
      S3_ENDPOINT: 'http://minio:9000',
      S3_BUCKET: 'agent-memory',
      S3_REGION: 'us-east-1',
      QDRANT_URL: 'http://qdrant:6333',
      BILLING_MODE: 'enforce',
      LOG_LEVEL: 'info',
      AGENT_KEY_PREFIX: 'amk',
      BUS_REQUEST_TIMEOUT_MS: '30000',
      RATE_LIMITS: 'on',
      MIGRATIONS: 'verify',
      HOST: '0.0.0.0',
      DATA_DIR: '/data',
    });
    for (const key of SECRET_KEYS) expect(cm.data).not.toHaveProperty(key);
    for (const v of Object.values(cm.data)) expect(typeof v).toBe('string');
  });

  it('labels every object with the app.kubernetes.io/* labels', () => {
    for (const o of objects) {
      expect(o.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': 'agent-memory',
        'app.kubernetes.io/instance': RELEASE,
        'app.kubernetes.io/managed-by': 'Helm',
        'helm.sh/chart': expect.stringMatching(/^agent-memory-\d+\.\d+\.\d+/),
      });
    }
  });

  it('keeps checksum/config stable across renders and changes it when a ConfigMap value changes', () => {
    const sum = (objs: K8sObject[]) => find(objs, 'Deployment', `${fullname}-memory`).spec.template.metadata.annotations['checksum/config'];
    const cm = find(objects, 'ConfigMap', `${fullname}-config`);
    expect(sum(objects)).toBe(sum(render(RELEASE)));
    const changed = render(RELEASE, [], ['--set', 'config.logLevel=debug']);
    expect(sum(changed)).not.toBe(sum(objects));
    expect(find(changed, 'ConfigMap', `${fullname}-config`).data.LOG_LEVEL).toBe('debug');
    expect(cm.data.LOG_LEVEL).toBe('info');
  });
});

describe('helm chart: production-like values (ci/values-production.yaml)', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(RELEASE, [PRODUCTION_VALUES]);
  });

  it('passes helm lint --strict', () => {
    const res = helm(['lint', '--strict', CHART, '-f', PRODUCTION_VALUES]);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it.each(SERVICES)('%s: hardened Deployment under an HPA (no fixed replicas), PDB, spread, ServiceMonitor', (svc) => {
    const dep = expectHardenedDeployment(objects, svc, 'agent-memory-credentials');
    expect(dep.spec.replicas).toBeUndefined();
    const assumed = dep.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'RATE_LIMIT_ASSUMED_REPLICAS');
    // the gateway's Redis-outage fallback limiter divides the budget by the HPA's minimum
    if (svc === 'gateway') expect(assumed).toEqual({ name: 'RATE_LIMIT_ASSUMED_REPLICAS', value: '3' });
    else expect(assumed).toBeUndefined();
    expect(dep.spec.template.metadata.annotations['checksum/secret']).toBeUndefined();
    const pod = dep.spec.template.spec;
    expect(pod.imagePullSecrets).toEqual([{ name: 'registry-credentials' }]);
    expect(pod.containers[0].image).toBe('registry.example.com/agent-memory/agent-memory:0.1.0');
    expect(pod.topologySpreadConstraints).toEqual([
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: dep.spec.selector.matchLabels } },
    ]);

    const hpa = find(objects, 'HorizontalPodAutoscaler', `${fullname}-${svc}`);
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: dep.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(hpa.spec.metrics[0].resource).toMatchObject({ name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } });

    const pdb = find(objects, 'PodDisruptionBudget', `${fullname}-${svc}`);
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdb.spec.selector.matchLabels).toEqual(dep.spec.selector.matchLabels);
    // exactly one of the two, as Kubernetes requires
    expect(Object.keys(pdb.spec).filter((k) => k === 'minAvailable' || k === 'maxUnavailable')).toHaveLength(1);
    if (svc === 'memory-worker') expect(pdb.spec.maxUnavailable).toBe(1);
    else expect(pdb.spec.minAvailable).toBe(1);

    const sm = find(objects, 'ServiceMonitor', `${fullname}-${svc}`);
    expect(sm.metadata.labels?.release).toBe('prometheus');
    // every process, the gateway included, is scraped on its ops port: the API port serves no /metrics
    expect(sm.spec.endpoints).toEqual([expect.objectContaining({ port: 'ops', path: '/metrics' })]);
    expect(sm.spec.selector.matchLabels).toEqual(dep.spec.selector.matchLabels);
  });

  it('takes every secret from existingSecret and creates no Secret', () => {
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    expectMigrationJob(objects, 'agent-memory-credentials');
  });

  it('exposes the gateway through an Ingress with TLS', () => {
    const ing = find(objects, 'Ingress', fullname);
    expect(ing.spec.ingressClassName).toBe('nginx');
    expect(ing.spec.tls).toEqual([{ secretName: 'agent-memory-tls', hosts: ['memory.example.com'] }]);
    expect(ing.spec.rules[0].http.paths[0].backend.service).toEqual({ name: `${fullname}-gateway`, port: { name: 'http' } });
  });

  it('points the ConfigMap at the external dependencies', () => {
    expect(find(objects, 'ConfigMap', `${fullname}-config`).data).toMatchObject({
      NATS_URL: 'nats://nats.messaging.svc.cluster.local:4222',
      QDRANT_URL: 'http://qdrant.vector.svc.cluster.local:6333',
      S3_ENDPOINT: 'https://s3.eu-west-1.amazonaws.com',
      S3_BUCKET: 'agent-memory-prod',
      S3_REGION: 'eu-west-1',
    });
  });
});

describe('helm chart: values are validated and merged as documented', () => {
  /** Runs lint and template on a values file; both must fail, and stderr must name `mention`. */
  function expectRejected(yamlText: string, mention: RegExp) {
    withValuesFile(yamlText, (file) => {
      const lint = helm(['lint', '--strict', CHART, '-f', file]);
      expect(lint.status).not.toBe(0);
      expect(lint.stdout + lint.stderr).toMatch(mention);
      const tpl = helm(['template', RELEASE, CHART, '-f', file]);
      expect(tpl.status).not.toBe(0);
      expect(tpl.stderr).toMatch(mention);
    });
  }

  it('rejects replicas given as a string', () => expectRejected('services:\n  gateway:\n    replicas: two\n', /services\/gateway\/replicas.*want integer/));
  it('rejects an unknown top-level key', () => expectRejected('replicaCount: 3\n', /additional properties 'replicaCount' not allowed/));
  it('rejects an unknown service', () => expectRejected('services:\n  frontend: {}\n', /additional properties 'frontend' not allowed/));
  it('rejects an unknown key inside a service', () => expectRejected('serviceDefaults:\n  replica: 2\n', /additional properties 'replica' not allowed/));
  it('rejects an unknown billing mode', () => expectRejected('config:\n  billingMode: free\n', /billingMode/));
  it('requires a Qdrant url', () => expectRejected('qdrant:\n  url: ""\n', /qdrant\/url/));
  it('rejects an unknown migrations mode', () => expectRejected('config:\n  migrations: skip\n', /migrations/));
  it('rejects a NATS url that is not nats://', () => expectRejected('nats:\n  url: http://nats:4222\n', /nats\/url/));
  it('requires the dev Secret keys when no existingSecret is given', () => expectRejected('devSecret:\n  DATABASE_URL: ""\n', /devSecret\/DATABASE_URL.*minLength/));
  it('needs no dev Secret keys once existingSecret is set', () => {
    withValuesFile('existingSecret: creds\ndevSecret:\n  DATABASE_URL: ""\n', (file) => {
      expect(helm(['lint', '--strict', CHART, '-f', file]).status).toBe(0);
      expect(render(RELEASE, [file]).filter((o) => o.kind === 'Secret')).toEqual([]);
    });
  });

  it('lets a service override defaults with false and 0, and drop out', () => {
    const objects = render(RELEASE, [], ['--set', 'services.files.enabled=false', '--set', 'services.gateway.replicas=0', '--set', 'serviceDefaults.replicas=2']);
    expect(objects.find((o) => o.metadata.name === `${fullname}-files`)).toBeUndefined();
    expect(find(objects, 'Deployment', `${fullname}-gateway`).spec.replicas).toBe(0);
    expect(find(objects, 'Deployment', `${fullname}-records`).spec.replicas).toBe(2);
  });

  it('merges per-service maps over the defaults key by key', () => {
    const objects = render(RELEASE, [], ['--set', 'services.records.resources.limits.memory=2Gi', '--set', 'services.billing.env.FOO=bar']);
    const records = find(objects, 'Deployment', `${fullname}-records`).spec.template.spec.containers[0];
    expect(records.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '1', memory: '2Gi' } });
    const billing = find(objects, 'Deployment', `${fullname}-billing`).spec.template.spec.containers[0];
    expect(billing.env).toEqual(expect.arrayContaining([{ name: 'FOO', value: 'bar' }]));
  });
});

/** The rules of a NetworkPolicy's egress as `port/protocol` lists, one per rule, plus the rule's peers. */
const egressOf = (policy: K8sObject) =>
  (policy.spec.egress as Array<{ ports: Array<{ port: number; protocol: string }>; to?: unknown[] }>).map((r) => ({ ports: r.ports.map((p) => `${p.port}/${p.protocol}`), to: r.to }));

describe('helm chart: network policy', () => {
  const DNS = { ports: ['53/UDP', '53/TCP'], to: undefined };
  const PORTS = { nats: ['4222/TCP'], postgres: ['5432/TCP'], redis: ['6379/TCP'], s3: ['443/TCP', '9000/TCP'], qdrant: ['6333/TCP', '6334/TCP'] };
  const USES: Record<string, Array<keyof typeof PORTS>> = {
    gateway: ['nats', 'redis'],
    agents: ['nats', 'postgres'],
    records: ['nats', 'postgres'],
    billing: ['nats', 'postgres'],
    memory: ['nats', 'postgres', 'redis', 's3', 'qdrant'],
    'memory-worker': ['nats', 'postgres', 'redis', 's3', 'qdrant'],
    files: ['nats', 'postgres', 'redis', 's3'],
  };
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(RELEASE);
  });

  it.each(SERVICES)('%s: selects exactly its pods and denies what it does not list, both ways', (svc) => {
    const policy = find(objects, 'NetworkPolicy', `${fullname}-${svc}`);
    expect(policy.apiVersion).toBe('networking.k8s.io/v1');
    expect(policy.spec.podSelector.matchLabels).toEqual(find(objects, 'Deployment', `${fullname}-${svc}`).spec.selector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
  });

  it('opens the gateway\'s HTTP port to anyone and every ops port (the gateway\'s too) to the cluster\'s pods only', () => {
    for (const svc of SERVICES) {
      const ingress = find(objects, 'NetworkPolicy', `${fullname}-${svc}`).spec.ingress;
      const ops = { ports: [{ port: 'ops', protocol: 'TCP' }], from: [{ namespaceSelector: {} }] };
      if (svc === 'gateway') expect(ingress).toEqual([{ ports: [{ port: 'http', protocol: 'TCP' }] }, ops]);
      else expect(ingress).toEqual([ops]);
    }
  });

  it.each(SERVICES)('%s: egress only to DNS, NATS and the stores it uses (the gateway also to HTTPS for payment settlement)', (svc) => {
    const expected = [DNS, ...USES[svc]!.map((d) => ({ ports: PORTS[d], to: undefined }))];
    if (svc === 'gateway') expected.push({ ports: ['443/TCP'], to: undefined });
    expect(egressOf(find(objects, 'NetworkPolicy', `${fullname}-${svc}`))).toEqual(expected);
  });

  it('narrows peers as the values say (production: ops from monitoring, NATS in messaging)', () => {
    const prod = render(RELEASE, [PRODUCTION_VALUES]);
    for (const svc of SERVICES) {
      const policy = find(prod, 'NetworkPolicy', `${fullname}-${svc}`);
      const ops = policy.spec.ingress.find((rule: { ports: Array<{ port: string }> }) => rule.ports[0]!.port === 'ops');
      expect(ops.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
      expect(egressOf(policy)[1]).toEqual({ ports: ['4222/TCP'], to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'messaging' } } }] });
    }
  });

  it('renders none when disabled, and none for a disabled process', () => {
    expect(render(RELEASE, [], ['--set', 'networkPolicy.enabled=false']).filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
    const withoutFiles = render(RELEASE, [], ['--set', 'services.files.enabled=false']);
    expect(withoutFiles.filter((o) => o.kind === 'NetworkPolicy').map((o) => o.metadata.name)).not.toContain(`${fullname}-files`);
  });

  it('refuses unknown keys and non-numeric ports', () => {
    withValuesFile('networkPolicy:\n  egressAll: true\n', (file) => expect(helm(['lint', '--strict', CHART, '-f', file]).status).not.toBe(0));
    withValuesFile('networkPolicy:\n  dependencies:\n    nats: { ports: [nats], to: [] }\n', (file) => expect(helm(['lint', '--strict', CHART, '-f', file]).status).not.toBe(0));
  });
});

describe('helm chart: ports', () => {
  it('moves every process\'s ops port, probes and Service with opsPort, and keeps the gateway\'s API port', () => {
    const objects = render(RELEASE, [], ['--set', 'serviceDefaults.opsPort=9464']);
    for (const svc of SERVICES) {
      const c = find(objects, 'Deployment', `${fullname}-${svc}`).spec.template.spec.containers[0];
      expect(c.ports.find((p: { name: string }) => p.name === 'ops').containerPort).toBe(9464);
      expect(c.env.find((e: { name: string }) => e.name === 'OPS_PORT').value).toBe('9464');
      expect(find(objects, 'Service', `${fullname}-${svc}`).spec.ports.find((p: { name: string }) => p.name === 'ops').port).toBe(9464);
    }
    const gateway = find(objects, 'Deployment', `${fullname}-gateway`).spec.template.spec.containers[0];
    expect(gateway.env.find((e: { name: string }) => e.name === 'PORT').value).toBe('8080');
  });

  it('refuses a gateway whose API port is its ops port (metrics would be public)', () => {
    const res = helm(['template', RELEASE, CHART, '--set', 'services.gateway.opsPort=8080']);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('services.gateway.port and opsPort must differ');
  });
});

describe('helm chart: signature domain', () => {
  const domainOf = (objects: K8sObject[]) => find(objects, 'ConfigMap', `${fullname}-config`).data.SIGNATURE_DOMAIN;

  it('sets SIGNATURE_DOMAIN once, in the ConfigMap every process reads, from config.signatureDomain', () => {
    const objects = render(RELEASE, [], ['--set', 'config.signatureDomain=memory.example.org:8443']);
    expect(domainOf(objects)).toBe('memory.example.org:8443');
    for (const svc of SERVICES) {
      const c = find(objects, 'Deployment', `${fullname}-${svc}`).spec.template.spec.containers[0];
      expect(c.envFrom).toEqual([{ configMapRef: { name: `${fullname}-config` } }]);
      // no process overrides it: all name the same deployment
      expect(c.env.find((e: { name: string }) => e.name === 'SIGNATURE_DOMAIN')).toBeUndefined();
    }
    // the migration Job does not sign anything, but the ConfigMap's checksum rolls every pod when it changes
    const sum = (objs: K8sObject[]) => find(objs, 'Deployment', `${fullname}-gateway`).spec.template.metadata.annotations['checksum/config'];
    expect(sum(objects)).not.toBe(sum(render(RELEASE)));
  });

  it('defaults to the first ingress host (production values name it too), and to none without an ingress or with a wildcard host', () => {
    expect(domainOf(render(RELEASE))).toBeUndefined();
    expect(domainOf(render(RELEASE, [PRODUCTION_VALUES]))).toBe('memory.example.com');
    const withHost = (host: string) =>
      withValuesFile(`ingress:\n  enabled: true\n  hosts:\n    - host: ${JSON.stringify(host)}\n      paths: [{ path: /, pathType: Prefix }]\n`, (file) => domainOf(render(RELEASE, [file])));
    expect(withHost('API.Example.net')).toBe('api.example.net');
    expect(withHost('*.example.net')).toBeUndefined();
    expect(domainOf(render(RELEASE, [], ['--set', 'ingress.enabled=true', '--set', 'config.signatureDomain=memory.example.org']))).toBe('memory.example.org');
  });

  it.each(['https://memory.example.com', 'Memory.Example.com', 'memory', 'memory.example.com/api', 'memory.example.com:port'])('refuses %s (a host, with an optional port, as the processes accept it)', (value) => {
    withValuesFile(`config:\n  signatureDomain: ${JSON.stringify(value)}\n`, (file) => {
      const lint = helm(['lint', '--strict', CHART, '-f', file]);
      expect(lint.status).not.toBe(0);
      expect(lint.stdout + lint.stderr).toMatch(/signatureDomain/);
    });
  });

  it('refuses the domain set twice (config.signatureDomain and config.extraEnv.SIGNATURE_DOMAIN)', () => {
    const res = helm(['template', RELEASE, CHART, '--set', 'config.signatureDomain=a.example.com', '--set', 'config.extraEnv.SIGNATURE_DOMAIN=b.example.com']);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('set the signature domain once');
    // extraEnv alone still works (and wins over the ingress default)
    const objects = render(RELEASE, [], ['--set', 'ingress.enabled=true', '--set', 'config.extraEnv.SIGNATURE_DOMAIN=b.example.com']);
    expect(domainOf(objects)).toBe('b.example.com');
  });
});

describe('helm chart: bus credentials', () => {
  it('fails to render without a NATS password or the signing key in the dev Secret', () => {
    for (const key of ['NATS_PASSWORD_MEMORY_WORKER', 'BUS_SIGNING_PRIVATE_KEY']) {
      withValuesFile(`devSecret:\n  ${key}: ""\n`, (file) => {
        const res = helm(['template', RELEASE, CHART, '-f', file]);
        expect(res.status).not.toBe(0);
        expect(res.stderr).toContain(`devSecret.${key} is empty`);
      });
    }
  });
});
