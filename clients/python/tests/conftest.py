"""Fixtures of the Python client's suite. The server is started by test/e2e/python-client.e2e-spec.ts
(``npm test``), which passes it in the environment:

- ``AGENT_MEMORY_URL``: a standalone server; ``AGENT_MEMORY_SIGNATURE_DOMAIN``/``AGENT_MEMORY_CHAIN_ID``:
  its signature realm; ``AGENT_MEMORY_PASSKEY_ORIGIN``: the page origin passkeys are made for;
- ``AGENT_MEMORY_LIMITED_URL``: a server allowing one create-agent call a minute (a real 429).

Without them the server tests are skipped with that reason (the unit tests still run).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the package of this checkout, installed or not
sys.path.insert(0, str(ROOT / "tools"))

from agent_memory import AgentMemory  # noqa: E402


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set: run through test/e2e/python-client.e2e-spec.ts (npm test), which starts the server")
    return value


@pytest.fixture(scope="session")
def base_url() -> str:
    return _env("AGENT_MEMORY_URL")


@pytest.fixture(scope="session")
def limited_url() -> str:
    return _env("AGENT_MEMORY_LIMITED_URL")


@pytest.fixture(scope="session")
def realm() -> tuple[str, int]:
    """The server's signature domain and chain id."""
    return _env("AGENT_MEMORY_SIGNATURE_DOMAIN"), int(_env("AGENT_MEMORY_CHAIN_ID"))


@pytest.fixture(scope="session")
def passkey_origin() -> str:
    return _env("AGENT_MEMORY_PASSKEY_ORIGIN")


@pytest.fixture(scope="session")
def openapi(base_url: str) -> dict:
    answer = httpx.get(f"{base_url}/openapi.json")
    assert answer.status_code == 200
    return answer.json()


@pytest.fixture(scope="session")
def agent(base_url: str) -> dict:
    """A cloud agent with a test key and 5 USD of sandbox credit (paid calls cost 0.05 USD)."""
    with AgentMemory(base_url) as anonymous:
        created = anonymous.create_agent("python client", environment="test")
    with AgentMemory(base_url, api_key=created["agentKey"]) as client:
        client.billing.sandbox_top_up("5")
    return dict(created)


@pytest.fixture()
def client(base_url: str, agent: dict) -> Iterator[AgentMemory]:
    with AgentMemory(base_url, api_key=agent["agentKey"]) as made:
        yield made
