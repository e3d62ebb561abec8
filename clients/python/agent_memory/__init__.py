"""Python client of the agent-memory API (docs/api.md): :class:`AgentMemory` (sync) and
:class:`AsyncAgentMemory` (asyncio) over httpx, typed models (:mod:`agent_memory.models`, generated from
the server's ``/openapi.json``), typed errors, retries, wallet signatures of ``local`` agents."""
from ._core import RetryPolicy
from .client import AgentMemory, AsyncAgentMemory
from .errors import (
    AgentMemoryError,
    AgentMemoryNetworkError,
    ForbiddenError,
    InternalError,
    NotFoundError,
    PaymentRequiredError,
    RateLimitedError,
    UnauthorizedError,
    ValidationError,
)
from .signature import PrivateKeyWallet, RequestSigner, SignatureRealm, SignerHook, Wallet, signature_message

__all__ = [
    "AgentMemory",
    "AgentMemoryError",
    "AgentMemoryNetworkError",
    "AsyncAgentMemory",
    "ForbiddenError",
    "InternalError",
    "NotFoundError",
    "PaymentRequiredError",
    "PrivateKeyWallet",
    "RateLimitedError",
    "RequestSigner",
    "RetryPolicy",
    "SignatureRealm",
    "SignerHook",
    "UnauthorizedError",
    "ValidationError",
    "Wallet",
    "signature_message",
]
__version__ = "0.1.0"
