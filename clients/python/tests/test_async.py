"""The asyncio client against the real server: the same namespaces awaited, listings as async iterators,
errors and the one-key-per-write retry."""
from __future__ import annotations

import asyncio

import pytest

from agent_memory import AsyncAgentMemory, NotFoundError, RetryPolicy
from fault_proxy import FaultProxy


def test_async_client_flow(base_url: str) -> None:
    async def flow() -> None:
        async with AsyncAgentMemory(base_url) as anonymous:
            created = await anonymous.create_agent("py async", environment="test")
        async with AsyncAgentMemory(base_url, api_key=created["agentKey"]) as client:
            await client.billing.sandbox_top_up(1)
            record = created["recordId"]
            assert (await client.agents.get())["id"] == created["agentId"]
            await asyncio.gather(*(client.memories.remember(record, f"Async fact {i}.", path=f"async/{i}") for i in range(3)))
            paths = [m["path"] async for m in client.memories.list(record, page_size=2)]
            assert paths == ["async/0", "async/1", "async/2"]
            assert (await client.memories.recall(record, "async fact", limit=3))["count"] == 3
            await client.files.write(record, "a.md", "a")
            assert [f["path"] async for f in client.files.list(record)] == ["a.md"]
            assert [r["id"] async for r in client.records.list()] == [record]
            assert len([e async for e in client.billing.usage(operation="remember")]) == 3
            with pytest.raises(NotFoundError):
                await client.files.read(record, "missing.md")
        with FaultProxy(base_url) as proxy:
            async with AsyncAgentMemory(proxy.url, api_key=created["agentKey"], retry=RetryPolicy(base_delay=0.01)) as flaky:
                proxy.drop_after_forward, proxy.drop_suffix = 1, "/write"
                await flaky.files.write(record, "b.md", "b")
                proxy.synthetic_429 = 1
                assert (await flaky.files.read(record, "b.md"))["content"] == "b"
        writes = [body for method, path, body in proxy.seen if path.endswith("/write")]
        assert len(writes) == 2 and writes[0] == writes[1]

    asyncio.run(flow())
