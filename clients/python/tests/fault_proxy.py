"""A forwarding HTTP proxy in front of the real server that injects faults, for the retry tests:
``synthetic_429`` answers the next N requests with 429 and ``Retry-After: 1`` without forwarding them,
``synthetic_503`` the next N with 503 (a proxy's page, not the envelope); ``delay_seconds`` holds the
next N requests (``delayed``) that long before forwarding them (a slow answer);
``drop_after_forward`` forwards the next N requests matching a path suffix to the server, then closes
the connection without answering (a lost answer). ``seen`` lists (method, path, body) of every request."""
from __future__ import annotations

import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class FaultProxy:
    """Start with ``with FaultProxy(upstream) as proxy:``; ``proxy.url`` is its base URL."""

    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.seen: list[tuple[str, str, bytes]] = []
        self.synthetic_429 = 0
        self.synthetic_503 = 0
        self.delayed = 0
        self.delay_seconds = 0.0
        self.drop_after_forward = 0
        self.drop_suffix = ""
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                proxy.seen.append((self.command, self.path, body))
                if proxy.delayed > 0:
                    proxy.delayed -= 1
                    time.sleep(proxy.delay_seconds)
                if proxy.synthetic_503 > 0:
                    proxy.synthetic_503 -= 1
                    self.send_response(503)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                if proxy.synthetic_429 > 0:
                    proxy.synthetic_429 -= 1
                    payload = b'{"success":false,"error":{"code":"RATE_LIMITED","message":"injected"}}'
                    self.send_response(429)
                    self.send_header("retry-after", "1")
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                upstream = http.client.HTTPConnection(proxy.upstream.hostname, proxy.upstream.port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                upstream.request(self.command, self.path, body=body or None, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                upstream.close()
                if proxy.drop_after_forward > 0 and urlsplit(self.path).path.endswith(proxy.drop_suffix):
                    proxy.drop_after_forward -= 1
                    self.close_connection = True
                    self.connection.close()
                    return
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FaultProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
