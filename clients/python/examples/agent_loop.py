"""An agent loop with memory: before answering, recall what is relevant to the user's message; after,
remember what the user said. The "model" here is a stand-in that quotes what it recalled; put your LLM
call in ``answer()``.

Run against a server (``npx agent-memory start`` or the standalone server):

    AGENT_MEMORY_URL=http://127.0.0.1:8080 python3 examples/agent_loop.py

Without ``AGENT_MEMORY_KEY`` it creates an agent with a test key and 1 USD of sandbox credit (each
remember and recall costs 0.05 USD; docs/billing.md) and prints the key to reuse.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Iterable

from agent_memory import AgentMemory
from agent_memory.models import RecallResponseMemoriesItem


def answer(message: str, memories: list[RecallResponseMemoriesItem]) -> str:
    """Stand-in for the model: a real agent sends ``message`` and the recalled summaries to its LLM."""
    if not memories:
        return "Noted. I don't remember anything about that yet."
    return "Here is what I remember: " + "; ".join(m["summary"] for m in memories)


def run(client: AgentMemory, record_id: str, messages: Iterable[str], reply: Callable[[str, list[RecallResponseMemoriesItem]], str] = answer) -> list[str]:
    """One turn per message: recall (top 3), answer, then remember the message. Returns the answers."""
    answers = []
    for message in messages:
        message = message.strip()
        if not message:
            continue
        recalled = client.memories.recall(record_id, message, limit=3)["memories"]
        answers.append(reply(message, recalled))
        client.memories.remember(record_id, message)
    return answers


def main() -> None:
    url = os.environ.get("AGENT_MEMORY_URL", "http://127.0.0.1:8080")
    key = os.environ.get("AGENT_MEMORY_KEY")
    if key is None:
        with AgentMemory(url) as anonymous:
            key = anonymous.create_agent("agent loop example", environment="test")["agentKey"]
        print(f"created an agent; reuse it with AGENT_MEMORY_KEY={key}", file=sys.stderr)
        with AgentMemory(url, api_key=key) as client:
            client.billing.sandbox_top_up("1")
    with AgentMemory(url, api_key=key) as client:
        record_id = client.agents.get()["recordId"]
        print("Say something (Ctrl-D to quit).", file=sys.stderr)
        for line in sys.stdin:
            for reply in run(client, record_id, [line]):
                print(reply, flush=True)


if __name__ == "__main__":
    main()
