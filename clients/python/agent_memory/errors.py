"""Typed errors of the agent-memory API (docs/api.md, "Envelope, statuses, errors").

An error answer is ``{"success": false, "error": {"code", "message"}}`` with its HTTP status; each code
has its class (``except NotFoundError``), and ``code``, ``status`` and ``request_id`` (the server's
``x-request-id``: quote it when reporting a problem) are on every instance.
"""
from __future__ import annotations

import email.utils
import time
from typing import Any, Mapping


class AgentMemoryError(Exception):
    """An error answer: ``code`` (e.g. ``"NOT_FOUND"``), HTTP ``status``, ``request_id`` and ``details``
    (the parsed ``body``, ``retry_after_seconds`` of a 429, ``www_authenticate`` of a 402)."""

    def __init__(self, code: str, status: int, message: str, request_id: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.request_id = request_id
        self.details: dict[str, Any] = details or {}

    def __str__(self) -> str:
        return f"{self.code} ({self.status}): {self.message}" + (f" [request {self.request_id}]" if self.request_id else "")


class ValidationError(AgentMemoryError):
    """400: a body, query or path parameter breaks its schema (the message names the field and the limit)."""


class UnauthorizedError(AgentMemoryError):
    """401: no usable credential (missing, unknown, expired, revoked key, or a bad wallet signature)."""


class PaymentRequiredError(AgentMemoryError):
    """402: a paid call was not paid; ``challenge`` is the ``WWW-Authenticate: Payment`` challenge if any."""

    @property
    def challenge(self) -> str | None:
        return self.details.get("www_authenticate")


class ForbiddenError(AgentMemoryError):
    """403: authenticated but not allowed (quota, raw blobs of a cloud agent, a test key elsewhere)."""


class NotFoundError(AgentMemoryError):
    """404: unknown route, or a record, memory, file or key that does not exist or is not the caller's."""


class RateLimitedError(AgentMemoryError):
    """429: a rate limit, a full queue or an idempotency key in progress; ``retry_after_seconds`` from ``Retry-After``."""

    @property
    def retry_after_seconds(self) -> int | None:
        return self.details.get("retry_after_seconds")


class InternalError(AgentMemoryError):
    """500 (or another unexpected status, e.g. a proxy's 502/503): the message carries the server's error id."""


class AgentMemoryNetworkError(Exception):
    """No HTTP answer: the connection failed or dropped, or the attempt timed out (``timed_out``).
    ``code`` is ``"NETWORK_ERROR"`` and ``status`` 0. After a write without an idempotency key the
    outcome is unknown (docs/api.md, "After a 500 or a timeout"), so such a write is never repeated."""

    code = "NETWORK_ERROR"
    status = 0
    request_id = None

    def __init__(self, message: str, timed_out: bool, connect_failed: bool) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.connect_failed = connect_failed


CLASS_BY_CODE: dict[str, type[AgentMemoryError]] = {
    "VALIDATION_ERROR": ValidationError,
    "UNAUTHORIZED": UnauthorizedError,
    "PAYMENT_REQUIRED": PaymentRequiredError,
    "FORBIDDEN": ForbiddenError,
    "NOT_FOUND": NotFoundError,
    "RATE_LIMITED": RateLimitedError,
    "INTERNAL_ERROR": InternalError,
}
_CODE_BY_STATUS = {400: "VALIDATION_ERROR", 401: "UNAUTHORIZED", 402: "PAYMENT_REQUIRED", 403: "FORBIDDEN", 404: "NOT_FOUND", 429: "RATE_LIMITED"}


def parse_retry_after(value: str | None, now: float | None = None) -> int | None:
    """``Retry-After`` in whole seconds (delta-seconds or an HTTP date); None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0, int(-(-(when - (time.time() if now is None else now)) // 1)))


def error_from_response(status: int, headers: Mapping[str, str], body: Any) -> AgentMemoryError:
    """The typed error of a failure answer (``body``: parsed JSON, the text, or None)."""
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    if code not in CLASS_BY_CODE:
        code = _CODE_BY_STATUS.get(status, "INTERNAL_ERROR")
    text = error.get("message") if isinstance(error, dict) else None
    message = text if isinstance(text, str) else f"HTTP {status} without an error envelope"
    details: dict[str, Any] = {"body": body}
    challenge = headers.get("www-authenticate")
    if challenge and challenge.lstrip().lower().startswith("payment "):
        details["www_authenticate"] = challenge
    retry_after = parse_retry_after(headers.get("retry-after"))
    if retry_after is not None:
        details["retry_after_seconds"] = retry_after
    return CLASS_BY_CODE[code](code, status, message, headers.get("x-request-id"), details)
