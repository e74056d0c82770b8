"""Task-augmented tool calls (MCP 2025-11-25 `tasks`): start a tool as a task, poll it, fetch its result, cancel it.

A tool whose `execution.taskSupport` is `optional` or `required` may be started as a task: the
server answers `tools/call` at once with a task id, the client polls `tasks/get` (as often as the
task's `pollInterval` asks) and fetches the tool's result with `tasks/result`, which the server holds
until the task ends; a task waiting for the client's input (`input_required`) asks its questions
(`elicitation/create`, `sampling/createMessage`) while that request is open. `TaskHandle` does this
for one task, typed with the tool's result; the generated clients run a `required` tool through it
transparently.

A generated client with such tools is a `TaskClient` (its sync twin a `SyncTaskClient`): the
output folder's runtime holds this file only when one of its packages has such a tool, and
`_runtime.py` never imports it, so a package without one loads no task machinery.

This file is copied verbatim into the output folder's runtime (`_mcp_runtime/`), and imports only
`mcp` (and `anyio`, which it brings), its sibling `_runtime` and the standard library. Do not edit
the copy: run `mcp-stubgen sync` to refresh it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from ._runtime import (
    NOT_GIVEN,
    GeneratedClient,
    NotGiven,
    RequestTimeoutError,
    ServerError,
    StubgenClientError,
    SyncClient,
    ToolContract,
    ToolResult,
    _meta,
    _prime,
    _progress,
    _seconds,
    _server_error,
    _timeout,
)

if TYPE_CHECKING:
    from mcp.client import ClientSession
    from mcp.shared.dispatcher import CallOptions as DispatchOptions
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.types import CallToolResult, RequestParamsMeta, Task
    from pydantic import BaseModel

    from ._loop_thread import SessionLoop
    from ._runtime import CallOptions

__all__ = [
    "SyncTaskClient",
    "SyncTaskHandle",
    "TaskCancelledError",
    "TaskClient",
    "TaskHandle",
    "TaskSupportError",
    "run_task",
    "start_task",
]

T = TypeVar("T")
U = TypeVar("U")
R = TypeVar("R", bound="BaseModel")
OutputT = TypeVar("OutputT", bound="BaseModel")
TaskClientT = TypeVar("TaskClientT", bound="TaskClient")

DEFAULT_POLL_INTERVAL: Final = 1.0
"""Seconds between two `tasks/get` when the task gives no `pollInterval`."""
MIN_POLL_INTERVAL: Final = 0.01
"""The shortest wait between two polls, whatever `pollInterval` says, so a polling loop never spins."""
MAX_POLL_INTERVAL_MS: Final = 60_000
"""The longest wait between two polls, whatever `pollInterval` says: a server's 400-digit interval is
clamped as an integer, before any division could overflow a float."""
CANCEL_WAIT: Final = 5.0
"""Seconds a timed-out or cancelled wait gives `tasks/cancel` to be answered before giving up on it."""


class TaskSupportError(StubgenClientError):
    """The server does not offer task-augmented `tools/call`, which this tool needs (or was asked for)."""

    def __init__(self, server: str, tool: str, reason: str) -> None:
        self.server = server
        self.tool = tool
        super().__init__(f"server {server!r}: tool {tool!r} runs as a task, but {reason}")


class TaskCancelledError(StubgenClientError):
    """The task was cancelled (by `cancel()`, a timeout, or the server) before it gave a result."""

    def __init__(self, server: str, tool: str, task: Task) -> None:
        self.server = server
        self.tool = tool
        self.task = task
        message = f": {task.status_message}" if task.status_message else ""
        super().__init__(
            f"server {server!r}: task {task.task_id!r} of tool {tool!r} was cancelled{message}"
        )


class TaskHandle(Generic[T]):
    """One tool call running as a task on the server: its id, its status, its typed result.

    `result()` waits for the task (polling `tasks/get` as the task's `pollInterval` asks, then
    fetching `tasks/result`) and returns what the tool's method returns, checked the same way;
    cancelling the waiting coroutine, or its `timeout` running out, sends `tasks/cancel`.
    """

    __slots__ = ("_read", "_server", "_session", "task", "tool")

    def __init__(
        self,
        session: ClientSession,
        server: str,
        tool: str,
        task: Task,
        read: Callable[[CallToolResult], T],
    ) -> None:
        self._session = session
        self._server = server
        self.tool = tool
        self.task = task
        """The task as last seen: its `status`, `status_message`, `poll_interval`, `ttl`..."""
        self._read = read

    def __repr__(self) -> str:
        return (
            f"TaskHandle(tool={self.tool!r}, task_id={self.task_id!r}, status={self.task.status!r})"
        )

    @property
    def task_id(self) -> str:
        return self.task.task_id

    async def status(self) -> Task:
        """The task's current state, from `tasks/get` (also kept as `task`)."""
        from mcp.types import GetTaskRequest, GetTaskRequestParams, GetTaskResult

        request = GetTaskRequest(params=GetTaskRequestParams(task_id=self.task_id))
        self.task = await self._request(request, GetTaskResult)
        return self.task

    async def cancel(self) -> Task:
        """Ask the server to cancel the task (`tasks/cancel`); returns the task's state after it."""
        from mcp.types import CancelTaskRequest, CancelTaskRequestParams, CancelTaskResult

        request = CancelTaskRequest(params=CancelTaskRequestParams(task_id=self.task_id))
        self.task = await self._request(request, CancelTaskResult)
        return self.task

    async def _request(self, request: Any, result_type: type[R]) -> R:
        """A request about the task; an error answer, or one that is not valid MCP, raises `ServerError`."""
        try:
            return await self._session.send_request(request, result_type)
        except Exception as error:
            refused = _server_error(
                self._server, f"{request.method} of task {self.task_id!r}", error
            )
            if refused is None:
                raise
            raise refused from error

    async def result(self, timeout: float | None = None) -> T:
        """Wait for the task to end and return the tool's result, typed and checked as its method's is.

        A tool that fails raises `ToolError`; a cancelled task, `TaskCancelledError`. After `timeout`
        seconds the task is cancelled and `RequestTimeoutError` raised; a timeout that is no number
        of seconds (a negative one cancelled the task at once) is a `ValueError`, and the task goes on.
        """
        import anyio

        _seconds(timeout, "result() timeout", "the task goes on")
        try:
            with anyio.fail_after(timeout):
                outcome = await self._outcome()
        except TimeoutError:
            await self._cancel_quietly()
            request = f"task {self.task_id!r} of tool {self.tool!r}"
            raise RequestTimeoutError(self._server, request, timeout or 0.0) from None
        except anyio.get_cancelled_exc_class():
            await self._cancel_quietly()
            raise
        return self._read(outcome)

    async def _outcome(self) -> CallToolResult:
        """Poll while the task works, then fetch its result; a task needing input gets it through
        `tasks/result`, which the server answers once the task has ended."""
        import anyio
        from mcp.types import CallToolResult, GetTaskPayloadRequest, GetTaskPayloadRequestParams

        task = self.task
        while task.status == "working":
            asked = task.poll_interval
            interval = (
                DEFAULT_POLL_INTERVAL if asked is None else min(asked, MAX_POLL_INTERVAL_MS) / 1000
            )
            await anyio.sleep(max(interval, MIN_POLL_INTERVAL))
            task = await self.status()
        if task.status == "cancelled":
            raise TaskCancelledError(self._server, self.tool, task)
        request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=self.task_id))
        return await self._request(request, CallToolResult)

    async def _cancel_quietly(self) -> None:
        """`tasks/cancel` on the way out of an abandoned wait: shielded from the cancellation that
        ended the wait, bounded in time, and silent when the task has already ended."""
        import anyio

        # An error means the task ended on its own, or the server forgot it: nothing is left to cancel.
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(CANCEL_WAIT),
            contextlib.suppress(ServerError),
        ):
            await self.cancel()

    def _then(self, read: Callable[[T], U]) -> TaskHandle[U]:
        """The same task, its result passed through `read` (a generated method unwrapping its output model)."""
        first = self._read
        return TaskHandle(
            self._session, self._server, self.tool, self.task, lambda result: read(first(result))
        )


class SyncTaskHandle(Generic[T]):
    """A sync client's `TaskHandle`: the same methods, each blocking until its answer."""

    __slots__ = ("_loop", "async_handle")

    def __init__(self, async_handle: TaskHandle[T], loop: SessionLoop) -> None:
        self.async_handle = async_handle
        self._loop = loop

    def __repr__(self) -> str:
        return "Sync" + repr(self.async_handle)

    @property
    def task_id(self) -> str:
        return self.async_handle.task_id

    @property
    def task(self) -> Task:
        """The task as last seen."""
        return self.async_handle.task

    def status(self) -> Task:
        """`TaskHandle.status`: the task's current state."""
        return self._loop.run(self.async_handle.status())

    def cancel(self) -> Task:
        """`TaskHandle.cancel`: ask the server to cancel the task."""
        return self._loop.run(self.async_handle.cancel())

    def result(self, timeout: float | None = None) -> T:
        """`TaskHandle.result`: wait for the task and return its typed result; interrupting the wait cancels the task."""
        return self._loop.run(self.async_handle.result(timeout))


def _require_tasks(session: ClientSession, server: str, tool: str) -> None:
    """`TaskSupportError` unless the server's capabilities offer task-augmented `tools/call`."""
    capabilities = session.server_capabilities
    tasks = capabilities.tasks if capabilities is not None else None
    requests = tasks.requests if tasks is not None else None
    if requests is None or requests.tools is None or requests.tools.call is None:
        reason = (
            "its capabilities do not offer task-augmented tools/call (`tasks.requests.tools.call`)"
        )
        if session.discover_result is not None:
            reason += (
                f" on protocol {session.protocol_version}, which moves tasks to the io.modelcontextprotocol/tasks"
                " extension that this client does not speak"
            )
        raise TaskSupportError(server, tool, reason + "; nothing was sent")


async def start_task(
    session: ClientSession,
    server: str,
    tool: str,
    arguments: dict[str, Any],
    *,
    timeout: float | None = None,
    progress: ProgressFnT | None = None,
    meta: RequestParamsMeta | None = None,
) -> TaskHandle[CallToolResult]:
    """Send `tools/call` asking for a task and return the handle of the task the server created.

    The SDK's `send_request` checks a `tools/call` answer as a `CallToolResult`, so it refuses the
    `CreateTaskResult` a task-augmented call is answered with; this sends the request as
    `send_request` does (the session's stamp: protocol headers, 2026 `_meta`) and reads the answer
    itself. `progress` hears the notifications that come before the task is created.
    """
    from mcp.types import CallToolRequest, CallToolRequestParams, CreateTaskResult, TaskMetadata

    _require_tasks(session, server, tool)
    params = CallToolRequestParams(name=tool, arguments=arguments, task=TaskMetadata(), _meta=meta)
    data = CallToolRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
    options: DispatchOptions = {}
    session._stamp(data, options)
    if timeout is not None:
        options["timeout"] = timeout
    if progress is not None:
        options["on_progress"] = progress
    raw = await session._dispatcher.send_raw_request(data["method"], data["params"], options)
    if "task" not in raw:
        raise TaskSupportError(
            server,
            tool,
            "the server answered with a plain result instead of a task: the tool ran, but a task handle has no "
            "result to give; call the tool's own method instead",
        )
    task = CreateTaskResult.model_validate(raw, by_name=False).task
    return TaskHandle(session, server, tool, task, _unchanged)


async def run_task(
    session: ClientSession,
    server: str,
    tool: str,
    arguments: dict[str, Any],
    *,
    timeout: float | None = None,
    progress: ProgressFnT | None = None,
    meta: RequestParamsMeta | None = None,
) -> CallToolResult:
    """Run a tool as a task to its end and return its `CallToolResult` as the server gave it: what a
    plain call of a tool that only runs as a task (`required`) does. `timeout` bounds the whole run."""
    import anyio

    began = anyio.current_time()
    handle = await start_task(
        session, server, tool, arguments, timeout=timeout, progress=progress, meta=meta
    )
    left = None if timeout is None else max(timeout - (anyio.current_time() - began), 0.0)
    try:
        return await handle.result(left)
    except RequestTimeoutError:
        raise RequestTimeoutError(server, f"tool {tool!r}", timeout or 0.0) from None


def _unchanged(result: CallToolResult) -> CallToolResult:
    return result


class TaskClient(GeneratedClient):
    """The base of a generated client with tools that may run as tasks: their `start_<tool>`
    methods, and a `required` tool's plain method, which runs it as a task to its end."""

    async def _run_task(
        self, tool: str, payload: dict[str, Any], call_options: CallOptions
    ) -> CallToolResult:
        """Run a tool as a task to its end (what a `required` tool's method does) and return its result
        as the server gave it; the call's timeout bounds the whole run, and cancelling it cancels the task."""
        timeout = _timeout(call_options)
        progress = _progress(call_options.get("on_progress"), self.server_name, tool)
        return await run_task(
            self._session(),
            self.server_name,
            tool,
            payload,
            timeout=timeout,
            progress=progress,
            meta=_meta(call_options),
        )

    async def _start_task(
        self,
        tool: str,
        contract: str,
        arguments: Mapping[Any, object] | BaseModel,
        extra: Mapping[str, object] | NotGiven,
        call_options: CallOptions | None,
    ) -> TaskHandle[CallToolResult]:
        from mcp.shared.exceptions import MCPError

        terms = ToolContract.of(contract)
        payload = self._payload(tool, terms, arguments, extra)
        _prime(self.mcp_client, tool, terms.listed_input_schema)
        options = call_options or {}
        timeout = _timeout(options)
        progress = _progress(options.get("on_progress"), self.server_name, tool)
        try:
            return await start_task(
                self._session(),
                self.server_name,
                tool,
                payload,
                timeout=timeout,
                progress=progress,
                meta=_meta(options),
            )
        except MCPError as error:
            self._raise_for(tool, error, call_options)

    async def _start(
        self,
        tool: str,
        contract: str,
        arguments: Mapping[Any, object] | BaseModel,
        extra: Mapping[str, object] | NotGiven = NOT_GIVEN,
        call_options: CallOptions | None = None,
    ) -> TaskHandle[ToolResult]:
        """Start a tool as a task; its handle's result is what `_call` returns, checked the same way."""
        handle = await self._start_task(tool, contract, arguments, extra, call_options)
        terms = ToolContract.of(contract)
        return handle._then(
            lambda result: self._tool_result(tool, terms, self._accepted(tool, result))
        )

    async def _start_structured(
        self,
        tool: str,
        contract: str,
        arguments: Mapping[Any, object] | BaseModel,
        output_model: type[OutputT],
        extra: Mapping[str, object] | NotGiven = NOT_GIVEN,
        call_options: CallOptions | None = None,
    ) -> TaskHandle[OutputT]:
        """Start a tool with an output schema as a task; its handle's result is what `_call_structured` returns."""
        handle = await self._start_task(tool, contract, arguments, extra, call_options)
        terms = ToolContract.of(contract)
        return handle._then(
            lambda result: self._structured(tool, terms, self._accepted(tool, result), output_model)
        )


class SyncTaskClient(SyncClient[TaskClientT]):
    """The base of a `TaskClient`'s sync twin: its `start_<tool>` methods return handles that block."""

    def _task(self, start: Coroutine[Any, Any, TaskHandle[T]]) -> SyncTaskHandle[T]:
        """Start a task with the async client's `start_...` method; its handle blocks as this client does."""
        return SyncTaskHandle(self._run(start), self._loop)
