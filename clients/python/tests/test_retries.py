"""Retries against the real server through a fault-injecting proxy (tests/fault_proxy.py) and a real
429 (docs/api.md, "Rate limits", "Idempotency keys", "After a 500 or a timeout")."""
from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from agent_memory import AgentMemory, AgentMemoryNetworkError, InternalError, RateLimitedError, RetryPolicy
from fault_proxy import FaultProxy

FAST = RetryPolicy(base_delay=0.01)


def test_a_429_is_waited_out_for_retry_after_then_repeated(base_url: str, agent: dict) -> None:
    with FaultProxy(base_url) as proxy, AgentMemory(proxy.url, api_key=agent["agentKey"], retry=FAST) as client:
        proxy.synthetic_429 = 1
        started = time.monotonic()
        assert client.records.get(agent["recordId"])["id"] == agent["recordId"]
        assert time.monotonic() - started >= 1.0
        assert len(proxy.seen) == 2


def test_a_503_is_repeated_for_safe_calls_only(base_url: str, agent: dict) -> None:
    with FaultProxy(base_url) as proxy, AgentMemory(proxy.url, api_key=agent["agentKey"], retry=FAST) as client:
        proxy.synthetic_503 = 2
        assert client.agents.get()["id"] == agent["agentId"]  # a read: 503, 503, then the answer
        assert len(proxy.seen) == 3
        proxy.synthetic_503 = 1
        with pytest.raises(InternalError) as caught:
            client.records.create("not repeated")  # a write without an idempotency key
        assert (caught.value.code, caught.value.status) == ("INTERNAL_ERROR", 503)
        assert len(proxy.seen) == 4


def test_a_timed_out_read_is_repeated_and_a_timed_out_write_reported(base_url: str, agent: dict) -> None:
    with FaultProxy(base_url) as proxy, AgentMemory(proxy.url, api_key=agent["agentKey"], timeout=0.5, retry=FAST) as client:
        proxy.delayed, proxy.delay_seconds = 1, 1.0
        assert client.agents.get()["id"] == agent["agentId"]  # the first attempt timed out
        assert len(proxy.seen) == 2
        proxy.delayed = 1
        with pytest.raises(AgentMemoryNetworkError) as caught:
            client.records.create("slow")  # not idempotent: its outcome is unknown, so it is reported
        assert caught.value.timed_out and len(proxy.seen) == 3


def test_a_paid_read_is_not_repeated_after_a_503_unless_paid_reads(base_url: str, agent: dict) -> None:
    record = agent["recordId"]
    with FaultProxy(base_url) as proxy, AgentMemory(proxy.url, api_key=agent["agentKey"], retry=FAST) as client:
        proxy.synthetic_503 = 1
        with pytest.raises(InternalError):
            client.memories.recall(record, "anything")  # a repeat that reached the server would be charged again
        assert len(proxy.seen) == 1
        proxy.synthetic_429 = 1
        assert client.memories.recall(record, "anything")["count"] >= 0  # a 429 charged nothing: repeated
        assert len(proxy.seen) == 3
    with FaultProxy(base_url) as proxy, AgentMemory(proxy.url, api_key=agent["agentKey"], retry=RetryPolicy(base_delay=0.01, paid_reads=True)) as client:
        client.files.write(record, "paid-read.md", "x")
        proxy.synthetic_503 = 1
        assert client.files.read(record, "paid-read.md")["content"] == "x"
        assert len(proxy.seen) == 3


def test_a_lost_remember_is_repeated_with_the_same_key_one_memory_one_charge(base_url: str, client: AgentMemory, agent: dict) -> None:
    record = agent["recordId"]
    with FaultProxy(base_url) as proxy, AgentMemory(proxy.url, api_key=agent["agentKey"], retry=FAST) as flaky:
        proxy.drop_after_forward, proxy.drop_suffix = 1, "/remember"
        memory = flaky.memories.remember(record, "Retried writes must not duplicate.")
    bodies = [body for method, path, body in proxy.seen if path.endswith("/remember")]
    assert len(bodies) == 2 and bodies[0] == bodies[1]  # the same idempotency_key, the same bytes
    key = json.loads(bodies[0])["idempotency_key"]
    same = [m["id"] for m in client.memories.list(record) if m["content"] == "Retried writes must not duplicate."]
    assert same == [memory["id"]]
    assert len([e for e in client.billing.usage(operation="remember") if e["idempotencyKey"] == key]) == 1


def test_an_idempotent_replay_answers_the_first_result(client: AgentMemory, agent: dict) -> None:
    first = client.files.write(agent["recordId"], "replay.md", "one", idempotency_key="py-replay-1")
    again = client.files.write(agent["recordId"], "replay.md", "one", idempotency_key="py-replay-1")
    assert again == first
    charges = [e for e in client.billing.usage(operation="write_file") if e["idempotencyKey"] == "py-replay-1"]
    assert len(charges) == 1


def test_a_write_without_a_key_is_not_repeated_after_a_lost_answer(base_url: str, agent: dict) -> None:
    with FaultProxy(base_url) as proxy, AgentMemory(proxy.url, api_key=agent["agentKey"], retry=FAST) as flaky:
        proxy.drop_after_forward, proxy.drop_suffix = 1, "/records"
        with pytest.raises(AgentMemoryNetworkError) as caught:
            flaky.records.create("maybe created")
    assert (caught.value.code, caught.value.status, caught.value.timed_out) == ("NETWORK_ERROR", 0, False)
    assert len(proxy.seen) == 1


def test_a_refused_connection_is_retried_then_reported() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    transport = CountingTransport()
    with AgentMemory(f"http://127.0.0.1:{port}", api_key="amk_test_x", retry=RetryPolicy(max_attempts=3, base_delay=0.01), http_client=httpx.Client(transport=transport)) as client:
        with pytest.raises(AgentMemoryNetworkError) as caught:
            client.records.create("never")  # not idempotent, but nothing reached a server
    assert caught.value.connect_failed and transport.calls == 3


class CountingTransport(httpx.HTTPTransport):
    """Counts the attempts sent."""

    calls = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return super().handle_request(request)


def test_a_real_429_with_a_long_retry_after_is_a_typed_error(limited_url: str) -> None:
    with AgentMemory(limited_url, retry=RetryPolicy(max_retry_after=0)) as client:
        client.create_agent("first")
        with pytest.raises(RateLimitedError) as caught:
            client.create_agent("second")
    error = caught.value
    assert (error.code, error.status) == ("RATE_LIMITED", 429) and error.request_id
    assert error.retry_after_seconds is not None and 50 <= error.retry_after_seconds <= 60
