"""Sync and async execution of :class:`~agent_memory._core.RequestSpec` over httpx, with the retries of
``_core`` (the two classes differ only in ``await`` and the sleep)."""
from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from . import _core
from ._core import ClientConfig, RequestSpec
from .errors import AgentMemoryError, AgentMemoryNetworkError


class Transport:
    """Runs calls with an ``httpx.Client``; answers the envelope's ``data``, raises typed errors."""

    def __init__(self, config: ClientConfig, http: httpx.Client | None = None) -> None:
        self.config = config
        self.http = http or httpx.Client(timeout=config.timeout)

    def request(self, spec: RequestSpec) -> Any:
        if _core.needs_realm(self.config, spec):
            prices = self.request(RequestSpec("GET", "/billing/prices", "none", idempotent=True))
            self.config.chain_id = int(prices["payment"]["chainId"])
        pwq = _core.path_with_query(spec)
        body = _core.body_bytes(spec)
        attempt = 0
        while True:
            attempt += 1
            headers = _core.headers_of(spec, _core.authorization(self.config, spec, pwq, body))
            outcome: httpx.Response | AgentMemoryNetworkError
            try:
                outcome = self.http.request(spec.method, _core.url_of(self.config, pwq), headers=headers, content=body or None)
            except httpx.TransportError as error:
                outcome = _core.network_error(spec, error)
            if isinstance(outcome, httpx.Response) and outcome.is_success:
                return _raise_or_data(_core.data_of(outcome))
            delay = _core.retry_delay(self.config, spec, attempt, outcome)
            if delay is None:
                raise outcome if isinstance(outcome, AgentMemoryNetworkError) else _core.data_of(outcome)
            time.sleep(delay)

    def close(self) -> None:
        self.http.close()


class AsyncTransport:
    """Runs calls with an ``httpx.AsyncClient``; answers the envelope's ``data``, raises typed errors."""

    def __init__(self, config: ClientConfig, http: httpx.AsyncClient | None = None) -> None:
        self.config = config
        self.http = http or httpx.AsyncClient(timeout=config.timeout)

    async def request(self, spec: RequestSpec) -> Any:
        if _core.needs_realm(self.config, spec):
            prices = await self.request(RequestSpec("GET", "/billing/prices", "none", idempotent=True))
            self.config.chain_id = int(prices["payment"]["chainId"])
        pwq = _core.path_with_query(spec)
        body = _core.body_bytes(spec)
        attempt = 0
        while True:
            attempt += 1
            headers = _core.headers_of(spec, _core.authorization(self.config, spec, pwq, body))
            outcome: httpx.Response | AgentMemoryNetworkError
            try:
                outcome = await self.http.request(spec.method, _core.url_of(self.config, pwq), headers=headers, content=body or None)
            except httpx.TransportError as error:
                outcome = _core.network_error(spec, error)
            if isinstance(outcome, httpx.Response) and outcome.is_success:
                return _raise_or_data(_core.data_of(outcome))
            delay = _core.retry_delay(self.config, spec, attempt, outcome)
            if delay is None:
                raise outcome if isinstance(outcome, AgentMemoryNetworkError) else _core.data_of(outcome)
            await asyncio.sleep(delay)

    async def close(self) -> None:
        await self.http.aclose()


def _raise_or_data(data: Any) -> Any:
    if isinstance(data, AgentMemoryError):
        raise data
    return data
