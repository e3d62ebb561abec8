/** A timestamp (ISO 8601) in the reader's locale; '—' for none; an unreadable one as it came (never "Invalid Date"). */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/** A size in bytes as `B`, `KB` or `MB` (1,024 based), e.g. `1.5 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A recall `similarity` in [0, 1] (docs/api.md, "Recall") as a percentage with one decimal. */
export function formatSimilarity(similarity: number): string {
  return `${(Math.min(1, Math.max(0, similarity)) * 100).toFixed(1)}%`;
}
