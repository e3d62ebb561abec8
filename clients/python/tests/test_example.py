"""examples/agent_loop.py against the real server: what the user said is recalled on a later turn."""
from __future__ import annotations

import sys
from pathlib import Path

from agent_memory import AgentMemory

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import agent_loop  # noqa: E402


def test_the_agent_loop_recalls_what_the_user_said(base_url: str) -> None:
    with AgentMemory(base_url) as anonymous:
        created = anonymous.create_agent("loop", environment="test")
    with AgentMemory(base_url, api_key=created["agentKey"]) as client:
        client.billing.sandbox_top_up("1")
        answers = agent_loop.run(client, created["recordId"], ["My sister Maya lives in Lisbon.", "", "Where does Maya live?"])
    assert answers[0].startswith("Noted.")
    assert "Lisbon" in answers[1]
