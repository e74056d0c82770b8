"""Task tools (issue 16): a tool whose `execution.taskSupport` is `required` or `optional` runs as an
MCP task (`tools/call` with `task`, `tasks/get`, `tasks/result`, `tasks/cancel`), against the real
`server-everything` over stdio, whose `simulate-research-query` only runs as a task (four stages of a
second each; `ambiguous` makes it ask the client a question through `tasks/result`)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import StdioServerParameters
from mcp.types import ElicitResult, ListRootsResult, ListTasksRequest, ListTasksResult

from codegen.generate import generate_package
from codegen.generate.hub import hub_dir, render_hub
from codegen.generate.publish import publish
from codegen.snapshot import load_snapshot
from tests.regen_goldens import GOLDEN

EVERYTHING = load_snapshot(GOLDEN / "everything" / "snapshot.json")
CATALOG = load_snapshot(GOLDEN / "catalog" / "snapshot.json")


async def declines_sampling(context: Any, params: Any) -> Any:
    raise AssertionError("the research tool asks no sampling")


async def picks_historical(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"interpretation": "historical"})


async def no_roots(context: Any) -> ListRootsResult:
    return ListRootsResult(roots=[])


HANDLERS = {
    "sampling_callback": declines_sampling,
    "elicitation_callback": picks_historical,
    "list_roots_callback": no_roots,
}


OUT = "taskpackages"
"""The namespace package the generated packages are imported under (the hub imports its servers' packages as `..<server>`)."""


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The everything and catalog packages as the golden snapshots generate them, and a hub over everything."""
    folder = tmp_path_factory.mktemp("tasks")
    generate_package(EVERYTHING, folder / OUT)
    generate_package(CATALOG, folder / OUT)
    publish(render_hub([(EVERYTHING, {})]), hub_dir(folder / OUT))
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == OUT]:
            del sys.modules[name]


def package(name: str) -> ModuleType:
    return importlib.import_module(f"{OUT}.{name}")


@pytest.fixture(scope="module")
def everything(packages: None) -> ModuleType:
    return package("everything")


@pytest.fixture(scope="module")
def research(everything: ModuleType, everything_server: Path) -> Iterator[Any]:
    """One server-everything for the module, behind the generated sync client (whose loop runs the
    async client's coroutines too)."""
    with everything.EverythingClient.connect_sync(
        StdioServerParameters(command=str(everything_server)), **HANDLERS
    ) as client:
        yield client


def test_a_required_tool_runs_as_a_task_from_its_method_and_the_hub_and_a_handle_follows_one_to_its_typed_result(
    everything: ModuleType, research: Any, everything_server: Path
) -> None:
    """Four research tasks at once (each takes four seconds): the plain method's, the hub's, one
    followed through its statuses by a handle, and one that asks the client a question on the way."""

    async def follow(handle: Any) -> tuple[Any, list[str]]:
        statuses = [f"{handle.task.status}: {handle.task.status_message}"]
        while handle.task.status == "working":
            await asyncio.sleep(0.5)
            task = await handle.status()
            statuses.append(f"{task.status}: {task.status_message}")
        return await handle.result(), statuses

    async def through_the_hub() -> Any:
        parameters = StdioServerParameters(command=str(everything_server))
        async with package("hub").Hub.connect(everything=parameters, **HANDLERS) as hub:
            return await hub.call("everything__simulate-research-query", {"topic": "hub"})

    async def scenario() -> tuple[Any, Any, tuple[Any, list[str]], Any]:
        client = research.async_client
        handle = await client.start_simulate_research_query(topic="oslo")
        asked = await client.start_simulate_research_query(topic="python", ambiguous=True)
        return await asyncio.gather(
            client.simulate_research_query(topic="bergen"), through_the_hub(), follow(handle), asked.result()
        )

    plain, from_hub, (result, statuses), clarified = research._run(scenario())

    assert isinstance(plain, everything.ToolResult)
    assert plain.text.startswith("# Research Report: bergen\n")
    assert from_hub.content[0].text.startswith("# Research Report: hub\n")  # the hub returns the CallToolResult
    assert isinstance(result, everything.ToolResult)
    assert result.text.startswith("# Research Report: oslo\n")
    assert list(dict.fromkeys(statuses)) == [
        "working: Gathering sources...",
        "working: Analyzing content...",
        "working: Synthesizing findings...",
        "working: Generating report...",
        "completed: Generating report...",
    ]
    # input_required: the server asked its question through tasks/result, and the handler answered it
    assert clarified.text.startswith("# Research Report: python (historical)\n")


def test_a_started_task_cancelled_by_the_sync_handle_raises_task_cancelled_on_result(
    everything: ModuleType, research: Any
) -> None:
    handle = research.start_simulate_research_query(topic="never")
    assert isinstance(handle, everything.SyncTaskHandle)
    assert handle.status().status == "working"

    assert handle.cancel().status == "cancelled"

    with pytest.raises(
        everything.TaskCancelledError, match=rf"task '{handle.task_id}' of tool 'simulate-research-query' was cancelled"
    ):
        handle.result()


def test_cancelling_the_waiting_coroutine_or_a_timeout_cancels_the_task_on_the_server(
    everything: ModuleType, research: Any
) -> None:
    async def abandoned_wait() -> str:
        handle = await research.async_client.start_simulate_research_query(topic="abandoned")
        waiting = asyncio.ensure_future(handle.result())
        await asyncio.sleep(0.2)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        return str(handle.task_id)

    async def task_statuses() -> dict[str, str]:
        listed = await research.async_client.mcp_client.session.send_request(ListTasksRequest(), ListTasksResult)
        return {task.task_id: task.status for task in listed.tasks}

    abandoned = research._run(abandoned_wait())
    assert research._run(task_statuses())[abandoned] == "cancelled"

    before = set(research._run(task_statuses()))
    with pytest.raises(
        everything.RequestTimeoutError, match=r"tool 'simulate-research-query' got no answer within 0.3 s"
    ):
        research.simulate_research_query(topic="slow", call_options={"timeout": 0.3})
    [timed_out] = set(research._run(task_statuses())) - before
    assert research._run(task_statuses())[timed_out] == "cancelled"


def test_task_methods_on_a_server_without_task_support_raise_one_clear_error(packages: None, time_server: str) -> None:
    catalog = package("catalog")
    with catalog.CatalogClient.connect_sync(StdioServerParameters(command=time_server)) as client:
        # `math.multiply` only runs as a task; `draw` may, when started as one
        with pytest.raises(catalog.TaskSupportError) as required:
            client.math_multiply(a=2, b=3)
        with pytest.raises(catalog.TaskSupportError) as optional:
            client.start_draw(shape={"kind": "circle", "radius": 1})
    assert str(required.value) == (
        "server 'catalog': tool 'math.multiply' runs as a task, but its capabilities do not offer task-augmented "
        "tools/call (`tasks.requests.tools.call`) on protocol 2026-07-28, which moves tasks to the "
        "io.modelcontextprotocol/tasks extension that this client does not speak; nothing was sent"
    )
    assert "tool 'draw' runs as a task" in str(optional.value)
