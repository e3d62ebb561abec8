/**
 * The Helm chart (deploy/helm/agent-memory) checked with the real helm binary, offline: `helm lint
 * --strict` (which applies values.schema.json), `helm template` with the default and the production-like
 * values, and structural assertions over the rendered objects. No cluster here, so nothing is applied.
 *
 * This file: the rendered objects of both value sets and the values' validation; the network policy,
 * ports, signature domain and bus credentials are in helm-chart-network.spec.ts.
 */
import { CHART, PRODUCTION_VALUES, SERVICES, find, helm, render, withValuesFile, type K8sObject } from './helm';
import { RELEASE, fullname, SECRET_KEYS, BUS_SECRET_KEYS, expectHardenedDeployment, expectMigrationJob } from './helm-chart.fixture';

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
