import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fsyncDirectory, tenantLogPath } from './point-log';

/**
 * Folder of erasure markers: one small file per tenant whose log may still hold deleted points (named
 * like its log, holding the tenant id). Written and synced before a delete record is appended, removed
 * after that tenant's log was rewritten, read on `open`: a crash between a delete and its compaction
 * cannot make the index forget to erase the deleted vectors (docs/configuration.md, "Vector index").
 */
export const ERASURES_DIR = 'erasures';

function markerPath(directory: string, tenant: string): string {
  return path.join(directory, ERASURES_DIR, path.basename(tenantLogPath(directory, tenant)));
}

/** Writes and syncs the marker of `tenant` (and its folder entry). */
export async function writeErasureMarker(directory: string, tenant: string): Promise<void> {
  const folder = path.join(directory, ERASURES_DIR);
  if ((await fsp.mkdir(folder, { recursive: true, mode: 0o700 })) !== undefined) await fsyncDirectory(directory);
  const handle = await fsp.open(markerPath(directory, tenant), 'w', 0o600);
  try {
    await handle.writeFile(tenant, 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fsyncDirectory(folder);
}

/** Removes the marker of `tenant` if any (not synced: a marker that reappears only costs a rewrite). */
export async function removeErasureMarker(directory: string, tenant: string): Promise<void> {
  await fsp.rm(markerPath(directory, tenant), { force: true });
}

/** Tenants with a marker (a torn or empty marker from a crash while writing it is skipped: its delete was not acknowledged). */
export async function readErasureMarkers(directory: string): Promise<Set<string>> {
  const tenants = new Set<string>();
  let dir;
  try {
    dir = await fsp.opendir(path.join(directory, ERASURES_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return tenants;
    throw error;
  }
  for await (const entry of dir) {
    if (!entry.isFile()) continue;
    const tenant = await fsp.readFile(path.join(directory, ERASURES_DIR, entry.name), 'utf8');
    if (tenant.length > 0 && markerPath(directory, tenant) === path.join(directory, ERASURES_DIR, entry.name)) tenants.add(tenant);
  }
  return tenants;
}
