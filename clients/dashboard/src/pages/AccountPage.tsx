/** Placeholder: filled in by the dashboard work (docs/dashboard.md). */
export function AccountPage() {
  return <h1>AccountPage</h1>;
}
