"""A software passkey authenticator for the humans tests (WebAuthn level 2, ``none`` attestation,
ES256 via python3-ecdsa, user verified): what a browser's ``navigator.credentials.create/get`` answers
as JSON. One instance is one device with one credential."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from typing import Any

import ecdsa
from ecdsa.util import sigencode_der


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _cbor_head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    if value < 256:
        return bytes([major << 5 | 24, value])
    return bytes([major << 5 | 25]) + struct.pack(">H", value)


def cbor(value: Any) -> bytes:
    """The CBOR of ints, byte strings, text and maps (all that attestation objects and COSE keys use)."""
    if isinstance(value, int):
        return _cbor_head(0, value) if value >= 0 else _cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return _cbor_head(2, len(value)) + value
    if isinstance(value, str):
        return _cbor_head(3, len(value.encode())) + value.encode()
    if isinstance(value, dict):
        return _cbor_head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(type(value))


class PasskeyDevice:
    """``create(options)`` → RegistrationResponseJSON; ``get(options)`` → AuthenticationResponseJSON."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.key = ecdsa.SigningKey.generate(curve=ecdsa.NIST256p)
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.user_handle = ""

    def _client_data(self, kind: str, challenge: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}).encode()

    def _auth_data(self, rp_id: str, attested: bytes = b"") -> bytes:
        self.counter += 1
        flags = 0x01 | 0x04 | (0x40 if attested else 0)  # user present, user verified, attested credential data
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", self.counter) + attested

    def create(self, options: dict[str, Any]) -> dict[str, Any]:
        point = self.key.get_verifying_key().to_string()
        cose = cbor({1: 2, 3: -7, -1: 1, -2: point[:32], -3: point[32:]})
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + cose
        auth_data = self._auth_data(options["rp"]["id"], attested)
        self.user_handle = options["user"]["id"]
        client_data = self._client_data("webauthn.create", options["challenge"])
        attestation = cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation), "transports": ["internal"]},
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(self, options: dict[str, Any]) -> dict[str, Any]:
        auth_data = self._auth_data(options.get("rpId") or "localhost")
        client_data = self._client_data("webauthn.get", options["challenge"])
        signature = self.key.sign_deterministic(auth_data + hashlib.sha256(client_data).digest(), hashfunc=hashlib.sha256, sigencode=sigencode_der)
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data), "signature": b64url(signature), "userHandle": self.user_handle},
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
