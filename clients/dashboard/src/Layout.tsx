import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import { useSession } from './session';

/** The page frame: a skip link, the header with navigation and sign-out, and the main landmark. */
export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const { human } = session;
  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="top">
        <span className="brand">agent-memory</span>
        {human ? (
          <nav aria-label="Main">
            <NavLink to="/agents">Agents</NavLink>
            <NavLink to="/account">Account</NavLink>
            <button type="button" onClick={() => void session.signOut()}>Sign out</button>
          </nav>
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>{children}</main>
    </>
  );
}
