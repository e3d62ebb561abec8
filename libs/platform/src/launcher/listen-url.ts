/** Hosts that mean "this machine": loopback and the wildcard addresses. */
const LOCAL_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', '[::1]', 'localhost', '0.0.0.0', '::', '[::]']);

/**
 * The URL a launcher prints for a listener on `host`:`port`: `http://localhost:<port>` when the host is a
 * loopback or wildcard address (WebAuthn refuses an IP address as relying-party id, and the default
 * `PASSKEY_RP_ID` is `localhost`: docs/authentication.md), else `http://<host>:<port>` (IPv6 in brackets).
 */
export function browsableUrl(host: string, port: number): string {
  if (LOCAL_HOSTS.has(host) || host.startsWith('127.')) return `http://localhost:${port}`;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/**
 * What a launcher's "ready" line lists after the gateway's base `url` (from {@link browsableUrl}): the web
 * dashboard (`/dashboard`, docs/dashboard.md), the API docs (`/docs`) and the OpenAPI document, joined by
 * ` · `; e.g. `http://localhost:8080  ·  Dashboard http://localhost:8080/dashboard  ·  API docs …`.
 */
export function gatewayLinks(url: string): string {
  return `${url}  ·  Dashboard ${url}/dashboard  ·  API docs ${url}/docs  ·  OpenAPI ${url}/openapi.json`;
}
