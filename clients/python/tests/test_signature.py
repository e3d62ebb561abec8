"""The canonical signed message and header against the worked example of docs/authentication.md
(the TypeScript SDK's signature.spec.ts checks the same blocks), byte for byte."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_memory import PrivateKeyWallet, RequestSigner, SignatureRealm, SignerHook, signature_message

DOC = Path(__file__).resolve().parents[3] / "docs" / "authentication.md"
PRIVATE_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"  # Anvil's public test account #0
PATH = "/api/v1/records/rec_4mQ8vT2nXb7LpR9sK3dW1a/remember"
REALM = SignatureRealm("memory.example.com", 8453)
NOW = 1767225600


def doc_block(name: str) -> str:
    """The fenced block after ``<!-- worked-example:<name> -->`` in docs/authentication.md."""
    match = re.search(rf"<!-- worked-example:{name} -->\n```text\n(.*?)\n```", DOC.read_text(encoding="utf-8"), re.S)
    assert match, f"docs/authentication.md has no worked-example:{name} block"
    return match.group(1)


def test_message_and_header_match_the_worked_example() -> None:
    body = doc_block("body").encode("utf-8")
    assert signature_message(REALM, "post", PATH, NOW, body) == doc_block("message")
    signer = RequestSigner(PrivateKeyWallet(PRIVATE_KEY))
    assert signer.authorization(REALM, "POST", PATH, body, now=NOW + 0.4) == doc_block("header")


def test_empty_body_hashes_nothing_and_query_is_part_of_the_path() -> None:
    message = signature_message(REALM, "get", "/api/v1/records/rec_1/read?path=notes%2Ftodo.md", NOW)
    assert message.splitlines()[4:] == ["path: /api/v1/records/rec_1/read?path=notes%2Ftodo.md", f"timestamp: {NOW}", "body-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"]


def test_a_repeat_in_the_same_second_moves_to_the_next_second() -> None:
    signer = RequestSigner(PrivateKeyWallet(PRIVATE_KEY))
    first = signer.authorization(REALM, "GET", "/api/v1/agents", b"", now=NOW)
    second = signer.authorization(REALM, "GET", "/api/v1/agents", b"", now=NOW + 0.5)
    other = signer.authorization(REALM, "GET", "/api/v1/agents/keys", b"", now=NOW + 0.6)
    assert [h.split(":")[0] for h in (first, second, other)] == [f"Signature {NOW}", f"Signature {NOW + 1}", f"Signature {NOW}"]


def test_a_signer_hook_signs_the_canonical_message() -> None:
    signed: list[str] = []
    hook = SignerHook("0x" + "ab" * 20, lambda message: signed.append(message) or "0x" + "00" * 65)
    header = RequestSigner(hook).authorization(REALM, "POST", PATH, doc_block("body").encode(), now=NOW)
    assert signed == [doc_block("message")]
    assert header == f"Signature {NOW}:0x{'ab' * 20}:0x{'00' * 65}"


def test_private_key_is_checked() -> None:
    with pytest.raises(ValueError):
        PrivateKeyWallet("0x1234")
