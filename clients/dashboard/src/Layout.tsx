import { type ReactNode, useEffect, useRef } from 'react';
import { NavLink, useLocation, useNavigate } from 'react-router';
import { useSession } from './session';

/**
 * The page frame: a skip link, the header with navigation and sign-out, and the main landmark. On a
 * change of route the new page's `h1` takes the focus (once it is rendered: pages may load first), so
 * that screen readers announce the page and keyboard users start at its top. The first page load keeps
 * the browser's focus.
 */
export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const { human } = session;

  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const root = main.current;
    if (!root) return;
    const focusHeading = (): boolean => {
      const h1 = root.querySelector('h1');
      if (!h1) return false;
      if (!h1.hasAttribute('tabindex')) h1.setAttribute('tabindex', '-1');
      h1.focus();
      return true;
    };
    if (focusHeading()) return;
    // the page is still loading: focus its heading when it appears (at most 10 s later)
    const observer = new MutationObserver(() => {
      if (focusHeading()) observer.disconnect();
    });
    observer.observe(root, { childList: true, subtree: true });
    const timer = window.setTimeout(() => observer.disconnect(), 10_000);
    return () => {
      observer.disconnect();
      window.clearTimeout(timer);
    };
  }, [pathname]);

  async function signOut() {
    await session.signOut();
    void navigate('/', { replace: true });
  }

  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="top">
        <span className="brand">agent-memory</span>
        {human ? (
          <nav aria-label="Main">
            <NavLink to="/agents">Agents</NavLink>
            <NavLink to="/account">Account</NavLink>
            <button type="button" onClick={() => void signOut()}>Sign out</button>
          </nav>
        ) : null}
      </header>
      <main id="main" ref={main} tabIndex={-1}>{children}</main>
    </>
  );
}
