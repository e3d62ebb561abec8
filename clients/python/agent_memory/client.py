"""The clients: :class:`AgentMemory` (sync) and :class:`AsyncAgentMemory` (asyncio), over httpx."""
from __future__ import annotations

from typing import Any, Literal

import httpx

from ._async_humans import AsyncHumansApi
from ._async_resources import AsyncAgentsApi, AsyncBillingApi, AsyncFilesApi, AsyncKeysApi, AsyncMemoriesApi, AsyncRecordsApi
from ._core import ClientConfig, RequestSpec, RetryPolicy
from ._humans import HumansApi
from ._resources import AgentsApi, BillingApi, FilesApi, KeysApi, MemoriesApi, RecordsApi
from ._transport import AsyncTransport, Transport
from .models import CreateAgentResponse
from .signature import PrivateKeyWallet, RequestSigner, Wallet

WalletOption = str | Wallet
"""A private key (``0x`` + 64 hex; needs python3-ecdsa and python3-pycryptodome) or any :class:`Wallet`."""


def _config(base_url: str, api_key: str | None, wallet: WalletOption | None, session_token: str | None, signature_domain: str | None, chain_id: int | None, timeout: float, retry: RetryPolicy | None) -> ClientConfig:
    resolved = PrivateKeyWallet(wallet) if isinstance(wallet, str) else wallet
    return ClientConfig(
        base_url=base_url.rstrip("/"),
        api_key=api_key,
        session_token=session_token,
        signer=RequestSigner(resolved) if resolved is not None else None,
        signature_domain=signature_domain,
        chain_id=chain_id,
        timeout=timeout,
        retry=retry or RetryPolicy(),
    )


def _agent_body(name: str, mode: Literal["cloud", "local"] | None, environment: Literal["live", "test"] | None, tags: list[str] | None, category: str | None) -> dict[str, Any]:
    fields = {"name": name, "mode": mode, "environment": environment, "tags": tags, "category": category}
    return {k: v for k, v in fields.items() if v is not None}


def _check_challenge(config: ClientConfig, message: str, address: str) -> None:
    """Refuses to sign a wallet challenge for another deployment or wallet (as EIP-4361 tells a signer to)."""
    lines = message.split("\n")
    domain = config.signature_domain or httpx.URL(config.base_url).netloc.decode("ascii")
    if len(lines) < 2 or lines[0] != f"{domain} wants you to sign in with your Ethereum account:" or lines[1] != address:
        raise ValueError(f"the wallet challenge is not for {domain} and {address}: {lines[:2]}")


class AgentMemory:
    """Sync client of the agent-memory API (docs/api.md). Namespaces: ``agents``, ``keys``, ``records``,
    ``memories``, ``files``, ``billing``, ``humans``. Calls return the ``data`` of the success envelope
    (typed dicts of :mod:`agent_memory.models`) and raise :class:`~agent_memory.errors.AgentMemoryError`
    subclasses (an error answer) or :class:`~agent_memory.errors.AgentMemoryNetworkError` (no answer).

    Credentials: ``api_key`` (``Bearer``), else ``wallet`` (wallet signatures of ``local`` agents;
    ``signature_domain`` defaults to the host of ``base_url``, ``chain_id`` to ``GET /billing/prices``),
    else ``session_token`` (a human's passkey session). ``timeout`` per attempt in seconds; ``retry``
    see :class:`~agent_memory.RetryPolicy`. Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, base_url: str, *, api_key: str | None = None, wallet: WalletOption | None = None, session_token: str | None = None, signature_domain: str | None = None, chain_id: int | None = None, timeout: float = 30.0, retry: RetryPolicy | None = None, http_client: httpx.Client | None = None) -> None:
        self._transport = Transport(_config(base_url, api_key, wallet, session_token, signature_domain, chain_id, timeout, retry), http_client)
        self.agents = AgentsApi(self._transport)
        self.keys = KeysApi(self._transport)
        self.records = RecordsApi(self._transport)
        self.memories = MemoriesApi(self._transport)
        self.files = FilesApi(self._transport)
        self.billing = BillingApi(self._transport)
        self.humans = HumansApi(self._transport)

    def create_agent(self, name: str, *, mode: Literal["cloud", "local"] | None = None, environment: Literal["live", "test"] | None = None, tags: list[str] | None = None, category: str | None = None) -> CreateAgentResponse:
        """``POST /agents`` (no auth): a new agent with its key (shown once) and default record. With the
        client's ``wallet`` it is bound (docs/authentication.md, "Binding your own wallet"): the client asks
        for a wallet challenge, checks it names this deployment and wallet (else ValueError), signs it."""
        body = _agent_body(name, mode, environment, tags, category)
        signer = self._transport.config.signer
        if signer is not None:
            address = signer.wallet.address
            message = self.agents.wallet_challenge(address)["message"]
            _check_challenge(self._transport.config, message, address)
            body.update(walletAddress=address, walletProof={"message": message, "signature": signer.wallet.sign_message(message)})
        return self._transport.request(RequestSpec("POST", "/agents", "none", body=body))

    def close(self) -> None:
        """Closes the HTTP connections."""
        self._transport.close()

    def __enter__(self) -> AgentMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncAgentMemory:
    """Asyncio client: the same namespaces and arguments as :class:`AgentMemory`, every call awaited and
    every listing an async iterator (``async for memory in client.memories.list(record_id)``)."""

    def __init__(self, base_url: str, *, api_key: str | None = None, wallet: WalletOption | None = None, session_token: str | None = None, signature_domain: str | None = None, chain_id: int | None = None, timeout: float = 30.0, retry: RetryPolicy | None = None, http_client: httpx.AsyncClient | None = None) -> None:
        self._transport = AsyncTransport(_config(base_url, api_key, wallet, session_token, signature_domain, chain_id, timeout, retry), http_client)
        self.agents = AsyncAgentsApi(self._transport)
        self.keys = AsyncKeysApi(self._transport)
        self.records = AsyncRecordsApi(self._transport)
        self.memories = AsyncMemoriesApi(self._transport)
        self.files = AsyncFilesApi(self._transport)
        self.billing = AsyncBillingApi(self._transport)
        self.humans = AsyncHumansApi(self._transport)

    async def create_agent(self, name: str, *, mode: Literal["cloud", "local"] | None = None, environment: Literal["live", "test"] | None = None, tags: list[str] | None = None, category: str | None = None) -> CreateAgentResponse:
        """``POST /agents``: as :meth:`AgentMemory.create_agent`."""
        body = _agent_body(name, mode, environment, tags, category)
        signer = self._transport.config.signer
        if signer is not None:
            address = signer.wallet.address
            message = (await self.agents.wallet_challenge(address))["message"]
            _check_challenge(self._transport.config, message, address)
            body.update(walletAddress=address, walletProof={"message": message, "signature": signer.wallet.sign_message(message)})
        return await self._transport.request(RequestSpec("POST", "/agents", "none", body=body))

    async def aclose(self) -> None:
        """Closes the HTTP connections."""
        await self._transport.close()

    async def __aenter__(self) -> AsyncAgentMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
