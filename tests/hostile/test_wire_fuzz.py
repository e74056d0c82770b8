"""A sweep of what a live server may send back, against a generated client and a connected hub:
whatever the answer (`tests/hostile/wire_strategies.py`: results mutated at any path, odd errors,
wrong ids, notifications and requests around it, an exit half-way through), a call returns a typed
value or raises a documented `StubgenClientError` (or the hub's `HubError`) in one line naming the
server or the tool, within its timeout, logs no traceback, and the session answers the next call.

`tests/servers/wire_fuzz_server.py` writes what each call's plan says, over stdio in both protocol
eras, and a subset over Streamable HTTP on 127.0.0.1. The examples are derandomized, so CI always
runs the same few; `MCP_STUBGEN_WIRE_FUZZ_EXAMPLES=5000` (and `MCP_STUBGEN_WIRE_FUZZ_SEED`) runs
a long sweep by hand (docs/development.md). What a sweep found has a plain test of its exact
answer below the sweeps.
"""

from __future__ import annotations

import functools
import importlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from mcp import StdioServerParameters

from tests.conftest import write_config
from tests.hostile.conftest import ERAS, SERVER
from tests.hostile.wire_strategies import ID, plans
from tests.servers.json_http import JsonHttpHandler
from tests.servers.wire_fuzz_server import reply

EXAMPLES = int(os.environ.get("MCP_STUBGEN_WIRE_FUZZ_EXAMPLES", "40"))
"""Over stdio (a quarter over HTTP): about 7 s of calls at 40, mostly timeouts. The long sweep sets it by hand."""
SEED = int(os.environ.get("MCP_STUBGEN_WIRE_FUZZ_SEED", "0"))
TIMEOUT = 0.25
"""The timeout of a call whose answer may never come (another id, none, an exit): short, since
waiting for it is most of what the sweep costs."""
DECIDED_TIMEOUT = 20.0
"""The timeout of a call whose answer decides it (`decidable`): reaching it is a defect, not load."""
SLACK = 15.0
"""How long past its timeout a call may take on a loaded machine before it counts as a hang."""
KINDS = ("tool", "typed", "prompt", "resource")
ROUTES = ("client", "hub", "confighub")
"""How the stdio sweep calls: a generated client, `Hub.connect`, and `Hub.connect_from_config`
(mcp-stubgen's own session)."""


def stdio(era: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-I", SERVER, "--era", era])


class TracebackCatcher(logging.Handler):
    """Every log record that carries an exception: the runtime warns in one line, never with a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.stack_info:
            self.records.append(f"{record.name}: {record.getMessage()}")


@contextmanager
def catching_tracebacks() -> Iterator[TracebackCatcher]:
    catcher = TracebackCatcher()
    root = logging.getLogger()
    root.addHandler(catcher)
    try:
        yield catcher
    finally:
        root.removeHandler(catcher)


@dataclass
class Sessions:
    """The connected clients and hub the examples share, over one blocking portal; a session whose
    server exited (its plan said so) is connected again before the next example."""

    packages: Any
    portal: BlockingPortal
    targets: dict[str, Any]
    """Each era's server: its `StdioServerParameters` or URL."""
    stacks: dict[str, ExitStack] = field(default_factory=dict)
    opened: dict[str, Any] = field(default_factory=dict)

    def client(self, era: str) -> Any:
        return self._open(era, lambda: self._client_class(era).connect(self.targets[era]))

    def hub(self) -> Any:
        return self._open("hub", lambda: self.packages.hub.Hub.connect(
            legacy_fuzz=self.targets["legacy"], modern_fuzz=self.targets["modern"]
        ))  # fmt: skip

    def config_hub(self) -> Any:
        """The hub as `Hub.connect_from_config` connects it: over mcp-stubgen's own session."""
        return self._open("confighub", lambda: self.packages.hub.Hub.connect_from_config(self.targets["config"]))

    def _client_class(self, era: str) -> Any:
        module = importlib.import_module(f"wirefuzz.{era}_fuzz")
        return getattr(module, f"{era.capitalize()}FuzzClient")

    def _open(self, name: str, connect: Callable[[], Any]) -> Any:
        if name not in self.opened:
            stack = ExitStack()
            self.opened[name] = stack.enter_context(self.portal.wrap_async_context_manager(connect()))
            self.stacks[name] = stack
        return self.opened[name]

    def close(self, name: str) -> str | None:
        """Close a session; what its closing raised, when that is not a typed error (a defect)."""
        self.opened.pop(name, None)
        stack = self.stacks.pop(name, None)
        if stack is None:
            return None
        try:
            stack.close()
        except self.packages.legacy_fuzz.StubgenClientError:
            return None
        except BaseException as error:  # what the sweep reports
            return f"closing {name} raised {type(error).__name__}: {error}"
        return None

    def close_all(self) -> list[str]:
        return [problem for name in list(self.opened) if (problem := self.close(name)) is not None]


@contextmanager
def sessions(packages: Any, targets: dict[str, Any]) -> Iterator[Sessions]:
    with start_blocking_portal() as portal:
        held = Sessions(packages, portal, targets)
        try:
            yield held
        finally:
            held.close_all()


def heard(progress: float, total: float | None, message: str | None) -> None:
    """A call's progress callback: what the server sent reaches it as MCP's types, or not at all."""
    assert isinstance(progress, float | int) and isinstance(total, float | int | None), (progress, total)
    assert isinstance(message, str | None), message


def send(held: Sessions, through: str, era: str, kind: str, plan: str, timeout: float) -> Any:
    """One call as planned, through a generated client (`client`) or the hub, with a timeout."""
    options = {"timeout": timeout, "on_progress": heard} if kind in ("tool", "typed") else {"timeout": timeout}
    if through in ("hub", "confighub"):
        hub = held.hub() if through == "hub" else held.config_hub()
        tool = "answer_typed" if kind == "typed" else "answer"
        return held.portal.call(
            functools.partial(hub.call, f"{era}_fuzz__{tool}", {"plan": plan}, call_options=options)
        )
    client = held.client(era)
    method = {"tool": client.answer, "typed": client.answer_typed, "prompt": client.prompt_answer}.get(
        kind, client.read_answer
    )
    return held.portal.call(functools.partial(method, plan=plan, call_options=options))


def outcome(held: Sessions, through: str, era: str, kind: str, plan: str, timeout: float) -> str:
    """What the call did: `returned`, or the name of the typed error it raised. Anything else, a
    message of more than one line or naming neither server nor tool, or a hang fails the test."""
    packages = held.packages
    typed = (packages.legacy_fuzz.StubgenClientError, packages.hub.HubError)
    started = time.monotonic()
    try:
        value = send(held, through, era, kind, plan, timeout)
    except typed as error:
        message = str(error)
        assert "\n" not in message and "\r" not in message, message
        assert f"{era}_fuzz" in message or "'answer" in message, message
        assert time.monotonic() - started < timeout + SLACK, f"{message}: took {time.monotonic() - started:.1f} s"
        return type(error).__name__
    assert time.monotonic() - started < timeout + SLACK
    read(packages, kind, through, value)
    return "returned"


def read(packages: Any, kind: str, through: str, value: Any) -> None:
    """A returned value is what the method promises, and reading it raises nothing untyped."""
    if through in ("hub", "confighub"):
        assert isinstance(value.content, list)
        return
    if kind == "tool":
        assert isinstance(value.text, str)
        with suppress(packages.legacy_fuzz.StubgenClientError):  # `.json()` of text that is not JSON
            value.json()
    elif kind == "typed":
        assert type(value).__name__ == "AnswerTypedOutput"
    elif kind == "prompt":
        assert isinstance(value.messages, list)
    else:
        assert isinstance(value.contents, list)


def decidable(plan: dict[str, Any]) -> bool:
    """Whether the answer line carries the call's id where a reader finds it, and the server stays:
    then an answer, an error or a refusal of the line must come at once. Over Streamable HTTP every
    answer is the body of its own request, so it always does."""
    try:
        answer = json.loads(plan["lines"][plan["answer"]].replace(ID, "-424242"))  # no id a plan holds
    except (ValueError, RecursionError):
        return False
    return plan["end"] == "stay" and isinstance(answer, dict) and answer.get("id") == -424242


def sweep(held: Sessions, through: str, era: str, kind: str, plan: dict[str, Any], restart: bool) -> None:
    """One fuzzed call, then a good one on the same session (or, after the server exited as
    planned, on the hub's other server and then on a new session)."""
    text = json.dumps(plan)
    decided = restart is False or decidable(plan)
    with catching_tracebacks() as caught:
        seen = outcome(held, through, era, kind, text, DECIDED_TIMEOUT if decided else TIMEOUT)
        assert not (decided and seen == "RequestTimeoutError"), "an answer the call could read waited for its timeout"
        ends = plan["end"] != "stay" and restart
        if ends and through != "client":
            other = "modern" if era == "legacy" else "legacy"
            assert outcome(held, "hub", other, kind, "", 30) == "returned", "the hub's other server stopped answering"
        if ends:
            problem = held.close(era if through == "client" else through)
            assert problem is None, problem
        assert outcome(held, through, era, kind, "", 30) == "returned", "the session broke"
    assert caught.records == [], caught.records


SUPPRESSED = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.large_base_example,
    HealthCheck.filter_too_much,
]


def fuzzed(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def apply(test: Callable[..., None]) -> Callable[..., None]:
        chosen = settings(max_examples=examples, derandomize=SEED == 0, database=None, suppress_health_check=SUPPRESSED)
        return seed(SEED)(chosen(test))

    return apply


def calls(routes: tuple[str, ...]) -> st.SearchStrategy[tuple[str, str, str, dict[str, Any]]]:
    return st.tuples(st.sampled_from(routes), st.sampled_from(ERAS), st.sampled_from(KINDS)).flatmap(
        lambda picked: st.tuples(*map(st.just, picked), plans("tool" if picked[2] == "typed" else picked[2], picked[1]))
    )


def test_any_answer_over_stdio_is_a_value_or_a_typed_error(wirefuzz: Any, tmp_path: Path) -> None:
    config = write_config(tmp_path, "".join(
        f"[tool.mcp-stubgen.servers.{era}_fuzz]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(['-I', SERVER, '--era', era])}\n"
        for era in ERAS
    ))  # fmt: skip
    with sessions(wirefuzz, {**{era: stdio(era) for era in ERAS}, "config": config}) as held:

        @fuzzed(EXAMPLES)
        @given(calls(ROUTES))
        def call(picked: tuple[str, str, str, dict[str, Any]]) -> None:
            through, era, kind, plan = picked
            if through != "client" and kind in ("prompt", "resource"):
                through = "client"  # the hub calls tools alone
            sweep(held, through, era, kind, plan, restart=True)

        call()
        assert held.close_all() == []


@pytest.fixture(scope="module")
def fuzz_http() -> Iterator[str]:
    """The fuzz server's answers over Streamable HTTP on 127.0.0.1 (a JSON body: a plan's answer line,
    cut short when the plan says so); the era is the URL's last part."""

    class Handler(JsonHttpHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            lines, end = reply(self.path.rsplit("/", 1)[-1], message)
            body = [line for line in lines if '"result"' in line or '"error"' in line][-1:] or lines[-1:]
            if not body:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = body[0].encode("utf-8", "surrogatepass")
            if end == "cut":
                data = data[: len(data) // 2]
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


def test_any_answer_over_streamable_http_is_a_value_or_a_typed_error(wirefuzz: Any, fuzz_http: str) -> None:
    with sessions(wirefuzz, {era: f"{fuzz_http}/{era}" for era in ERAS}) as held:

        @fuzzed(max(EXAMPLES // 4, 5))
        @given(calls(("client", "hub")))
        def call(picked: tuple[str, str, str, dict[str, Any]]) -> None:
            through, era, kind, plan = picked
            if through == "hub" and kind in ("prompt", "resource"):
                through = "client"
            sweep(held, through, era, kind, plan, restart=False)

        call()
        assert held.close_all() == []


def planned(*lines: str, end: str = "stay") -> str:
    return json.dumps({"lines": list(lines), "end": end})


@pytest.mark.parametrize("jsonrpc", ["null", '"1.0"', "{}"])
async def test_an_answer_with_the_right_id_that_is_not_json_rpc_2_fails_its_call_at_once(
    wirefuzz: Any, jsonrpc: str
) -> None:
    """An answer carrying the call's id whose `jsonrpc` is not "2.0": the SDK drops the line, and the
    call waited for its timeout, or for ever without one (the sweep found it). Now it fails at once,
    saying what is wrong, and the session goes on, through a generated client and a hub."""
    plan = planned(f'{{"jsonrpc": {jsonrpc}, "id": __ID__, "result": {{"content": []}}}}')
    expected = (
        "server '{era}_fuzz': tool 'answer' failed: its answer is not JSON-RPC 2.0 "
        '(its "jsonrpc" is not "2.0") (code -32700)'
    )
    with anyio.fail_after(20):
        async with wirefuzz.legacy_fuzz.LegacyFuzzClient.connect(stdio("legacy")) as client:
            with pytest.raises(wirefuzz.legacy_fuzz.ServerError) as refused:
                await client.answer(plan=plan)
            assert str(refused.value) == expected.format(era="legacy")
            assert (await client.answer(plan="")).text == "ok"
        async with wirefuzz.hub.Hub.connect(modern_fuzz=stdio("modern")) as hub:
            with pytest.raises(wirefuzz.hub.ServerError) as refused:
                await hub.call("modern_fuzz__answer", {"plan": plan})
            assert str(refused.value) == expected.format(era="modern")
            assert (await hub.call("modern_fuzz__answer", {"plan": ""})).content[0].text == "ok"


async def test_an_answer_with_a_member_nested_past_pythons_depth_fails_its_call_at_once(
    wirefuzz: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A line with the call's id and a member nested 5,000 deep before any `result`: the SDK cannot
    parse it, and the runtime's reading of its first members for the id raised `RecursionError`,
    which the SDK logged with a traceback (the sweep found it); then the line was one warning and
    the call waited out its timeout, its first members saying nothing of a result. Its top-level
    members are read past the nesting now: the id without a `method` is the call's answer, which fails
    at once, in one line, and the session goes on."""
    from codegen.runtime._stdio import answered_id

    deep = "[" * 5000 + "]" * 5000
    assert answered_id('{"jsonrpc": "2.0", "id": 7, "extra": ' + deep[:4000], "") is None
    plan = planned(f'{{"jsonrpc": "2.0", "id": __ID__, "extra": {deep}}}')
    with caplog.at_level(logging.WARNING), anyio.fail_after(20):
        async with wirefuzz.legacy_fuzz.LegacyFuzzClient.connect(stdio("legacy")) as client:
            with pytest.raises(wirefuzz.legacy_fuzz.ServerError, match="its answer is not JSON the MCP SDK reads"):
                await client.answer(plan=plan, call_options={"timeout": 15})
            assert (await client.answer(plan="")).text == "ok"
    assert [record.getMessage() for record in caplog.records if record.exc_info] == []


async def test_an_answer_nested_too_deep_before_its_id_fails_its_call_not_a_hub_connected_from_config(
    wirefuzz: Any, tmp_path: Path
) -> None:
    """A `jsonrpc` member nested 5,000 deep before the id: read from its first members alone, nothing
    in the line said it is an answer, so mcp-stubgen's own session, which a hub connected from the
    config holds, ended on it, and with it every tool of the server (the config hub's sweep, seed 5).
    Its top-level members are read past the nesting now: it fails its call, and the server's next
    call is answered."""
    config = write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.legacy_fuzz]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(['-I', SERVER, '--era', 'legacy'])}\n",
    )
    deep = "[" * 5000 + "]" * 5000
    plan = planned(f'{{"jsonrpc": {deep}, "id": __ID__, "result": {{"content": []}}}}')
    with anyio.fail_after(30):
        async with wirefuzz.hub.Hub.connect_from_config(config, servers=["legacy_fuzz"]) as hub:
            with pytest.raises(wirefuzz.hub.ServerError, match="its answer is not JSON the MCP SDK reads"):
                await hub.call("legacy_fuzz__answer", {"plan": plan})
            assert (await hub.call("legacy_fuzz__answer", {"plan": ""})).content[0].text == "ok"


LONE_SURROGATE = (
    '{"jsonrpc": "2.0", "id": __ID__, "result": {"content": [{"type": "text", "text": "half \\ud83d"}], '
    '"messages": [{"role": "user", "content": {"type": "text", "text": "ok"}}], "contents": [{"uri": "fuzz:///", '
    '"text": "half \\ud83d"}]}}'
)
UNREADABLE = {
    "surrogate": (
        LONE_SURROGATE,
        "its answer is not JSON the MCP SDK reads: /result/content/0/text holds a lone UTF-16 surrogate (half of "
        "a character, such as an emoji cut in two); the server has to send whole characters (code -32700)",
    ),
    "deep": (
        '{"jsonrpc": "2.0", "id": __ID__, "result": {"content": ' + "[" * 5000 + "]" * 5000 + "}}",
        "its answer is not JSON the MCP SDK reads: it is nested deeper than 200 levels; the server has to send a "
        "flatter answer (code -32700)",
    ),
}


@pytest.mark.parametrize("route", ["connect", "config"])
async def test_a_hub_names_what_makes_an_answer_unreadable_for_a_call_a_prompt_and_a_resource(
    wirefuzz: Any, tmp_path: Path, route: str
) -> None:
    """An answer holding a lone surrogate, or nested past the SDK's parser's depth: through a hub
    (`Hub.connect`, and `Hub.connect_from_config` over mcp-stubgen's own session) a tool call, a
    prompt get and a resource read failed in the SDK parser's words (`Invalid JSON: unexpected end
    of hex escape at line 1 column 84`, `recursion limit exceeded`); now in one line of ours, as
    `snapshot` names them: what is wrong, where, and what the server has to do."""
    config = write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.modern_fuzz]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(['-I', SERVER, '--era', 'modern'])}\n",
    )
    hub_class = wirefuzz.hub.Hub
    connected = hub_class.connect(modern_fuzz=stdio("modern")) if route == "connect" else (
        hub_class.connect_from_config(config, servers=["modern_fuzz"])
    )  # fmt: skip
    with anyio.fail_after(60):
        async with connected as hub:
            for line, said in UNREADABLE.values():
                plan = planned(line)
                requests = {
                    "tool 'answer": hub.call("modern_fuzz__answer", {"plan": plan}),
                    "prompt 'answer": hub.modern_fuzz.prompt_answer(plan=plan),
                    "resource 'fuzz:///": hub.modern_fuzz.read_answer(plan=plan),
                }
                for what, request in requests.items():
                    with pytest.raises(wirefuzz.hub.ServerError) as refused:
                        await request
                    message = str(refused.value)
                    assert message.startswith(f"server 'modern_fuzz': {what}"), message
                    assert message.endswith(f"' failed: {said}"), message
            assert (await hub.call("modern_fuzz__answer", {"plan": ""})).content[0].text == "ok"


async def test_a_deep_answer_sent_twice_fails_its_call_once_and_not_the_next(wirefuzz: Any) -> None:
    """An answer with an `annotations` member nested 5,000 deep between its id and its error, sent
    twice (the sweep, seed 5): its id is read past the nesting, so the call fails at once and the
    second copy is a stray answer, never the next call's."""
    deep = "[" * 5000 + "]" * 5000
    main = f'{{"jsonrpc": "2.0", "id": __ID__, "annotations": [1, {deep}], "error": {{"a": 1}}}}'
    with anyio.fail_after(20):
        async with wirefuzz.modern_fuzz.ModernFuzzClient.connect(stdio("modern")) as client:
            with pytest.raises(wirefuzz.modern_fuzz.ServerError, match="its answer is not JSON the MCP SDK reads"):
                await client.answer(plan=planned(main, main), call_options={"timeout": 15})
            assert (await client.answer(plan="")).text == "ok"


NEITHER = '{"jsonrpc": "2.0", "id": __ID__}'


@pytest.mark.parametrize(
    ("lines", "warning"),
    [
        ([NEITHER, NEITHER], "an answer to request"),
        (['{"jsonrpc": "2.0", "id": {}, "result": {}}', NEITHER], "an answer whose id no request has ({})"),
    ],
    ids=["twice", "object-id"],
)
async def test_an_unreadable_answer_no_call_waits_for_does_not_end_a_hub_connected_from_config(
    wirefuzz: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture, lines: list[str], warning: str
) -> None:
    """An answer holding neither a result nor an error, sent twice, or one whose id is an object:
    the answer the call waits for fails it; the other, which no request waits for, reached the
    message handler of mcp-stubgen's own session, which ends on an unreadable line, so every later
    call of the server failed (the sweep found both). Now it is one warning, as a readable stray
    answer is, and the hub's session goes on."""
    config = write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.legacy_fuzz]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(['-I', SERVER, '--era', 'legacy'])}\n",
    )
    with caplog.at_level(logging.WARNING), anyio.fail_after(30):
        async with wirefuzz.hub.Hub.connect_from_config(config, servers=["legacy_fuzz"]) as hub:
            with pytest.raises(wirefuzz.hub.ServerError, match="its answer holds neither a result object nor an error"):
                await hub.call("legacy_fuzz__answer", {"plan": planned(*lines)})
            assert (await hub.call("legacy_fuzz__answer", {"plan": ""})).content[0].text == "ok"
    assert any(warning in record.getMessage() for record in caplog.records)


async def test_a_notification_the_sdk_cannot_read_does_not_end_a_hub_connected_from_config(
    wirefuzz: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A log message whose data holds a lone surrogate, before a call's answer: through `Hub.connect`
    it is one warning; through `Hub.connect_from_config` mcp-stubgen's own session ended on it (the
    call failed with "Connection closed", and leaving the block raised `HubError` saying the server
    "could not connect"; the sweep found it). Now it is one warning naming the server and what is
    wrong there too, and the session goes on."""
    config = write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.legacy_fuzz]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(['-I', SERVER, '--era', 'legacy'])}\n",
    )
    log = '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "\\ud800"}}'
    with caplog.at_level(logging.WARNING), anyio.fail_after(30):
        async with wirefuzz.hub.Hub.connect_from_config(config, servers=["legacy_fuzz"]) as hub:
            await hub.call(
                "legacy_fuzz__answer", {"plan": planned(log, NEITHER.replace("}", ', "result": {"content": []}}'))}
            )
            assert (await hub.call("legacy_fuzz__answer", {"plan": ""})).content[0].text == "ok"
    warnings = [record.getMessage() for record in caplog.records if "lone UTF-16 surrogate" in record.getMessage()]
    assert len(warnings) == 1 and "'legacy_fuzz'" in warnings[0] and "left out" in warnings[0], warnings
