"""Run model-written Python in the Monty sandbox against the code-mode stubs, with every call at the boundary.

This file is copied verbatim into `_mcp_runtime/` beside a `code_mode` package. It imports only the
standard library at import time; `pydantic_monty` (the optional `sandbox` extra) is imported when
`run_code` first runs, so the generated packages need nothing beyond `mcp` and `pydantic` unless a
script is run. Do not edit the copy: run `mcp-stubgen sync` to refresh it.

The script is type-checked against the stubs (Monty's bundled `ty`) before it runs: an unknown tool, a
wrong argument name, a bad enum value or a wrong result key is `ScriptRejected` with the checker's
message, and nothing reaches a server. The sandbox sees only the stub modules' functions: no
environment, no files, no network, no hub object, so credentials held by the host never enter it.
Each call it makes is answered here, in the host: the per-run cap, then the approval policy for
destructive and open-world tools, then the code-mode function bound to the hub's `call` (which checks
the arguments against the tool's JSON Schema before sending).

Monty's synchronous pool is driven here step by step, each step on a worker thread, and the calls
run as tasks on the caller's event loop: Monty's asyncio pool (`AsyncMonty`, pydantic-monty 1.4)
leaves a Rust runtime that can abort a short-lived interpreter at exit.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, TypeAlias

__all__ = [
    "Approve",
    "CallRecord",
    "Decision",
    "Limits",
    "RunResult",
    "SandboxError",
    "SandboxUnavailableError",
    "ScriptFailed",
    "ScriptRejected",
    "ToolCall",
    "run_code",
]

INSTALL_HINT = "pip install 'mcp-stubgen[sandbox]' (or pip install pydantic-monty)"

Decision: TypeAlias = Literal["allow", "deny", "ask"]
"""What the approval policy says about one call: run it, refuse it, or leave it to the `ask` callback."""


@dataclass(frozen=True)
class ToolCall:
    """One call the script asked for, as the approval policy and the `ask` callback see it."""

    tool: str
    """The function as the script called it, `<server>.<function>`."""
    arguments: Mapping[str, Any]
    read_only: bool
    destructive: bool
    open_world: bool


Outcome: TypeAlias = Literal["ok", "error", "denied", "over_cap"]
Approve: TypeAlias = Decision | Callable[[ToolCall], Decision | Awaitable[Decision]]
Ask: TypeAlias = Callable[[ToolCall], bool | Awaitable[bool]]


@dataclass(frozen=True)
class Limits:
    """What one script may use. `seconds` counts the script's own execution, not the time it waits for
    a tool's answer (a server's slowness is the call's timeout, not the script's)."""

    seconds: float = 10.0
    memory_bytes: int = 64 * 1024 * 1024
    printed_bytes: int = 1024 * 1024
    """How much the script may print before it fails with `MemoryError` (saying it printed too much)."""


@dataclass(frozen=True)
class CallRecord:
    """One line of a run's call log."""

    tool: str
    arguments: Mapping[str, Any]
    outcome: Outcome
    """`ok`: the tool answered; `error`: the call raised (schema refusal, tool error, server error)
    or the script ended before it answered; `denied` and `over_cap`: nothing was sent."""
    detail: str
    """The error message the script saw, empty for `ok`."""
    seconds: float


@dataclass(frozen=True)
class RunResult:
    value: Any
    """The value of the script's last expression (`None` when it ends in a statement)."""
    calls: tuple[CallRecord, ...]
    printed: str = ""


class SandboxError(Exception):
    """Any reason a script did not produce a result."""

    def __init__(self, message: str, calls: tuple[CallRecord, ...] = (), printed: str = "") -> None:
        super().__init__(message)
        self.calls = calls
        self.printed = printed


class SandboxUnavailableError(SandboxError, ImportError):
    """`pydantic-monty` is not installed."""


class ScriptRejected(SandboxError):
    """The script did not parse or type-check against the stubs; it never ran, and nothing was sent."""


class ScriptFailed(SandboxError):
    """The script raised, or went over a limit; `calls` says what it had already done."""


async def run_code(
    code: str,
    *,
    hub: Any,
    limits: Limits | None = None,
    approve: Approve = "deny",
    ask: Ask | None = None,
    max_calls: int = 50,
) -> RunResult:
    """Type-check `code` against the code-mode stubs, then run it in the Monty sandbox with each stub
    function answered by the hub.

    `approve` is consulted before every call to a destructive or open-world tool (a tool without
    hints is both, as MCP defines): `"allow"`, `"deny"` or `"ask"` (the `ask` callback decides, and
    without one the call is denied), or a function of the `ToolCall` returning one of them. A
    denied call, and every call past `max_calls`, raises `RuntimeError` inside the script and sends
    nothing. The stubs, functions and hints are the `code_mode` package's beside this runtime.
    Raises `ScriptRejected` (nothing ran) or `ScriptFailed` (with the calls made).
    """
    monty = _import_monty()
    limits = limits or Limits()
    surface = _sibling_code_mode()
    stubs = surface.stubs()
    functions = surface.functions(hub)
    hints = surface.hints()
    run = _Run(functions, hints, approve, ask, max_calls)
    modules = {
        module: monty.ExternalModule(
            {
                name.split(".", 1)[1]: _never_called
                for name in functions
                if name.split(".", 1)[0] == module
            },
            stubs=source,
        )
        for module, source in stubs.items()
    }
    printed = monty.CollectString(max_bytes=limits.printed_bytes)
    checkout = {
        "type_check": True,
        "type_check_format": "concise",
        "external_modules": modules,
        "limits": {
            "max_feed_duration_secs": limits.seconds,
            "max_memory": limits.memory_bytes,
            # imports, stub requests and future resolutions are suspensions too
            "max_suspensions": 4 * max_calls + 100,
        },
    }
    # Entered and left on worker threads: leaving waits for the worker's current step, at most the
    # time limit, which must not hold the event loop (the hub's servers) when the caller cancels.
    async with (
        _on_threads(monty.Monty()) as pool,
        _on_threads(pool.checkout(**checkout)) as session,
    ):
        try:
            # the checker asks for the stubs of the modules the script imports, then checks it whole
            # before its first line runs, so a rejection comes before any call
            step = await asyncio.to_thread(session.feed_start, code, print_callback=printed)
            while not isinstance(step, monty.MontyComplete):
                step = await run.answer(monty, step)
            value = step.output  # converted on access, which can fail too
        except (monty.MontyTypingError, monty.MontySyntaxError) as error:
            raise ScriptRejected(_message(error), tuple(run.log), printed.output) from None
        except monty.MontyError as error:
            message = _printed_past(_message(error), limits)
            raise ScriptFailed(message, tuple(run.log), printed.output) from None
        finally:
            run.cancel_pending()
        return RunResult(value, tuple(run.log), printed.output)


@asynccontextmanager
async def _on_threads(manager: Any) -> AsyncIterator[Any]:
    """A blocking context manager entered and exited on worker threads."""
    entered = await asyncio.to_thread(manager.__enter__)
    try:
        yield entered
    finally:
        await asyncio.to_thread(manager.__exit__, None, None, None)


class _Run:
    """One script's calls: the cap, the policy, the tasks in flight and the log."""

    def __init__(
        self,
        functions: Mapping[str, Callable[..., Awaitable[Any]]],
        hints: Mapping[str, Any],
        approve: Approve,
        ask: Ask | None,
        max_calls: int,
    ) -> None:
        self.functions = functions
        self.hints = hints
        self.approve = approve
        self.ask = ask
        self.max_calls = max_calls
        self.started = 0
        self.pending: dict[int, asyncio.Task[dict[str, Any]]] = {}
        self.log: list[CallRecord] = []

    async def answer(self, monty: ModuleType, step: Any) -> Any:
        """Answer one suspension of the script and return the next one."""
        if isinstance(step, monty.FunctionSnapshot) and not step.is_os_function:
            outcome = await self.start(step.call_id, step.function_name, step.args, step.kwargs)
            return await asyncio.to_thread(step.resume, outcome)
        if isinstance(step, monty.FutureSnapshot):
            waiting = [self.pending[call_id] for call_id in step.pending_call_ids]
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            settled = {
                call_id: self.pending.pop(call_id).result()
                for call_id in step.pending_call_ids
                if self.pending[call_id].done()
            }
            return await asyncio.to_thread(step.resume, settled)
        # imports of the stub modules, their stubs, and OS calls, which Monty refuses without a handler
        return await asyncio.to_thread(step.resume_auto)

    async def start(
        self, call_id: int, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """Decide on one call and start it; what the script's call returns (a future, or an exception)."""
        call = self.tool_call(name, kwargs)
        if args:
            return self.unsent(
                call,
                "error",
                "TypeError",
                "positional arguments are not accepted: pass each by name",
            )
        if self.started >= self.max_calls:
            return self.unsent(
                call,
                "over_cap",
                "RuntimeError",
                f"call cap reached: this run may make {self.max_calls} calls (max_calls)",
            )
        refusal = await self.refusal(call)
        if refusal is not None:
            return self.unsent(call, "denied", "RuntimeError", f"not approved: {refusal}")
        self.started += 1
        # the log keeps the order calls were made in; this line stands until the call answers
        self.log.append(
            CallRecord(
                call.tool,
                call.arguments,
                "error",
                f"{call.tool}: the script ended before the call answered",
                0.0,
            )
        )
        self.pending[call_id] = asyncio.create_task(self.call(call, len(self.log) - 1))
        return {"future": ...}

    def unsent(
        self, call: ToolCall, outcome: Outcome, exc_type: str, reason: str
    ) -> dict[str, Any]:
        """Log a call that is not sent; the exception the script's call raises instead."""
        message = f"{call.tool}: {reason}; nothing was sent"
        self.log.append(CallRecord(call.tool, call.arguments, outcome, message, 0.0))
        return {"exc_type": exc_type, "message": message}

    def tool_call(self, name: str, kwargs: Mapping[str, Any]) -> ToolCall:
        hint = self.hints.get(name)
        if hint is None:  # MCP's defaults for a tool that says nothing
            return ToolCall(name, dict(kwargs), read_only=False, destructive=True, open_world=True)
        return ToolCall(name, dict(kwargs), hint.read_only, hint.destructive, hint.open_world)

    async def refusal(self, call: ToolCall) -> str | None:
        """Why the policy refuses this call, or None to run it."""
        if not (call.destructive or call.open_world):
            return None
        decision = self.approve(call) if callable(self.approve) else self.approve
        if inspect.isawaitable(decision):
            decision = await decision
        kind = " and ".join(
            word
            for word, on in (("destructive", call.destructive), ("open-world", call.open_world))
            if on
        )
        if decision == "allow":
            return None
        if decision == "ask" and self.ask is not None:
            granted = self.ask(call)
            if inspect.isawaitable(granted):
                granted = await granted
            return None if granted else f"the {kind} call was refused when asked"
        if decision == "ask":
            return f"the policy asks before {kind} calls and run_code was given no ask callback"
        if decision == "deny":
            return f"the policy denies {kind} calls"
        return f"the policy answered {decision!r}, not 'allow', 'deny' or 'ask'"

    async def call(self, call: ToolCall, line: int) -> dict[str, Any]:
        """Run one approved call through its code-mode function, fill in its log line; the settled
        answer for the script."""
        function = self.functions[call.tool]  # the sandbox's modules hold exactly these names
        started = time.perf_counter()
        try:
            value = await function(**call.arguments)
        except Exception as error:  # noqa: BLE001  # the script sees every failure as its call's error
            # code mode's own errors name the function already (`weather.search: the tool reported ...`)
            detail = (
                str(error) if str(error).startswith(f"{call.tool}: ") else f"{call.tool}: {error}"
            )
            self.log[line] = CallRecord(
                call.tool, call.arguments, "error", detail, time.perf_counter() - started
            )
            return {"exc_type": _sandbox_exception(error), "message": detail}
        self.log[line] = CallRecord(
            call.tool, call.arguments, "ok", "", time.perf_counter() - started
        )
        return {"return_value": value}

    def cancel_pending(self) -> None:
        for task in self.pending.values():
            task.cancel()


def _sandbox_exception(error: Exception) -> str:
    """The built-in exception the script sees for a call's error, so it can catch it by kind (one the
    sandbox's checker knows: it has no `PermissionError`)."""
    for kind in (TimeoutError, ValueError, LookupError):
        if isinstance(error, kind):
            return kind.__name__
    return "RuntimeError"


def _never_called(*args: Any, **kwargs: Any) -> Any:
    """The stub modules' functions as Monty holds them: every call is answered by `_Run.start` instead."""
    raise AssertionError("code-mode calls are answered by run_code")


def _message(error: Any) -> str:
    """Monty's own rendering of a script's error; a worker it killed (`MontyCrashedError`, met when
    a loaded machine lets a script outrun the time limit) has none, only its text."""
    display = getattr(error, "display", None)
    return str(display() if display is not None else error).strip()


_OVER_MEMORY = re.compile(r"MemoryError: memory limit exceeded: \d+ bytes > (\d+) bytes")


def _printed_past(message: str, limits: Limits) -> str:
    """Monty's message, unless it is the printing cap's: Monty says "memory limit exceeded" for a
    script that printed past `printed_bytes` too, which sends the script's author after its heap."""
    over = _OVER_MEMORY.search(message)
    if (
        over is None
        or int(over[1]) != limits.printed_bytes
        or limits.printed_bytes == limits.memory_bytes
    ):
        return message
    return _OVER_MEMORY.sub(
        f"MemoryError: the script printed more than limits.printed_bytes ({limits.printed_bytes:,} bytes); "
        "print less, and leave the answer as the last expression",
        message,
        count=1,
    )


def _import_monty() -> ModuleType:
    try:
        return importlib.import_module("pydantic_monty")
    except ImportError:
        raise SandboxUnavailableError(f"run_code needs the Monty sandbox: {INSTALL_HINT}") from None


def _sibling_code_mode() -> ModuleType:
    """The `code_mode` package generated beside this runtime folder."""
    name = f"{(__package__ or '').rpartition('.')[0]}.code_mode"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        raise SandboxError(
            f"run_code needs the code-mode package {name}: set code_mode = true under [tool.mcp-stubgen] "
            "(or generate --code-mode) and run mcp-stubgen sync"
        ) from None
