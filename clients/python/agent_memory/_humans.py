"""Humans and passkeys of the sync client (docs/authentication.md, "Humans and passkeys"): passkey
sign-up and sign-in, and a signed-in human's claimed agents. ``_async_humans.py`` is generated from this
file by ``tools/generate_async.py``."""
from __future__ import annotations

from typing import Any, Iterator

from ._core import RequestSpec, segment
from ._transport import Transport
from .models import (
    AgentKeyList,
    ClaimedAgent,
    ClaimedAgentOverview,
    ClaimedAgentOverviewList,
    ClaimsDeleteReply,
    HumanSessionResponse,
    HumanWithSession,
    PasskeyOptionsResponse,
    PasskeysDeleteReply,
    PasskeyVerifyBodyResponse,
    RecordList,
    RecordListRecordsItem,
    RevokeKeyResponse,
    RotateKeyResponse,
    SessionsEndReply,
    SiweNonceResponse,
    SiweSessionResponse,
    UsageResponse,
    UsageResponseEntriesItem,
)


def _agent(agent_id: str, tail: str = "") -> str:
    return f"/humans/me/agents/{segment(agent_id)}{tail}"


class HumansApi:
    """Passkey sessions (the token is kept in the client and sent as ``Passkey <token>``) and the
    signed-in human's agents."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def register_options(self, name: str | None = None) -> PasskeyOptionsResponse:
        """``POST /auth/passkey/register/options``: WebAuthn creation options; with a session, a passkey added to that account."""
        body = {} if name is None else {"name": name}
        return self._t.request(RequestSpec("POST", "/auth/passkey/register/options", "session-if-any", body=body))

    def register_verify(self, response: PasskeyVerifyBodyResponse | dict[str, Any]) -> HumanSessionResponse:
        """``POST /auth/passkey/register/verify`` ``{response}`` (the authenticator's credential JSON) → session, kept in the client."""
        return self._session(self._t.request(RequestSpec("POST", "/auth/passkey/register/verify", "session-if-any", body={"response": response})))

    def login_options(self) -> PasskeyOptionsResponse:
        """``POST /auth/passkey/login/options``: WebAuthn request options."""
        return self._t.request(RequestSpec("POST", "/auth/passkey/login/options", "none", body={}))

    def login_verify(self, response: PasskeyVerifyBodyResponse | dict[str, Any]) -> HumanSessionResponse:
        """``POST /auth/passkey/login/verify`` ``{response}`` → session, kept in the client."""
        return self._session(self._t.request(RequestSpec("POST", "/auth/passkey/login/verify", "none", body={"response": response})))

    def siwe_nonce(self, address: str) -> SiweNonceResponse:
        """``POST /auth/siwe/nonce`` ``{address}``: the EIP-4361 message to sign with that wallet (Sign in with
        Ethereum, docs/authentication.md); with a session, the nonce is bound to that human."""
        return self._t.request(RequestSpec("POST", "/auth/siwe/nonce", "session-if-any", body={"address": address}))

    def siwe_verify(self, message: str, signature: str) -> SiweSessionResponse:
        """``POST /auth/siwe/verify`` ``{message, signature}`` (EIP-191 signature of that exact message) → a
        session (kept in the client) and the agent of the wallet."""
        return self._session(self._t.request(RequestSpec("POST", "/auth/siwe/verify", "session-if-any", body={"message": message, "signature": signature})))

    def delete_passkey(self, passkey_id: str) -> PasskeysDeleteReply:
        """``DELETE /humans/me/passkeys/{id}``: removes one of the account's passkeys (never the last: 403) and
        ends the human's other sessions; answers the passkeys kept."""
        return self._t.request(RequestSpec("DELETE", f"/humans/me/passkeys/{segment(passkey_id)}", "human"))

    def logout(self) -> SessionsEndReply:
        """``POST /auth/logout``: ends the session and forgets it in the client."""
        result: SessionsEndReply = self._t.request(RequestSpec("POST", "/auth/logout", "human", body={}))
        self._t.config.session_token = None
        return result

    def me(self) -> HumanWithSession:
        """``GET /humans/me``: the account with its passkeys, and ``session``, the session of the call:
        ``method`` (``passkey``, or ``siwe`` for Sign in with Ethereum: it reaches only the agents of its
        ``walletAddress``) and ``expiresAt``."""
        return self._t.request(RequestSpec("GET", "/humans/me", "human", idempotent=True))

    def agents(self) -> ClaimedAgentOverviewList:
        """``GET /humans/me/agents``: the agents this human claimed, with balances and last activity."""
        return self._t.request(RequestSpec("GET", "/humans/me/agents", "human", idempotent=True))

    def claim(self, agent_key: str) -> ClaimedAgent:
        """``POST /humans/me/agents`` ``{agentKey}``: claims the agent of that key."""
        return self._t.request(RequestSpec("POST", "/humans/me/agents", "human", body={"agentKey": agent_key}))

    def agent(self, agent_id: str) -> ClaimedAgentOverview:
        """``GET /humans/me/agents/{agentId}``: the agent with its balances (live, test) and last activity."""
        return self._t.request(RequestSpec("GET", _agent(agent_id), "human", idempotent=True))

    def release(self, agent_id: str) -> ClaimsDeleteReply:
        """``DELETE /humans/me/agents/{agentId}``: drops the claim."""
        return self._t.request(RequestSpec("DELETE", _agent(agent_id), "human"))

    def records_page(self, agent_id: str, *, limit: int | None = None, offset: int | None = None) -> RecordList:
        """``GET /humans/me/agents/{agentId}/records?limit&offset``."""
        return self._t.request(RequestSpec("GET", _agent(agent_id, "/records"), "human", query={"limit": limit, "offset": offset}, idempotent=True))

    def records(self, agent_id: str, *, page_size: int | None = None) -> Iterator[RecordListRecordsItem]:
        """Every record of a claimed agent, newest first, page by page."""
        offset = 0
        while True:
            page = self.records_page(agent_id, limit=page_size, offset=offset)
            for item in page["records"]:
                yield item
            offset += len(page["records"])
            if not page["records"] or offset >= page["total"]:
                return

    def usage_page(self, agent_id: str, *, limit: int | None = None, offset: int | None = None, operation: str | None = None, from_: str | None = None, to: str | None = None) -> UsageResponse:
        """``GET /humans/me/agents/{agentId}/usage``: one ledger page of a claimed agent."""
        query = {"limit": limit, "offset": offset, "operation": operation, "from": from_, "to": to}
        return self._t.request(RequestSpec("GET", _agent(agent_id, "/usage"), "human", query=query, idempotent=True))

    def usage(self, agent_id: str, *, operation: str | None = None, from_: str | None = None, to: str | None = None, page_size: int | None = None) -> Iterator[UsageResponseEntriesItem]:
        """Every ledger entry of a claimed agent matching the filter, newest first, page by page."""
        offset = 0
        while True:
            page = self.usage_page(agent_id, limit=page_size, offset=offset, operation=operation, from_=from_, to=to)
            for item in page["entries"]:
                yield item
            offset += len(page["entries"])
            if not page["entries"] or offset >= page["total"]:
                return

    def keys(self, agent_id: str) -> AgentKeyList:
        """``GET /humans/me/agents/{agentId}/keys``."""
        return self._t.request(RequestSpec("GET", _agent(agent_id, "/keys"), "human", idempotent=True))

    def rotate_key(self, agent_id: str, grace_seconds: int | None = None) -> RotateKeyResponse:
        """``POST /humans/me/agents/{agentId}/keys/rotate``: a new key of a claimed agent, shown once."""
        body = {} if grace_seconds is None else {"graceSeconds": grace_seconds}
        return self._t.request(RequestSpec("POST", _agent(agent_id, "/keys/rotate"), "human", body=body))

    def revoke_key(self, agent_id: str, key_id: str) -> RevokeKeyResponse:
        """``POST /humans/me/agents/{agentId}/keys/{keyId}/revoke``."""
        return self._t.request(RequestSpec("POST", _agent(agent_id, f"/keys/{segment(key_id)}/revoke"), "human", body={}))

    def _session(self, session: Any) -> Any:
        self._t.config.session_token = session["token"]
        return session
