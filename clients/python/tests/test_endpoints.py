"""The sync client against the real server: agents, keys, records, memories, files, billing and the
typed errors (docs/api.md)."""
from __future__ import annotations

import pytest

from agent_memory import AgentMemory, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError


def test_agent_and_default_record(client: AgentMemory, agent: dict) -> None:
    assert agent["agentKey"].startswith("amk_test_")
    me = client.agents.get()
    assert (me["id"], me["name"], me["mode"], me["recordId"], me["keyEnvironment"]) == (agent["agentId"], "python client", "cloud", agent["recordId"], "test")
    keys = client.keys.list()["keys"]
    assert [(k["environment"], k["status"]) for k in keys] == [("test", "active")]
    assert client.agents.release_claim() == {"released": False}


def test_keys_rotate_and_revoke(base_url: str) -> None:
    with AgentMemory(base_url) as anonymous:
        created = anonymous.create_agent("rotating", environment="test")
    with AgentMemory(base_url, api_key=created["agentKey"]) as old:
        rotated = old.keys.rotate(grace_seconds=0)
    assert rotated["agentKey"].startswith("amk_test_") and rotated["agentKey"] != created["agentKey"]
    with AgentMemory(base_url, api_key=rotated["agentKey"]) as new:
        statuses = {k["id"]: k["status"] for k in new.keys.list()["keys"]}
        assert sorted(statuses.values()) == ["active", "expired"] or sorted(statuses.values()) == ["active", "expiring"]
        old_id = next(i for i, s in statuses.items() if s != "active")
        assert new.keys.revoke(old_id)["key"]["status"] == "revoked"
    with AgentMemory(base_url, api_key=created["agentKey"]) as old, pytest.raises(UnauthorizedError) as caught:
        old.agents.get()
    assert (caught.value.code, caught.value.status) == ("UNAUTHORIZED", 401) and caught.value.request_id


def test_records_crud_and_offset_listing(client: AgentMemory, agent: dict) -> None:
    made = [client.records.create(name, tags=["py"]) for name in ("alpha", "beta", "gamma")]
    assert client.records.get(made[0]["id"])["tags"] == ["py"]
    updated = client.records.update(made[1]["id"], name="beta 2", parent_record_id=made[0]["id"])
    assert (updated["name"], updated["parentRecordId"]) == ("beta 2", made[0]["id"])
    pages = [client.records.page(limit=2, offset=o)["records"] for o in (0, 2)]
    assert [len(p) for p in pages] == [2, 2]
    ids = [r["id"] for r in client.records.list(page_size=2)]
    assert ids[:3] == [made[2]["id"], made[1]["id"], made[0]["id"]] and agent["recordId"] in ids
    with pytest.raises(ValidationError):
        client.records.delete(made[0]["id"])  # has a child
    deleted = client.records.delete(made[0]["id"], cascade=True)
    assert deleted["deleted"] is True and {made[0]["id"], made[1]["id"]} <= set(deleted["deletedRecordIds"])
    assert client.records.update(made[2]["id"], parent_record_id=None)["parentRecordId"] is None
    with pytest.raises(ForbiddenError):
        client.records.get(made[1]["id"])  # a test key on a record that is not its agent's


def test_memories_remember_recall_context_list_forget(client: AgentMemory, agent: dict) -> None:
    record = agent["recordId"]
    deploy = client.memories.remember(record, "The deploy key rotates every Monday.", type="fact", path="ops/deploy")
    assert deploy["id"].startswith("mem_") and (deploy["path"], deploy["type"]) == ("ops/deploy", "fact")
    client.memories.remember(record, "Ada prefers short answers.", type="relationship", path="people/ada")
    recalled = client.memories.recall(record, "When does the deploy key rotate?", limit=2)
    assert recalled["memories"][0]["id"] == deploy["id"] and recalled["count"] >= 1
    assert "The deploy key rotates every Monday." in [m["content"] for m in client.memories.context(record, limit=5)["fact"]]
    first = client.memories.page(record, limit=1)
    assert len(first["memories"]) == 1 and first["nextCursor"]
    paths = [m["path"] for m in client.memories.list(record, page_size=1)]
    assert {"ops/deploy", "people/ada"} <= set(paths) and paths == sorted(paths)
    assert [m["path"] for m in client.memories.list(record, type="relationship")] == ["people/ada"]
    assert client.memories.forget(record, path="people/ada") == {"deleted": True, "path": "people/ada"}
    with pytest.raises(NotFoundError) as caught:
        client.memories.forget(record, id="mem_doesnotexist0000000000")
    assert (caught.value.code, caught.value.status) == ("NOT_FOUND", 404) and caught.value.request_id


def test_files_write_read_list(client: AgentMemory, agent: dict) -> None:
    record = agent["recordId"]
    written = client.files.write(record, "notes/a.md", "# A")
    assert written["path"] == "notes/a.md" and written["contentHash"].startswith("sha256:")
    client.files.write(record, "notes/b.md", "")
    client.files.write(record, "other/c.md", "c")
    assert client.files.read(record, "notes/a.md") == {"path": "notes/a.md", "content": "# A"}
    assert [f["path"] for f in client.files.list(record, prefix="notes/", page_size=1)] == ["notes/a.md", "notes/b.md"]
    assert client.files.page(record, limit=1, prefix="notes/")["nextCursor"]
    with pytest.raises(NotFoundError):
        client.files.read(record, "notes/missing.md")


def test_billing(client: AgentMemory) -> None:
    prices = client.billing.prices()
    assert prices["currency"] == "USD" and {p["operation"] for p in prices["paid"]} >= {"remember", "recall"}
    balance = client.billing.balance()
    assert balance["balanceMicroUsd"] > 0
    client.memories.remember(client.agents.get()["recordId"], "billing probe")
    usage = client.billing.usage_page(limit=1, operation="remember")
    assert usage["total"] >= 1 and usage["environment"] == "test"
    entries = list(client.billing.usage(operation="remember", page_size=1))
    assert len(entries) == usage["total"] and all(e["operation"] == "remember" for e in entries)
    assert client.billing.sandbox_top_up("1.5")["balanceMicroUsd"] == client.billing.balance()["balanceMicroUsd"]


def test_errors_are_typed(base_url: str, client: AgentMemory, agent: dict) -> None:
    with pytest.raises(ValidationError) as caught:
        client.memories.recall(agent["recordId"], "")
    assert (caught.value.code, caught.value.status) == ("VALIDATION_ERROR", 400) and caught.value.request_id
    assert caught.value.details["body"]["success"] is False
    with AgentMemory(base_url, api_key="amk_test_unknownunknownunknown") as stranger, pytest.raises(UnauthorizedError):
        stranger.agents.get()
    with pytest.raises(TypeError):
        AgentMemory(base_url).agents.get()  # no credential at all: refused before sending
