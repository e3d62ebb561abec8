import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { SharedEmbeddedIndex } from './shared-embedded-index';

/**
 * Background work of the `vector-index` service (docs/architecture.md, "Background work"): none runs
 * periodically (the embedded index compacts its logs itself); at shutdown the index is closed, so its
 * logs are flushed and its directory lock released before the process exits.
 */
@Injectable()
export class VectorIndexLifecycle implements OnApplicationShutdown {
  constructor(private readonly shared: SharedEmbeddedIndex) {}

  async onApplicationShutdown(): Promise<void> {
    await this.shared.close();
  }
}
