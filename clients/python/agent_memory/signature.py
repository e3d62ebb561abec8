"""Wallet signatures of ``local`` agents (docs/authentication.md, "Wallet signatures (local mode)").

``Authorization: Signature <timestamp>:<walletAddress>:<signature>``: an EIP-191 ``personal_sign`` of a
seven-line message binding the deployment (domain and chain id), method, path with query, timestamp and
the SHA-256 of the body bytes. :func:`signature_message` builds that message (standard library only).

Signing needs keccak-256 and secp256k1 ECDSA. :class:`PrivateKeyWallet` uses Debian's
``python3-pycryptodome`` (keccak) and ``python3-ecdsa`` (RFC 6979 deterministic ECDSA), imported only
when it is used. Any other signer (eth-account, a hardware wallet, a KMS) plugs in as a
:class:`Wallet`: an object with ``address`` and ``sign_message(message: str) -> str`` returning the
65-byte ``0x…`` EIP-191 signature, e.g. ``eth_account.Account.from_key(k)`` wrapped in
:class:`SignerHook`.
"""
from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from typing import Callable, Protocol

SIGNATURE_VERSION_LINE = "agent-memory request signature v2"


@dataclass(frozen=True)
class SignatureRealm:
    """Where a signature is valid: the deployment's ``SIGNATURE_DOMAIN`` and payment chain id."""

    domain: str
    chain_id: int


def signature_message(realm: SignatureRealm, method: str, path_with_query: str, timestamp: int, body: bytes | str = b"") -> str:
    """The exact message of docs/authentication.md, "The signed message": seven lines joined by ``\\n``,
    no trailing newline; ``body`` the exact bytes sent (empty when none), ``timestamp`` Unix seconds."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    return "\n".join([
        SIGNATURE_VERSION_LINE,
        f"domain: {realm.domain}",
        f"chain-id: {realm.chain_id}",
        f"method: {method.upper()}",
        f"path: {path_with_query}",
        f"timestamp: {timestamp}",
        f"body-sha256: {hashlib.sha256(data).hexdigest()}",
    ])


class Wallet(Protocol):
    """A wallet that can sign: ``address`` (``0x`` + 40 hex, checksummed) and an EIP-191 ``personal_sign``."""

    @property
    def address(self) -> str: ...

    def sign_message(self, message: str) -> str: ...


@dataclass(frozen=True)
class SignerHook:
    """A :class:`Wallet` from an address and a callable ``sign(message) -> "0x" + 130 hex`` (e.g.
    ``lambda m: Account.sign_message(encode_defunct(text=m), key).signature.hex()`` with eth-account)."""

    address: str
    sign: Callable[[str], str]

    def sign_message(self, message: str) -> str:
        return self.sign(message)


def _keccak256(data: bytes) -> bytes:
    from Cryptodome.Hash import keccak  # Debian python3-pycryptodome

    return keccak.new(digest_bits=256, data=data).digest()


def checksum_address(address_hex: str) -> str:
    """EIP-55 mixed-case form of a 40-hex-digit address (with or without ``0x``)."""
    plain = address_hex.lower().removeprefix("0x")
    digest = _keccak256(plain.encode("ascii")).hex()
    return "0x" + "".join(c.upper() if int(digest[i], 16) >= 8 else c for i, c in enumerate(plain))


class PrivateKeyWallet:
    """A wallet from a secp256k1 private key (``0x`` + 64 hex). Needs ``python3-pycryptodome`` and
    ``python3-ecdsa`` (ImportError naming them otherwise). Signatures are deterministic (RFC 6979, low s)."""

    def __init__(self, private_key: str) -> None:
        if not re.fullmatch(r"0x[0-9a-fA-F]{64}", private_key):
            raise ValueError("private_key: expected 0x + 64 hex digits")
        try:
            import ecdsa  # Debian python3-ecdsa
        except ImportError as error:  # pragma: no cover - depends on the machine
            raise ImportError("signing with a private key needs python3-ecdsa and python3-pycryptodome; or pass a SignerHook") from error
        self._ecdsa = ecdsa
        self._key = ecdsa.SigningKey.from_string(bytes.fromhex(private_key[2:]), curve=ecdsa.SECP256k1)
        public = self._key.get_verifying_key().to_string()  # x ‖ y, 64 bytes
        self._public = public
        self._address = checksum_address(_keccak256(public)[-20:].hex())

    @property
    def address(self) -> str:
        return self._address

    def sign_message(self, message: str) -> str:
        """EIP-191 ``personal_sign``: keccak256("\\x19Ethereum Signed Message:\\n" + len + message), r‖s‖v (v 27/28)."""
        data = message.encode("utf-8")
        digest = _keccak256(b"\x19Ethereum Signed Message:\n" + str(len(data)).encode("ascii") + data)
        ecdsa = self._ecdsa
        r, s = self._key.sign_digest_deterministic(digest, hashfunc=hashlib.sha256, sigencode=lambda r, s, order: (r, s))
        order = ecdsa.SECP256k1.order
        if s > order // 2:
            s = order - s
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        candidates = ecdsa.VerifyingKey.from_public_key_recovery_with_digest(signature, digest, ecdsa.SECP256k1, hashfunc=hashlib.sha256, sigdecode=ecdsa.util.sigdecode_string)
        v = next(i for i, key in enumerate(candidates) if key.to_string() == self._public)
        return "0x" + signature.hex() + format(27 + v, "02x")


class RequestSigner:
    """Signs requests for one wallet. The server accepts each signed message once and signatures are
    deterministic, so a repeat of the same request in the same second moves to the next unused second
    (the server accepts ±300 s), as the TypeScript SDK does."""

    def __init__(self, wallet: Wallet) -> None:
        self.wallet = wallet
        self._recent: dict[str, int] = {}

    def authorization(self, realm: SignatureRealm, method: str, path_with_query: str, body: bytes, now: float | None = None) -> str:
        """The ``Authorization`` header value for one request (``body``: the exact bytes sent)."""
        second = int(time.time() if now is None else now)
        self._recent = {m: ts for m, ts in self._recent.items() if ts >= second}
        timestamp = second
        message = signature_message(realm, method, path_with_query, timestamp, body)
        while message in self._recent:
            timestamp += 1
            message = signature_message(realm, method, path_with_query, timestamp, body)
        self._recent[message] = timestamp
        return f"Signature {timestamp}:{self.wallet.address}:{self.wallet.sign_message(message)}"
