"""Task tools (issue 16): a tool whose `execution.taskSupport` is `required` or `optional` runs as an
MCP task (`tools/call` with `task`, `tasks/get`, `tasks/result`, `tasks/cancel`), against the real
`server-everything` over stdio, whose `simulate-research-query` only runs as a task (four stages of a
second each; `ambiguous` makes it ask the client a question through `tasks/result`), and against
`servers/task_server.py`, whose task tools have output schemas."""

from __future__ import annotations

import asyncio
import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import StdioServerParameters
from mcp.types import ElicitResult, ListRootsResult, ListTasksRequest, ListTasksResult

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot import load_snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON
from tests.regen_goldens import GOLDEN, OUTPUT

TASK_SERVER = Path(__file__).parent / "servers" / "task_server.py"
EVERYTHING = load_snapshot(GOLDEN / "everything" / "snapshot.json")


async def never_samples(context: Any, params: Any) -> Any:
    raise AssertionError("the research tool asks no sampling")


async def picks_historical(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"interpretation": "historical"})


async def no_roots(context: Any) -> ListRootsResult:
    return ListRootsResult(roots=[])


HANDLERS = {
    "sampling_callback": never_samples,
    "elicitation_callback": picks_historical,
    "list_roots_callback": no_roots,
}


OUT = "taskpackages"
"""The namespace package the generated packages are imported under (the hub imports its servers' packages as `..<server>`)."""


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The everything and catalog golden packages (what their snapshots generate, as test_generate_golden
    proves), the task server's package and a hub over everything."""
    folder = tmp_path_factory.mktemp("tasks")
    for case in ("everything", "catalog"):
        shutil.copytree(OUTPUT / case, folder / OUT / case)
    config = ServerConfig(name="typed_tasks", command=PYTHON, args=(str(TASK_SERVER),))
    generate_package(asyncio.run(snapshot_server(config)), folder / OUT)
    generate_hub([(EVERYTHING, {})], folder / OUT)
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
        hub_module = package("hub")
        async with hub_module.Hub.connect(everything=parameters, **HANDLERS) as hub:
            with pytest.raises(hub_module.RequestTimeoutError, match=r"'everything': tool 'simulate-research-query'"):
                await hub.call("everything__simulate-research-query", {"topic": "late"}, call_options={"timeout": 0.3})
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


@pytest.fixture(scope="module")
def typed(packages: None) -> Iterator[Any]:
    """The task server's generated sync client, connected once for the module."""
    parameters = StdioServerParameters(command=PYTHON, args=[str(TASK_SERVER)])
    with package("typed_tasks").TypedTasksClient.connect_sync(parameters) as client:
        yield client


def test_task_results_are_typed_with_the_tools_output_model_and_polled_as_the_task_asks(typed: Any) -> None:
    models = package("typed_tasks")

    async def scenario() -> tuple[Any, Any, Any, float, float]:
        client = typed.async_client
        handle = await client.start_forecast(city="Oslo", days=2)
        forecast = await handle.result()
        plain = await client.forecast(city="Bergen", days=1)  # `optional`: the method calls it plainly
        product = await client.multiply(a=2, b=3)  # `required`: the method runs it as a task
        started = await client.start_multiply(a=2, b=4)
        return handle, forecast, plain, product, await started.result()

    handle, forecast, plain, product, started = typed._run(scenario())

    assert isinstance(forecast, models.ForecastOutput)
    assert (forecast.city, forecast.highs) == ("Oslo", [20.5, 21.5])
    assert isinstance(plain, models.ForecastOutput) and plain.highs == [20.5]
    assert (product, started) == (6, 8)  # the wrapped primitive's value, as `multiply` returns it
    # the task asked for a poll every 50 ms and worked for 500 ms: polled far more than once a second
    assert handle.task.status == "completed"
    assert int(handle.task.status_message.split()[1]) >= 3


def test_a_task_that_fails_breaks_its_output_schema_or_is_not_created_raises_one_clear_error(typed: Any) -> None:
    models = package("typed_tasks")

    with pytest.raises(models.ToolError, match="tool 'multiply' failed: negative products are not supported"):
        typed.multiply(a=-1, b=2)
    handle = typed.start_forecast(city="Atlantis", days=1)
    assert isinstance(handle, models.SyncTaskHandle)
    with pytest.raises(models.ToolResultError, match=r"tool 'forecast' returned a result that does not match"):
        handle.result()
    with pytest.raises(models.TaskSupportError) as plain:
        typed.start_clock()
    assert str(plain.value) == (
        "server 'typed_tasks': tool 'clock' runs as a task, but the server answered with a plain result instead "
        "of a task: the tool ran, but a task handle has no result to give; call the tool's own method instead"
    )


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
    """Before anything is sent: on a 2025 server without the `tasks` capability (the legacy raw
    server), and on a 2026-07-28 one (`mcp-server-time`), where tasks are an extension."""
    catalog = package("catalog")
    legacy = StdioServerParameters(command=PYTHON, args=[str(Path(__file__).parent / "servers" / "raw_server.py")])
    # `draw` may run as a task, when started as one; `math.multiply` only runs as one
    with catalog.CatalogClient.connect_sync(legacy) as client, pytest.raises(catalog.TaskSupportError) as optional:
        client.start_draw(shape={"kind": "circle", "radius": 1})
    modern = StdioServerParameters(command=time_server)
    # the catalog's snapshot recorded 2025-11-25, which `connect` speaks unless told otherwise
    with (
        catalog.CatalogClient.connect_sync(modern, mode="auto") as client,
        pytest.raises(catalog.TaskSupportError) as required,
    ):
        client.math_multiply(a=2, b=3)
    assert str(optional.value) == (
        "server 'catalog': tool 'draw' runs as a task, but its capabilities do not offer task-augmented "
        "tools/call (`tasks.requests.tools.call`); nothing was sent"
    )
    assert str(required.value) == (
        "server 'catalog': tool 'math.multiply' runs as a task, but its capabilities do not offer task-augmented "
        "tools/call (`tasks.requests.tools.call`) on protocol 2026-07-28, which moves tasks to the "
        "io.modelcontextprotocol/tasks extension that this client does not speak; nothing was sent"
    )


@pytest.mark.parametrize("timeout", [-1, float("nan")])
def test_a_result_timeout_that_is_no_number_of_seconds_leaves_the_task_going(typed: Any, timeout: float) -> None:
    """A negative timeout ran out at once and cancelled the task on the server; a NaN raised anyio's own error."""
    handle = typed.start_forecast(city="Oslo", days=1)
    with pytest.raises(ValueError, match=r"^result\(\) timeout must be a number of seconds, not .*; the task goes on$"):
        handle.result(timeout=timeout)
    assert handle.result(timeout=30).highs == [20.5]
