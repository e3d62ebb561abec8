/** Placeholder: filled in by the dashboard work (docs/dashboard.md). */
export function SignInPage() {
  return <h1>SignInPage</h1>;
}
