/**
 * The Helm chart (deploy/helm/agent-memory) rendered offline with the real helm binary: what the processes
 * may reach and on which ports (network policy, Services, containers), the signature domain and the bus
 * credentials. The rest of the chart's checks are in helm-chart.spec.ts.
 */
import { CHART, PRODUCTION_VALUES, SERVICES, find, helm, render, withValuesFile, type K8sObject } from './helm';
import { RELEASE, fullname } from './helm-chart.fixture';

/** The rules of a NetworkPolicy's egress as `port/protocol` lists, one per rule, plus the rule's peers. */
const egressOf = (policy: K8sObject) =>
  (policy.spec.egress as Array<{ ports: Array<{ port: number; protocol: string }>; to?: unknown[] }>).map((r) => ({ ports: r.ports.map((p) => `${p.port}/${p.protocol}`), to: r.to }));

describe('helm chart: network policy', () => {
  const DNS = { ports: ['53/UDP', '53/TCP'], to: undefined };
  const PORTS = { nats: ['4222/TCP'], postgres: ['5432/TCP'], redis: ['6379/TCP'], s3: ['443/TCP', '9000/TCP'], qdrant: ['6333/TCP', '6334/TCP'] };
  const USES: Record<string, Array<keyof typeof PORTS>> = {
    gateway: ['nats', 'redis'],
    agents: ['nats', 'postgres', 'redis'],
    records: ['nats', 'postgres', 'redis'],
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
    const expected = [DNS, ...USES[svc].map((d) => ({ ports: PORTS[d], to: undefined }))];
    if (svc === 'gateway') expected.push({ ports: ['443/TCP'], to: undefined });
    expect(egressOf(find(objects, 'NetworkPolicy', `${fullname}-${svc}`))).toEqual(expected);
  });

  it('narrows peers as the values say (production: ops from monitoring, NATS in messaging)', () => {
    const prod = render(RELEASE, [PRODUCTION_VALUES]);
    for (const svc of SERVICES) {
      const policy = find(prod, 'NetworkPolicy', `${fullname}-${svc}`);
      const ops = policy.spec.ingress.find((rule: { ports: Array<{ port: string }> }) => rule.ports[0].port === 'ops');
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
