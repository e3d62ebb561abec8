"""The client against the server's OpenAPI document (``GET /openapi.json``): the models are what
tools/generate_models.py renders from it (so a field added on the server fails here until the models
are regenerated), the async namespaces are what tools/generate_async.py derives from the sync ones,
and every documented operation has a client method."""
from __future__ import annotations

import inspect
import json
import re
import types
from pathlib import Path

import httpx

import generate_async
import generate_models
from agent_memory import AgentMemory
from agent_memory.models import SCHEMAS

PACKAGE = Path(__file__).resolve().parent.parent / "agent_memory"
NAMESPACES = ("agents", "keys", "records", "memories", "files", "billing", "humans")
IDS = {"rec_placeholder", "agt_placeholder", "key_placeholder"}
ARGUMENTS: dict[str, object] = {"agent_id": "agt_placeholder", "key_id": "key_placeholder", "amount": "1", "response": {}}
"""A value for each required argument by name (ids are path parameters; any other string argument gets a record id)."""


def test_models_are_generated_from_the_servers_document(openapi: dict) -> None:
    expected = generate_models.render(openapi)
    actual = {path.name: path.read_text(encoding="utf-8") for path in (PACKAGE / "models").glob("*.py")}
    assert actual.keys() == expected.keys()
    for name, text in expected.items():
        assert actual[name] == text, f"agent_memory/models/{name} differs from the server's /openapi.json: run tools/generate_models.py <server>/openapi.json"
    assert set(SCHEMAS) == set(openapi["components"]["schemas"])


def test_a_field_added_on_the_server_changes_the_models(openapi: dict) -> None:
    changed = json.loads(json.dumps(openapi))
    changed["components"]["schemas"]["Agent"]["properties"]["newField"] = {"type": "string"}
    rendered = generate_models.render(changed)
    assert "    newField: NotRequired[str]" in rendered["_accounts.py"]
    assert rendered["_accounts.py"] != (PACKAGE / "models" / "_accounts.py").read_text(encoding="utf-8")


def test_async_namespaces_are_generated_from_the_sync_ones() -> None:
    for source, target in generate_async.SOURCES.items():
        expected = generate_async.to_async((PACKAGE / source).read_text(encoding="utf-8"), source)
        assert (PACKAGE / target).read_text(encoding="utf-8") == expected, f"{target} is stale: run tools/generate_async.py"


def _route(method: str, path: str) -> str:
    return f"{method.upper()} " + re.sub(r"\{[^}]+\}", "{}", path)


def routes_called_by_client() -> set[str]:
    """Calls every public method of every namespace (found by reflection) against a transport that
    records the route and answers an empty success; returns the routes reached."""
    reached: set[str] = set()

    def answer(request: httpx.Request) -> httpx.Response:
        path = "/".join("{}" if segment in IDS else segment for segment in request.url.path.split("/"))
        reached.add(_route(request.method, path))
        data = {"records": [], "entries": [], "memories": [], "files": [], "total": 0, "nextCursor": None, "token": "t", "message": "", "payment": {"chainId": 1}}
        return httpx.Response(200, json={"success": True, "data": data})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    AgentMemory("http://sdk.test", http_client=http).create_agent("n")
    client = AgentMemory("http://sdk.test", api_key="amk_test_x", session_token="s", wallet="0x" + "11" * 32, chain_id=1, http_client=http)
    for name in NAMESPACES:
        api = getattr(client, name)
        methods = [m for m, _ in inspect.getmembers(type(api), inspect.isfunction) if not m.startswith("_")]
        methods.sort(key=lambda m: m == "logout")  # logout ends the session the others use
        for method in methods:
            fn = getattr(api, method)
            required = [p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty and p.kind == p.POSITIONAL_OR_KEYWORD]
            args = [b"x" if (method, p.name) == ("raw_put", "content") else ARGUMENTS.get(p.name, "rec_placeholder") for p in required]
            result = fn(*args)
            if isinstance(result, types.GeneratorType):
                list(result)
    return reached


def test_every_documented_operation_has_a_client_method(openapi: dict) -> None:
    documented = {_route(m, p) for p, ops in openapi["paths"].items() if p.startswith("/api/v1/") for m in ops if m in ("get", "post", "patch", "put", "delete")}
    reached = routes_called_by_client()
    assert documented - reached == set(), "operations without a client method"
    assert reached - documented == set(), "client methods without a documented operation"
