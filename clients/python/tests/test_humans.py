"""Humans and passkeys against the real server (docs/authentication.md, "Humans and passkeys"): sign-up
with a passkey (tests/passkey_device.py), claiming the agent, its records, usage and keys through the
session, sign-in, release and sign-out."""
from __future__ import annotations

import pytest

from agent_memory import AgentMemory, ForbiddenError, UnauthorizedError, ValidationError
from passkey_device import PasskeyDevice


def test_passkey_session_and_claimed_agent(base_url: str, passkey_origin: str, client: AgentMemory, agent: dict) -> None:
    record = agent["recordId"]
    client.memories.remember(record, "Ana prefers tea over coffee.", path="people/ana")
    client.files.write(record, "notes/ana.md", "# Ana")
    device = PasskeyDevice(passkey_origin)
    with AgentMemory(base_url) as human:
        options = human.humans.register_options("Ana")
        session = human.humans.register_verify(device.create(options["options"]))
        assert session["human"]["name"] == "Ana" and session["token"]
        me = human.humans.me()
        assert me["id"] == session["human"]["id"] and len(me["passkeys"]) == 1

        agent_id = agent["agentId"]
        assert human.humans.claim(agent["agentKey"])["id"] == agent_id
        assert [a["id"] for a in human.humans.agents()["agents"]] == [agent_id]
        assert human.humans.agent(agent_id)["id"] == agent_id
        assert record in [r["id"] for r in human.humans.records(agent_id, page_size=1)]
        assert human.humans.records_page(agent_id, limit=1)["total"] >= 1
        assert len(list(human.humans.usage(agent_id, operation="remember"))) >= 1
        assert human.humans.usage_page(agent_id, limit=1)["total"] >= 1
        # read routes of a claimed agent accept the session; writes do not
        assert human.records.get(record)["id"] == record
        assert human.files.read(record, "notes/ana.md")["content"] == "# Ana"
        with pytest.raises(ForbiddenError):
            human.memories.remember(record, "not by a human")

        helper = AgentMemory(base_url)
        made = helper.create_agent("claimed keys", environment="test")
        human.humans.claim(made["agentKey"])
        rotated = human.humans.rotate_key(made["agentId"], grace_seconds=60)
        keys = human.humans.keys(made["agentId"])["keys"]
        assert rotated["key"]["id"] in [k["id"] for k in keys] and len(keys) == 2
        old = next(k["id"] for k in keys if k["id"] != rotated["key"]["id"])
        assert human.humans.revoke_key(made["agentId"], old)["key"]["status"] == "revoked"
        helper.close()

        login = human.humans.login_options()
        with AgentMemory(base_url) as other_tab:
            signed_in = other_tab.humans.login_verify(device.get(login["options"]))
        assert signed_in["human"]["id"] == session["human"]["id"]
        assert human.humans.release(agent_id) == {"released": True, "agentId": agent_id}
        token = session["token"]
        assert human.humans.logout() == {"loggedOut": True}
        with AgentMemory(base_url, session_token=token) as ended, pytest.raises(UnauthorizedError):
            ended.humans.me()
        with pytest.raises(TypeError):
            human.humans.me()  # the client forgot the ended session


def test_a_forged_passkey_answer_is_refused(base_url: str, passkey_origin: str) -> None:
    with AgentMemory(base_url) as human:
        options = human.humans.register_options("Eve")
        answer = PasskeyDevice("http://evil.example").create(options["options"])
        with pytest.raises((ValidationError, UnauthorizedError)) as caught:
            human.humans.register_verify(answer)
    assert caught.value.status in (400, 401) and caught.value.request_id
