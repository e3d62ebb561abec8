"""The endpoint namespaces of the sync client (docs/api.md): agents, keys, records, memories, files,
billing. ``_async_resources.py`` is generated from this file by ``tools/generate_async.py``."""
from __future__ import annotations

import base64
import builtins
from typing import Any, Iterator, Literal

from ._core import RequestSpec, idempotency_key, segment
from ._transport import Transport
from .models import (
    Agent,
    AgentKeyList,
    BalanceResponse,
    ClaimsReleaseByAgentReply,
    ContextResponse,
    DeleteRecordResponse,
    ForgetResponse,
    ListFilesResponse,
    ListFilesResponseFilesItem,
    ListMemoriesResponse,
    ListMemoriesResponseMemoriesItem,
    PricesResponse,
    RawGetResponse,
    RawPutResponse,
    ReadFileResponse,
    RecallResponse,
    Record,
    RecordList,
    RecordListRecordsItem,
    RememberResponse,
    RevokeKeyResponse,
    RotateKeyResponse,
    TopUpResponse,
    UsageResponse,
    UsageResponseEntriesItem,
    WalletChallengeResponse,
    WriteFileResponse,
)

MemoryType = Literal["identity", "fact", "relationship", "episode", "skill"]
_UNSET: Any = object()


def _at(record_id: str, tail: str = "") -> str:
    return f"/records/{segment(record_id)}" + (f"/{tail}" if tail else "")


def _some(**fields: Any) -> dict[str, Any]:
    """The fields that were given (None = not given)."""
    return {k: v for k, v in fields.items() if v is not None}


class AgentsApi:
    """The calling agent (docs/api.md, "Agents and keys"); creating one: ``AgentMemory.create_agent``."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def get(self) -> Agent:
        """``GET /agents``: the calling agent."""
        return self._t.request(RequestSpec("GET", "/agents", "agent", idempotent=True))

    def wallet_challenge(self, wallet_address: str) -> WalletChallengeResponse:
        """``POST /agents/wallet-challenge`` (no auth): the EIP-4361 message a wallet signs to be bound to
        a new agent (docs/authentication.md, "Binding your own wallet"); valid 5 minutes, single use."""
        return self._t.request(RequestSpec("POST", "/agents/wallet-challenge", "none", body={"walletAddress": wallet_address}))

    def release_claim(self) -> ClaimsReleaseByAgentReply:
        """``DELETE /agents/claim``: drops a human's claim on this agent (``released`` false when none)."""
        return self._t.request(RequestSpec("DELETE", "/agents/claim", "agent", body={}))


class KeysApi:
    """The agent's keys (docs/authentication.md, "Listing, rotating and revoking")."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def list(self) -> AgentKeyList:
        """``GET /agents/keys``: every key with its status, never the secret."""
        return self._t.request(RequestSpec("GET", "/agents/keys", "agent", idempotent=True))

    def rotate(self, grace_seconds: int | None = None) -> RotateKeyResponse:
        """``POST /agents/keys/rotate`` (grace 0–604,800 s): a new key, shown once; never repeated after it may have arrived."""
        return self._t.request(RequestSpec("POST", "/agents/keys/rotate", "agent", body=_some(graceSeconds=grace_seconds)))

    def revoke(self, key_id: str) -> RevokeKeyResponse:
        """``POST /agents/keys/{keyId}/revoke``: the key stops working at once."""
        return self._t.request(RequestSpec("POST", f"/agents/keys/{segment(key_id)}/revoke", "agent", body={}))


class RecordsApi:
    """Records: named containers of memories and files (docs/api.md, "Records")."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def create(self, name: str, *, tags: list[str] | None = None, category: str | None = None, parent_record_id: str | None = None) -> Record:
        """``POST /records``: a new record of the calling agent."""
        body = _some(name=name, tags=tags, category=category, parentRecordId=parent_record_id)
        return self._t.request(RequestSpec("POST", "/records", "agent", body=body))

    def page(self, *, limit: int | None = None, offset: int | None = None) -> RecordList:
        """``GET /records?limit&offset``: one page, newest first (limit 1–100, default 20)."""
        return self._t.request(RequestSpec("GET", "/records", "agent", query={"limit": limit, "offset": offset}, idempotent=True))

    def list(self, *, page_size: int | None = None) -> Iterator[RecordListRecordsItem]:
        """Every record, newest first, one request per page as the loop reaches it."""
        offset = 0
        while True:
            page = self.page(limit=page_size, offset=offset)
            for item in page["records"]:
                yield item
            offset += len(page["records"])
            if not page["records"] or offset >= page["total"]:
                return

    def get(self, record_id: str) -> Record:
        """``GET /records/{recordId}``."""
        return self._t.request(RequestSpec("GET", _at(record_id), "agent", idempotent=True))

    def update(self, record_id: str, *, name: str | None = None, tags: builtins.list[str] | None = None, category: str | None = None, parent_record_id: str | None = _UNSET) -> Record:
        """``PATCH /records/{recordId}``: the fields given; ``parent_record_id=None`` detaches the record."""
        body = _some(name=name, tags=tags, category=category)
        if parent_record_id is not _UNSET:
            body["parentRecordId"] = parent_record_id
        return self._t.request(RequestSpec("PATCH", _at(record_id), "agent", body=body, idempotent=True))

    def delete(self, record_id: str, *, cascade: bool = False) -> DeleteRecordResponse:
        """``DELETE /records/{recordId}[?cascade=true]``: VALIDATION_ERROR when it has children and no cascade."""
        return self._t.request(RequestSpec("DELETE", _at(record_id), "agent", query={"cascade": True if cascade else None}))


class MemoriesApi:
    """Memories of a record (docs/api.md, "Memories"): each call is paid and rate limited per record."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def remember(self, record_id: str, content: str, *, type: MemoryType | None = None, path: str | None = None, idempotency_key: str | None = None) -> RememberResponse:
        """``POST /records/{recordId}/remember``: stores a memory (replacing the one at ``path``). Carries an
        ``idempotency_key`` (the caller's, else a fresh UUID) reused on every retry, so a retried remember
        stores one memory and is charged once (docs/api.md, "Idempotency keys")."""
        body = _some(content=content, type=type, path=path, idempotency_key=_key(idempotency_key))
        return self._t.request(RequestSpec("POST", _at(record_id, "remember"), "agent", body=body, idempotent=True))

    def recall(self, record_id: str, query: str, *, limit: int | None = None, types: list[MemoryType] | None = None) -> RecallResponse:
        """``POST /records/{recordId}/recall``: the memories ranked by relevance to ``query``."""
        body = _some(query=query, limit=limit, types=types)
        return self._t.request(RequestSpec("POST", _at(record_id, "recall"), "agent", body=body, idempotent=True, charged_per_attempt=True))

    def forget(self, record_id: str, *, path: str | None = None, id: str | None = None) -> ForgetResponse:
        """``DELETE /records/{recordId}/remember`` with exactly one of ``path`` or ``id``; not repeated after a lost answer."""
        return self._t.request(RequestSpec("DELETE", _at(record_id, "remember"), "agent", body=_some(path=path, id=id)))

    def context(self, record_id: str, *, limit: int | None = None) -> ContextResponse:
        """``GET /records/{recordId}/context?limit``: the newest memories under the five type keys (1–200 per type)."""
        return self._t.request(RequestSpec("GET", _at(record_id, "context"), "agent", query={"limit": limit}, idempotent=True, charged_per_attempt=True))

    def page(self, record_id: str, *, limit: int | None = None, cursor: str | None = None, type: MemoryType | None = None) -> ListMemoriesResponse:
        """``GET /records/{recordId}/memories?limit&cursor&type``: one page in path order (1–200, default 50); paid per page."""
        query = {"limit": limit, "cursor": cursor, "type": type}
        return self._t.request(RequestSpec("GET", _at(record_id, "memories"), "agent", query=query, idempotent=True, charged_per_attempt=True))

    def list(self, record_id: str, *, type: MemoryType | None = None, page_size: int | None = None) -> Iterator[ListMemoriesResponseMemoriesItem]:
        """Every memory with its content, in path order, following ``nextCursor`` (each page is a paid call)."""
        cursor = None
        while True:
            page = self.page(record_id, limit=page_size, cursor=cursor, type=type)
            for item in page["memories"]:
                yield item
            cursor = page["nextCursor"]
            if not cursor:
                return


class FilesApi:
    """Files of a record (docs/api.md, "Files"; read and write are paid) and raw blobs of ``local`` agents."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def write(self, record_id: str, path: str, content: str, *, idempotency_key: str | None = None) -> WriteFileResponse:
        """``POST /records/{recordId}/write`` (0 bytes to 1 MB of UTF-8); one ``idempotency_key`` per call, reused on retries."""
        body = {"path": path, "content": content, "idempotency_key": _key(idempotency_key)}
        return self._t.request(RequestSpec("POST", _at(record_id, "write"), "agent", body=body, idempotent=True))

    def read(self, record_id: str, path: str) -> ReadFileResponse:
        """``GET /records/{recordId}/read?path``: NOT_FOUND for a missing file."""
        return self._t.request(RequestSpec("GET", _at(record_id, "read"), "agent", query={"path": path}, idempotent=True, charged_per_attempt=True))

    def page(self, record_id: str, *, limit: int | None = None, cursor: str | None = None, prefix: str | None = None) -> ListFilesResponse:
        """``GET /records/{recordId}/files?limit&cursor&prefix``: one page of metadata in path order (1–1000, default 100)."""
        query = {"limit": limit, "cursor": cursor, "prefix": prefix}
        return self._t.request(RequestSpec("GET", _at(record_id, "files"), "agent", query=query, idempotent=True))

    def list(self, record_id: str, *, prefix: str | None = None, page_size: int | None = None) -> Iterator[ListFilesResponseFilesItem]:
        """Every file's metadata, in path order, following ``nextCursor``."""
        cursor = None
        while True:
            page = self.page(record_id, limit=page_size, cursor=cursor, prefix=prefix)
            for item in page["files"]:
                yield item
            cursor = page["nextCursor"]
            if not cursor:
                return

    def raw_put(self, record_id: str, path: str, content: bytes, *, content_type: str | None = None) -> RawPutResponse:
        """``POST /records/{recordId}/raw`` (local agents, wallet signature only): an opaque blob ≤ 1 MB; safe to repeat."""
        body = _some(path=path, content=base64.b64encode(content).decode("ascii"), contentType=content_type)
        return self._t.request(RequestSpec("POST", _at(record_id, "raw"), "signature", body=body, idempotent=True))

    def raw_get(self, record_id: str, path: str) -> RawGetResponse:
        """``GET /records/{recordId}/raw?path`` (wallet signature): ``content`` is base64 (see ``base64.b64decode``)."""
        return self._t.request(RequestSpec("GET", _at(record_id, "raw"), "signature", query={"path": path}, idempotent=True))


class BillingApi:
    """Prices, balances, the usage ledger and top-ups (docs/billing.md, "Endpoints")."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def prices(self) -> PricesResponse:
        """``GET /billing/prices`` (no auth): the price of each paid operation and the payment method."""
        return self._t.request(RequestSpec("GET", "/billing/prices", "none", idempotent=True))

    def balance(self) -> BalanceResponse:
        """``GET /billing/balance``: the balance of the key's environment."""
        return self._t.request(RequestSpec("GET", "/billing/balance", "agent", idempotent=True))

    def usage_page(self, *, limit: int | None = None, offset: int | None = None, operation: str | None = None, from_: str | None = None, to: str | None = None) -> UsageResponse:
        """``GET /billing/usage``: one ledger page (1–100, default 20; newest first) with totals over the filter."""
        query = {"limit": limit, "offset": offset, "operation": operation, "from": from_, "to": to}
        return self._t.request(RequestSpec("GET", "/billing/usage", "agent", query=query, idempotent=True))

    def usage(self, *, operation: str | None = None, from_: str | None = None, to: str | None = None, page_size: int | None = None) -> Iterator[UsageResponseEntriesItem]:
        """Every ledger entry matching the filter, newest first, page by page."""
        offset = 0
        while True:
            page = self.usage_page(limit=page_size, offset=offset, operation=operation, from_=from_, to=to)
            for item in page["entries"]:
                yield item
            offset += len(page["entries"])
            if not page["entries"] or offset >= page["total"]:
                return

    def top_up(self, amount: str | float) -> TopUpResponse:
        """``POST /billing/top-up`` (0.05–1,000 USD; live key): answered 402 with a payment challenge
        (``PaymentRequiredError.challenge``), paid with a wallet; not repeated after a lost answer."""
        return self._t.request(RequestSpec("POST", "/billing/top-up", "agent", body={"amount": amount}))

    def sandbox_top_up(self, amount: str | float) -> TopUpResponse:
        """``POST /billing/sandbox/top-up`` (test key): free sandbox credit."""
        return self._t.request(RequestSpec("POST", "/billing/sandbox/top-up", "agent", body={"amount": amount}))


def _key(given: str | None) -> str:
    return idempotency_key(given)
