"""What the sync and async transports share: the call description, its URL and body bytes, the
credential, the envelope, and the retry rules (docs/api.md, "Rate limits", "Idempotency keys", "After a
500 or a timeout"):

- 429 is repeated (a refused call changed nothing) after ``Retry-After`` (else the ``RateLimit`` reset,
  else 1 s) while that wait is at most ``max_retry_after`` seconds;
- a connection that could not be opened is repeated for every call (nothing reached the server);
- a lost answer, a timeout, 500 ("not applied"), 502, 503, 504 only for safe calls: free reads, and
  writes carrying an idempotency key (remember, write: one key per call, the same on every attempt);
  paid reads (recall, context, memory pages, read file) only with ``RetryPolicy(paid_reads=True)``, as
  each repeat that reaches the server is a new query, charged again (docs/billing.md, "What is charged");
- nothing else.
"""
from __future__ import annotations

import json
import random
import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping
from urllib.parse import quote, urlencode, urlsplit

import httpx

from .errors import AgentMemoryError, AgentMemoryNetworkError, error_from_response, parse_retry_after
from .signature import RequestSigner, SignatureRealm

Auth = Literal["agent", "signature", "human", "session-if-any", "none"]
"""Which credential a route takes (docs/api.md, "Authentication"): ``agent`` = the agent key, else the
wallet signature, else a human's passkey session; ``signature`` = wallet only (raw blobs); ``human`` =
passkey session; ``session-if-any`` = the session when the client has one; ``none`` = no Authorization."""


@dataclass
class RequestSpec:
    """One call below ``/api/v1``; ``idempotent``: safe to repeat after it may have reached the server;
    ``charged_per_attempt``: a paid read, charged again by each attempt that reaches the server."""

    method: Literal["GET", "POST", "PATCH", "DELETE"]
    path: str
    auth: Auth
    query: Mapping[str, Any] | None = None
    body: Any = None
    idempotent: bool = False
    charged_per_attempt: bool = False


@dataclass
class RetryPolicy:
    """``max_attempts`` per call including the first (1 disables retries); ``max_retry_after`` the longest
    ``Retry-After`` honoured (seconds); ``base_delay`` the first backoff of network errors and 5xx (seconds,
    doubled per attempt, ±50 % jitter); ``paid_reads``: also repeat paid reads after a lost answer, a
    timeout or a 5xx, accepting that each repeat reaching the server is charged again."""

    max_attempts: int = 3
    max_retry_after: float = 60.0
    base_delay: float = 0.25
    paid_reads: bool = False

    def backoff(self, attempt: int) -> float:
        return self.base_delay * 2 ** (attempt - 1) * (0.5 + random.random())


@dataclass
class ClientConfig:
    """Settings of a client (see :class:`agent_memory.AgentMemory`)."""

    base_url: str
    api_key: str | None = None
    session_token: str | None = None
    signer: RequestSigner | None = None
    signature_domain: str | None = None
    chain_id: int | None = None
    timeout: float = 30.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)


def segment(value: str) -> str:
    """A path parameter, percent-encoded as one segment."""
    return quote(value, safe="")


def idempotency_key(given: str | None) -> str:
    """The ``idempotency_key`` of one write call: the caller's, else a random UUID made once per call."""
    return given if given is not None else str(uuid.uuid4())


def path_with_query(spec: RequestSpec) -> str:
    """``/api/v1`` + path + query string (booleans as true/false): the path the gateway sees, and the one a
    wallet signature names (docs/authentication.md, "The signed message"). A path prefix of ``base_url``
    is left out: it is for a reverse proxy that strips it before the gateway."""
    pairs = [(k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (spec.query or {}).items() if v is not None]
    query = urlencode(pairs)
    return f"/api/v1{spec.path}" + (f"?{query}" if query else "")


def url_of(config: ClientConfig, pwq: str) -> str:
    """The URL requested: ``base_url`` (with its path prefix, if any) + :func:`path_with_query`."""
    parts = urlsplit(config.base_url)
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}{pwq}"


def body_bytes(spec: RequestSpec) -> bytes:
    """The exact body bytes (compact JSON, UTF-8), empty without a body."""
    if spec.body is None:
        return b""
    return json.dumps(spec.body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def needs_realm(config: ClientConfig, spec: RequestSpec) -> bool:
    """True when the call is signed and the chain id must first be read from ``GET /billing/prices``."""
    return config.chain_id is None and config.signer is not None and _uses_signature(config, spec)


def _uses_signature(config: ClientConfig, spec: RequestSpec) -> bool:
    return spec.auth == "signature" or (spec.auth == "agent" and not config.api_key and not (config.session_token and config.signer is None))


def authorization(config: ClientConfig, spec: RequestSpec, pwq: str, body: bytes) -> str | None:
    """The ``Authorization`` header of an attempt; TypeError when the client lacks the credential."""
    session = config.session_token
    if spec.auth == "none":
        return None
    if spec.auth == "session-if-any":
        return f"Passkey {session}" if session else None
    if spec.auth == "human":
        if not session:
            raise TypeError("this call needs a passkey session: pass session_token, or sign in with humans.login_verify")
        return f"Passkey {session}"
    if spec.auth == "agent" and config.api_key:
        return f"Bearer {config.api_key}"
    if spec.auth == "agent" and session and config.signer is None:
        return f"Passkey {session}"
    if config.signer is None:
        need = "the wallet of a local agent" if spec.auth == "signature" else "an api_key or a wallet"
        raise TypeError(f"{spec.method} {spec.path}: needs {need}")
    domain = config.signature_domain or urlsplit(config.base_url).netloc
    assert config.chain_id is not None
    return config.signer.authorization(SignatureRealm(domain, config.chain_id), spec.method, pwq, body)


def headers_of(spec: RequestSpec, auth: str | None) -> dict[str, str]:
    headers = {"accept": "application/json"}
    if spec.body is not None:
        headers["content-type"] = "application/json"
    if auth:
        headers["authorization"] = auth
    return headers


def _json(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def data_of(response: httpx.Response) -> Any:
    """``data`` of ``{"success": true, "data"}``; AgentMemoryError for anything else."""
    body = _json(response)
    if response.is_success and isinstance(body, dict) and body.get("success") is True:
        return body.get("data")
    if response.is_success:
        return AgentMemoryError("INTERNAL_ERROR", response.status_code, f"HTTP {response.status_code} without a success envelope", response.headers.get("x-request-id"), {"body": body})
    return error_from_response(response.status_code, response.headers, body)


def rate_limit_wait(headers: Mapping[str, str]) -> float:
    """Seconds before repeating a 429: ``Retry-After``, else ``RateLimit``'s ``reset``/``t`` or ``RateLimit-Reset``, else 1."""
    wait = parse_retry_after(headers.get("retry-after"))
    if wait is not None:
        return float(wait)
    match = re.search(r"(?:^|[;,\s])(?:reset|t)=(\d+)", headers.get("ratelimit", ""))
    reset = match.group(1) if match else headers.get("ratelimit-reset")
    return float(reset) if reset and reset.isdigit() else 1.0


def retry_delay(config: ClientConfig, spec: RequestSpec, attempt: int, outcome: httpx.Response | AgentMemoryNetworkError) -> float | None:
    """Seconds to wait before the next attempt, or None when the outcome is final."""
    policy = config.retry
    if attempt >= policy.max_attempts:
        return None
    safe = spec.idempotent and (policy.paid_reads or not spec.charged_per_attempt)
    if isinstance(outcome, AgentMemoryNetworkError):
        return policy.backoff(attempt) if outcome.connect_failed or safe else None
    if outcome.status_code == 429:
        wait = rate_limit_wait(outcome.headers)
        return wait if wait <= policy.max_retry_after else None
    if outcome.status_code in (500, 502, 503, 504) and safe:
        return policy.backoff(attempt)
    return None


def network_error(spec: RequestSpec, error: httpx.TransportError) -> AgentMemoryNetworkError:
    """The client-side error of an attempt without an answer; ``connect_failed``: nothing reached the server."""
    timed_out = isinstance(error, httpx.TimeoutException)
    connect_failed = isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))
    what = "timed out" if timed_out else f"network error: {error}"
    return AgentMemoryNetworkError(f"{spec.method} {spec.path}: {what}", timed_out, connect_failed)
