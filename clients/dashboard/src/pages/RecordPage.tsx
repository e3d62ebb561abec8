/** Placeholder: filled in by the dashboard work (docs/dashboard.md). */
export function RecordPage() {
  return <h1>RecordPage</h1>;
}
