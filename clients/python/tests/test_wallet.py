"""Wallet signatures against the real server (docs/authentication.md, "Wallet signatures (local mode)"):
a local agent bound to the client's own wallet, every call signed (no key), raw blobs, and refusals."""
from __future__ import annotations

import base64

import pytest

from agent_memory import AgentMemory, ForbiddenError, PrivateKeyWallet, SignerHook, UnauthorizedError

KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"  # Anvil's public test account #1
OTHER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"  # Anvil's public test account #2


def test_local_agent_signs_every_call(base_url: str, realm: tuple[str, int]) -> None:
    domain, chain_id = realm
    with AgentMemory(base_url, wallet=KEY, signature_domain=domain) as client:
        created = client.create_agent("py wallet", mode="local", environment="test")
        assert created["walletAddress"] == PrivateKeyWallet(KEY).address and "walletPrivateKey" not in created
        assert client.agents.get()["mode"] == "local"  # signed; the chain id came from GET /billing/prices
        assert client._transport.config.chain_id == chain_id
        record = created["recordId"]
        client.billing.sandbox_top_up("1")
        remembered = client.memories.remember(record, "Signed by the wallet.", path="signed")
        assert client.memories.recall(record, "signed by the wallet")["memories"][0]["id"] == remembered["id"]
        blob = bytes(range(256))
        stored = client.files.raw_put(record, "blobs/all bytes.bin", blob, content_type="application/octet-stream")
        assert stored["size"] == 256 and stored["contentHash"].startswith("sha256:")
        got = client.files.raw_get(record, "blobs/all bytes.bin")  # a query with a space: signed as sent
        assert base64.b64decode(got["content"]) == blob and got["contentType"] == "application/octet-stream"
        for _ in range(3):
            assert client.agents.get()["id"] == created["agentId"]  # repeats within a second are not replays


def test_signature_for_another_domain_or_wallet_is_refused(base_url: str, realm: tuple[str, int]) -> None:
    domain, chain_id = realm
    with AgentMemory(base_url, wallet=OTHER_KEY, signature_domain=domain) as owner:
        record = owner.create_agent("py wallet 2", mode="local", environment="test")["recordId"]
        assert owner.files.raw_put(record, "x", b"x")["size"] == 1
    with AgentMemory(base_url, wallet=OTHER_KEY, signature_domain="elsewhere.example", chain_id=chain_id) as wrong, pytest.raises(UnauthorizedError) as caught:
        wrong.files.raw_get(record, "x")
    assert caught.value.status == 401 and caught.value.request_id
    forged = SignerHook(PrivateKeyWallet(OTHER_KEY).address, PrivateKeyWallet("0x" + "22" * 32).sign_message)
    with AgentMemory(base_url, wallet=forged, signature_domain=domain, chain_id=chain_id) as impostor, pytest.raises(UnauthorizedError):
        impostor.agents.get()


def test_a_cloud_agent_has_no_raw_blobs(base_url: str, realm: tuple[str, int]) -> None:
    key = "0x" + "33" * 32
    with AgentMemory(base_url, wallet=key, signature_domain=realm[0]) as client:
        created = client.create_agent("py cloud wallet", environment="test")
        assert created["mode"] == "cloud"
        with pytest.raises(ForbiddenError) as caught:
            client.files.raw_put(created["recordId"], "x.bin", b"x")
    assert (caught.value.code, caught.value.status) == ("FORBIDDEN", 403)


def test_a_wallet_challenge_for_another_deployment_is_not_signed(base_url: str) -> None:
    with AgentMemory(base_url, wallet=KEY, signature_domain="elsewhere.example") as client, pytest.raises(ValueError, match="not for elsewhere.example"):
        client.create_agent("never", mode="local")
