import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeBlobStoreContract } from './blob-store.contract';
import { FilesystemBlobStore } from './filesystem.blob-store';

describeBlobStoreContract('FilesystemBlobStore', async () => {
  const root = await mkdtemp(join(tmpdir(), 'agent-memory-blobs-'));
  return { store: new FilesystemBlobStore(root), dispose: () => rm(root, { recursive: true, force: true }) };
});
