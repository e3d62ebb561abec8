/**
 * Child process of the crash test in `embedded.vector-index.spec.ts`: opens the index in `argv[2]`,
 * upserts points of 8 dimensions as fast as it can (several calls in flight), and prints the id of each
 * point once its upsert has resolved, until the parent kills it with SIGKILL.
 */
import { EmbeddedVectorIndex } from './embedded.vector-index';

async function main(): Promise<void> {
  const index = new EmbeddedVectorIndex({ directory: process.argv[2] });
  await index.open({ embedderId: 'contract-test@8', dimension: 8 });
  let next = 0;
  const writer = async () => {
    for (;;) {
      const id = `p${next++}`;
      const dense = Float32Array.from({ length: 8 }, (_, d) => Math.sin(next + d) + 1.5);
      await index.upsert([{ tenant: 't1', id, dense, sparse: { indices: [next % 97], values: [1] }, payload: { type: 'fact' } }]);
      process.stdout.write(`${id}\n`);
    }
  };
  await Promise.all([writer(), writer(), writer(), writer()]);
}

main().catch((error) => {
  process.stderr.write(String(error));
  process.exit(1);
});
