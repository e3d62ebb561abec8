"""Unit rules of the transport (agent_memory/_core.py, errors.py): the wait before repeating a 429, the
typed error of an answer without the envelope, the URL and body bytes that are sent and signed."""
from __future__ import annotations

import email.utils

import httpx

from agent_memory import InternalError, NotFoundError, RateLimitedError
from agent_memory._core import ClientConfig, RequestSpec, body_bytes, path_with_query, rate_limit_wait, url_of
from agent_memory.errors import error_from_response, parse_retry_after


def test_rate_limit_wait_reads_retry_after_then_ratelimit_reset() -> None:
    assert rate_limit_wait(httpx.Headers({"retry-after": "7"})) == 7
    assert rate_limit_wait(httpx.Headers({"ratelimit": "limit=100, remaining=0, reset=12"})) == 12
    assert rate_limit_wait(httpx.Headers({"ratelimit-reset": "3"})) == 3
    assert rate_limit_wait(httpx.Headers({})) == 1
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after(date, now=1_000_000) == 30


def test_errors_from_answers_with_and_without_the_envelope() -> None:
    found = error_from_response(404, httpx.Headers({"x-request-id": "r1"}), {"success": False, "error": {"code": "NOT_FOUND", "message": "no such record"}})
    assert isinstance(found, NotFoundError) and (found.code, found.status, found.request_id, found.message) == ("NOT_FOUND", 404, "r1", "no such record")
    limited = error_from_response(429, httpx.Headers({"retry-after": "5"}), None)
    assert isinstance(limited, RateLimitedError) and limited.retry_after_seconds == 5
    proxy = error_from_response(502, httpx.Headers({}), "<html>bad gateway</html>")
    assert isinstance(proxy, InternalError) and proxy.code == "INTERNAL_ERROR" and "without an error envelope" in proxy.message


def test_request_line_and_body_bytes() -> None:
    config = ClientConfig(base_url="https://memory.example.com/base")
    spec = RequestSpec("GET", "/records/rec_1/read", "agent", query={"path": "a b/ü.md", "cursor": None, "cascade": True})
    signed = path_with_query(spec)  # what a signature names: the gateway's path, without base_url's prefix
    assert signed == "/api/v1/records/rec_1/read?path=a+b%2F%C3%BC.md&cascade=true"
    assert url_of(config, signed) == "https://memory.example.com/base" + signed
    assert body_bytes(RequestSpec("POST", "/x", "agent", body={"content": "ü", "n": 1})) == '{"content":"ü","n":1}'.encode()
    assert body_bytes(RequestSpec("GET", "/x", "agent")) == b""
