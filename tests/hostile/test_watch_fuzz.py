"""What a live server does to `watch` and to a hub connected from the config over time.

Hypothesis draws a sequence of steps the server takes (`steps`): it changes its catalog (paged with
cursors now and then) and sends `notifications/tools/list_changed`, one, a storm of 50, a flood
(before every listing's answer) or none; it answers the re-list with an error, a page that is not
valid MCP, a lone surrogate or a line nested 5,000 deep, or exits in the middle of it; it restarts.
The fuzz server (`tests/servers/wire_fuzz_server.py --live`, and `FuzzHttp` over Streamable HTTP on
127.0.0.1) reads each step's plans as they come. After each step, once `watch` is quiet again, its
snapshot and package are byte for byte what `snapshot` + `generate` of the server's current catalog
write, or, when the step gave it a bad listing or nothing to hear, the ones it had; it printed each
problem in one line naming the server, re-listed no more than once a burst (once a second in a
flood), and exits 0 on SIGTERM. A hub connected from the config sees each new catalog
(`hub_over_time`, `check_hub`). CI runs a few derandomized examples; `MCP_STUBGEN_WIRE_FUZZ_EXAMPLES`
and `MCP_STUBGEN_WIRE_FUZZ_SEED` run a long sweep by hand (docs/development.md).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.runtime._hub_catalog import qualified_name
from tests.hostile.test_cli_wire_fuzz import FuzzHttp, answer, cli, project, tree
from tests.hostile.test_wire_fuzz import EXAMPLES, catching_tracebacks, fuzzed
from tests.servers.wire_fuzz_server import LISTS, MODERN_FIELDS, TOOLS, listed
from tests.test_watch import Watcher

INTERVAL = 0.3
"""`watch --interval`: how often it pings a legacy server (the steps' notifications ride on the
answer) and re-lists a polled one."""
QUIET_LIMIT = 60.0
"""How long `watch` may take to settle after a step before it counts as a hang."""
SCHEMA = TOOLS[0]["inputSchema"]
EXTRAS = {
    "answer_typed": TOOLS[1],
    "more": {"name": "more", "description": "One more tool.", "inputSchema": {"type": "object"}},
    "a-b": {"name": "a-b", "description": "A dashed name.", "inputSchema": SCHEMA},
    "A.b": {"name": "A.b", "description": "A dotted name.", "inputSchema": SCHEMA},
    "class": {"name": "class", "description": "A keyword.", "inputSchema": SCHEMA},
}
"""The tools a catalog may add to `answer`, which it always has (a hub's steps ride on its calls)."""
DESCRIPTIONS = ["Answer as planned.", "Answer as planned, now faster.", "Answer: as planned\n\nsecond paragraph."]
NOTIFYING = {kind: {"listChanged": True} for kind in ("tools", "resources", "prompts")}
"""The server's capabilities: every kind it lists notifies of changes, so a legacy session is not
polled (a 2026-07-28 one is: the fuzz server refuses `subscriptions/listen`)."""
CHANGED = '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}'
STORM = "\n".join([CHANGED] * 50)
FLOOD_SECONDS = 2.5
RELIST_INTERVAL = 1.0
"""The fewest seconds between two re-lists of one server, however often it says its tools changed
(docs/watch.md, docs/hub.md)."""
DEEP = "[" * 5000 + "]" * 5000
FAULTS = {
    "error": '{"jsonrpc": "2.0", "id": __ID__, "error": {"code": -32603, "message": "database unavailable"}}',
    "malformed": '{"jsonrpc": "2.0", "id": __ID__, "result": {ERA"tools": "none"}}',
    "surrogate": '{"jsonrpc": "2.0", "id": __ID__, "result": {ERA"tools": [{"name": "\\ud800", "inputSchema": {}}]}}',
    "deep": '{"jsonrpc": "2.0", "id": __ID__, "result": {ERA"tools": ' + DEEP + "}}",
    "exit": "",
}
"""How the first `tools/list` after a step may be answered badly (`ERA`: the 2026-07-28 result fields,
so that what is wrong is the fault alone); `exit`: not at all, the server ends (over HTTP its answer
is cut short)."""


@dataclass(frozen=True)
class Step:
    """One thing the server does: its catalog from now on (`answer`, the `EXTRAS` named, a description,
    `page` tools a page), how it tells, how it answers the re-list, whether it restarts."""

    tools: tuple[str, ...]
    description: str
    page: int | None
    notify: str
    """`one` list_changed, a `storm` of 50, a `flood` (one before every `tools/list` answer, for
    `FLOOD_SECONDS`: a server that says its tools changed whenever they are listed), or `none`."""
    fault: str | None
    restart: bool

    def catalog(self) -> dict[str, Any]:
        tools = [{**TOOLS[0], "description": self.description}, *(EXTRAS[name] for name in self.tools)]
        paged = {} if self.page is None else {"page": self.page}
        return {"capabilities": NOTIFYING, "catalog": {"tools/list": tools}} | paged

    def heard(self, era: str) -> bool:
        """Whether `watch` learns of the step: a notification, a polled server, a reconnection."""
        return self.notify != "none" or self.restart or era == "modern"


def steps(era: str, faults: list[str | None], restarts: bool) -> st.SearchStrategy[list[Step]]:
    """One to four steps; a legacy step whose re-list is answered badly is always notified (else its
    plan would wait for ever: watch re-lists a legacy server only when told)."""
    step = st.builds(
        Step,
        st.lists(st.sampled_from(sorted(EXTRAS)), unique=True, max_size=3).map(tuple),
        st.sampled_from(DESCRIPTIONS),
        st.sampled_from([None, None, 1, 2]),
        st.sampled_from(["one", "one", "storm", "flood", "none"]),
        st.sampled_from(faults),
        st.integers(0, 7).map(lambda roll: restarts and roll == 0),
    ).map(lambda drawn: drawn if drawn.heard(era) or drawn.fault is None else replace(drawn, notify="one"))
    return st.lists(step, min_size=1, max_size=4)


def runs(faults: list[str | None], restarts: bool) -> st.SearchStrategy[tuple[str, list[Step]]]:
    """An era, and the steps of a server of that era."""
    return st.sampled_from(["legacy", "modern"]).flatmap(
        lambda era: st.tuples(st.just(era), steps(era, faults, restarts))
    )


class LiveServer:
    """The fuzz server a watch (or a hub) holds, over stdio (`--live`, its plans file and request log
    in `folder`) or `http`: the test sets each step's plans and reads which requests came."""

    def __init__(self, folder: Path, transport: str, era: str, http: FuzzHttp) -> None:
        self.folder, self.transport, self.era, self.http = folder, transport, era, http
        self.log = folder / "requests.log"

    def configure(self, plans: dict[str, Any], timeout: float = 2, name: str = "fuzz") -> Path:
        self.log.touch()
        return project(self.folder, self.transport, self.era, plans, self.http, timeout, self.log, name)

    def set(self, plans: dict[str, Any]) -> None:
        if self.transport == "http":
            self.http.plans = json.loads(json.dumps(plans))
            return
        path = self.folder / "plans.json"
        (self.folder / "plans.next").write_text(json.dumps(plans), encoding="utf-8")
        (self.folder / "plans.next").replace(path)

    def pending(self) -> bool:
        """Whether a plan of the step is still to be taken."""
        plans = self.http.plans if self.transport == "http" else json.loads((self.folder / "plans.json").read_text())
        return any(isinstance(value, list) and value for value in plans.values())

    def requests(self) -> list[str]:
        if self.transport == "http":
            return list(self.http.requests)
        return self.log.read_text(encoding="utf-8").splitlines()


def step_plans(step: Step, era: str, transport: str) -> dict[str, Any]:
    """The server's plans for a step: its new catalog, the notifications on the answer to the next
    ping (legacy) or `tools/list` (a polled 2026-07-28 server), the bad answer of the re-list (to its
    second page when it is paged), and an exit (a restart: the next session is a new server)."""
    plans = step.catalog()
    notes = notifications(step)
    if step.notify == "flood":
        plans["asides"] = {"tools/list": [CHANGED]}
    ending = "cut" if transport == "http" else "exit"
    page = listed("tools/list", {}, plans)
    first = answer(page, era)
    # a listing of more than one page is answered badly on its second
    before_fault = [{"lines": [first], "end": "stay"}] if "nextCursor" in page else []
    if era == "legacy":
        carrier = [*notes, answer({}, era)]
        if notes or step.restart:
            plans["ping"] = [{"lines": carrier, "end": ending if step.restart else "stay"}]
        if step.fault is not None:
            plans["tools/list"] = [*before_fault, bad_answer(step.fault, ending, era)]
        return plans
    if step.fault is not None:
        plans["tools/list"] = [*before_fault, bad_answer(step.fault, ending, era)]
    else:
        plans["tools/list"] = [{"lines": [first], "end": "stay"}]
    plans["tools/list"][0]["lines"][:0] = notes
    if step.restart:
        plans["tools/list"][-1]["end"] = ending
    return plans


def notifications(step: Step) -> list[str]:
    """The lines that tell of the step's change."""
    return {"one": [CHANGED], "storm": [STORM], "flood": [CHANGED], "none": []}[step.notify]


def bad_answer(fault: str, ending: str, era: str) -> dict[str, Any]:
    if fault == "exit":
        return {"lines": [answer({"tools": []}, era)] if ending == "cut" else [], "end": ending}
    fields = json.dumps(MODERN_FIELDS)[1:-1] + ", " if era == "modern" else ""
    return {"lines": [FAULTS[fault].replace("ERA", fields)], "end": "stay"}


def wait_taken(server: LiveServer, watcher: Watcher) -> None:
    deadline = time.monotonic() + QUIET_LIMIT
    while server.pending():
        assert time.monotonic() < deadline, f"the step's plans were never taken:\n{''.join(watcher.stderr)}"
        assert watcher.process.poll() is None, "watch exited"
        time.sleep(0.05)


def wait_quiet(server: LiveServer, era: str, watcher: Watcher) -> int:
    """Wait until the step's plans are taken and the watch has finished what they caused: a ping
    (legacy) or the start of a second whole listing (polled) after that. The log's length then."""
    wait_taken(server, watcher)
    deadline = time.monotonic() + QUIET_LIMIT
    taken = len(server.requests())
    while True:
        later = server.requests()[taken:]
        if ("ping" in later) if era == "legacy" else later.count("tools/list") >= 2:
            return len(server.requests())
        assert time.monotonic() < deadline, f"watch never settled:\n{''.join(watcher.stderr)}"
        assert watcher.process.poll() is None, "watch exited"
        time.sleep(0.05)


class Reference:
    """What `snapshot` + `generate` write for a catalog, in a copy of the project as it is: a fresh
    run against a server that answers the catalog well (same transport and era), remembered."""

    def __init__(self, folder: Path, transport: str, era: str, http: FuzzHttp) -> None:
        self.folder, self.transport, self.era, self.http = folder, transport, era, http
        self.runs = 0
        self.seen: dict[tuple[str, str], dict[str, bytes]] = {}

    def of(self, catalog: dict[str, Any], project_folder: Path) -> dict[str, bytes]:
        now = tree(project_folder)
        key = (
            json.dumps(catalog["catalog"], sort_keys=True),
            hashlib.sha256(repr(sorted(now.items())).encode()).hexdigest(),
        )
        if key not in self.seen:
            self.runs += 1
            folder = self.folder / f"reference-{self.runs}"
            for top in ("snapshots", "clients"):
                shutil.copytree(project_folder / top, folder / top)
            project(folder, self.transport, self.era, catalog, self.http)
            for command in ("snapshot", "generate"):
                code, stderr, _seconds = cli(folder, command)
                assert code == 0, f"the reference {command} failed: {stderr}"
            self.seen[key] = tree(folder)
        return self.seen[key]


def relists(requests: list[str]) -> int:
    return requests.count("tools/list")


def handshakes(requests: list[str]) -> int:
    return sum(request in ("initialize", "server/discover") for request in requests)


def clear_lines(stderr: str) -> None:
    """Every line `watch` printed: a note of the server's, or one `error:`/`warning:` line naming it."""
    assert "Traceback" not in stderr, stderr
    for line in stderr.splitlines():
        assert line.startswith(("fuzz: ", "error: server 'fuzz'", "warning: ", "stopped after")), stderr
        if line.startswith("warning: "):
            assert "'fuzz'" in line or "fuzz:" in line, line


def watch_over_time(tmp_path: Path, transport: str, era: str, drawn: list[Step], http: FuzzHttp, ref: FuzzHttp) -> None:
    """A synced project whose server takes the `drawn` steps while `watch` runs (`http`, `ref`: the
    watched server's and the reference's, when over HTTP)."""
    folder = tmp_path / f"run-{time.monotonic_ns()}"
    folder.mkdir()
    server = LiveServer(folder, transport, era, http)
    server.configure({"capabilities": NOTIFYING})
    assert cli(folder, "sync")[0] == 0
    reference = Reference(folder, transport, era, ref)
    watcher = Watcher(folder, "--interval", str(INTERVAL))
    try:
        watcher.wait_for("fuzz: watching")
        last = tree(folder)
        for step in drawn:
            start, started = len(server.requests()), time.monotonic()
            server.set(step_plans(step, era, transport))
            if step.notify == "flood":  # once the step's plans are taken, nothing else writes them
                wait_taken(server, watcher)
                time.sleep(FLOOD_SECONDS)
                server.set(step.catalog())
            end = wait_quiet(server, era, watcher)
            window, seconds = server.requests()[start:end], time.monotonic() - started
            now = tree(folder)
            expected = [reference.of(step.catalog(), folder)] if step.heard(era) else []
            if step.fault is not None or not step.heard(era):
                expected.append(last)
            assert now in expected, f"{step}: the published files are neither the catalog's nor the last ones"
            # a burst is one re-list, a flood one a second, plus the first listing of each new session
            if step.notify == "flood":
                assert relists(window) <= 2 + handshakes(window) + seconds / RELIST_INTERVAL, f"{step}: {window}"
            elif era == "legacy":
                assert relists(window) <= 1 + handshakes(window), f"{step}: {window}"
            last = now
        watcher.process.terminate()
        code, _stdout, stderr = watcher.finish()
    finally:
        watcher.process.kill()
    assert code == 0, stderr
    clear_lines(stderr)


@pytest.fixture(scope="module")
def two_http() -> Iterator[tuple[FuzzHttp, FuzzHttp]]:
    servers = FuzzHttp(), FuzzHttp()
    try:
        yield servers
    finally:
        for server in servers:
            server.close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_watch_follows_a_server_that_changes_over_time(
    tmp_path: Path, two_http: tuple[FuzzHttp, FuzzHttp], transport: str
) -> None:
    """`watch` of a server whose steps hypothesis draws, in both eras: one in 20 of
    `MCP_STUBGEN_WIRE_FUZZ_EXAMPLES` per transport (CI: 2)."""

    @fuzzed(max(EXAMPLES // 20, 2))
    @given(runs([None, None, None, *FAULTS], restarts=True))
    def run(picked: tuple[str, list[Step]]) -> None:
        era, drawn = picked
        watch_over_time(tmp_path, transport, era, drawn, *two_http)

    run()


def test_the_server_lists_its_catalog_in_pages() -> None:
    """The `--live` server's catalog, paged as a step says."""
    plans = Step(("more",), "d", 1, "one", None, False).catalog()
    first = listed("tools/list", {}, plans)
    assert [tool["name"] for tool in first["tools"]] == ["answer"] and first["nextCursor"] == "1"
    assert listed("tools/list", {"cursor": "1"}, plans) == {"tools": [EXTRAS["more"]]}
    assert listed("prompts/list", {}, plans) == LISTS["prompts/list"]


HUB_FAULTS = [None, None, None, "error", "malformed", "surrogate", "deep"]
"""A hub connected from the config keeps a stdio server that exits ended (its calls fail): no exits."""


def hub_sees(hub: Any) -> set[str]:
    """The qualified names of the tools a server lists, as the hub last listed them: callable, added
    (in every `live_tools` mode) or left out."""
    difference = hub.difference()
    left_out = {qualified_name(left.server, left.tool) for left in difference.left_out}
    return set(hub.live_tools) | set(difference.added) | left_out


async def hub_over_time(package: Any, hub: Any, server: LiveServer, era: str, drawn: list[Step]) -> None:
    """Each step's catalog rides in with the notifications before the answer to a call of `answer`
    (a 2026-07-28 server too: the fuzz server refuses `subscriptions/listen`, so the hub follows
    `list_changed`); once the hub has re-listed, its live catalog is the server's (or, after a bad
    re-list or none, the last one), re-listed at most once a second, and `check_hub` holds."""
    name = f"{era}_fuzz"
    seen = {qualified_name(name, "answer"), qualified_name(name, "answer_typed")}
    offered = set(seen)
    for step in drawn:
        plans = step.catalog()
        if step.fault is not None:
            plans["tools/list"] = [bad_answer(step.fault, "stay", era)]
        if step.notify == "flood":
            plans["asides"] = {"tools/list": [CHANGED]}
        server.set(plans)
        started, start = time.monotonic(), len(server.requests())
        reply = answer({"content": [{"type": "text", "text": "ok"}]}, era)
        lines = [*notifications(step), reply]
        called = await hub.call(f"{name}__answer", {"plan": json.dumps({"lines": lines, "end": "stay"})})
        assert called.content[0].text == "ok"
        new = {qualified_name(name, tool) for tool in ("answer", *step.tools)}
        possible = [seen] if step.notify == "none" else [new] + ([seen] if step.fault else [])
        deadline = time.monotonic() + (0.5 if step.notify == "none" else QUIET_LIMIT)
        while True:
            now = hub_sees(hub)
            relisted = "tools/list" in server.requests()[start:] and not server.pending()
            if (relisted and now == new) or time.monotonic() > deadline:
                break
            if relisted and step.fault is not None and time.monotonic() > started + 2:
                break  # a bad re-list keeps the last listing: give a second re-list its chance first
            await anyio.sleep(0.05)
        assert now in possible, f"{step}: the hub sees {sorted(now)}"
        seen = now
        seconds = time.monotonic() - started
        assert relists(server.requests()[start:]) <= 2 + seconds, f"{step}: re-listed more than once a second"
        await check_hub(package, hub, name, offered)


async def check_hub(package: Any, hub: Any, name: str, offered: set[str]) -> None:
    """`search_tools` finds only tools the hub shows the model, which it can call; every tool it can
    call answers; each it could call before (`answer_typed` of the snapshot, or one added live) and
    no longer can, and one added live that `live_tools` keeps from calls, is refused in one line
    naming it (and the server, for one removed). Adds what it can call now to `offered`."""
    found = await hub.call("search_tools", {"query": "answer planned tool name", "limit": 20, "detail": "names"})
    names = {entry for group in found.structured_content["servers"] for entry in group["tools"]}
    shown = {definition["name"] for definition in hub.tool_definitions()}
    live = set(hub.live_tools)
    assert names <= shown <= live, f"search_tools found {sorted(names)}; shown {sorted(shown)}; live {sorted(live)}"
    for qualified, tool in sorted(hub.live_tools.items()):
        result = await hub.call(qualified, {"plan": ""} if "plan" in tool.input_schema.get("properties", {}) else {})
        assert not result.is_error, qualified
    for qualified in sorted((offered - live) | (set(hub.difference().added) - live)):
        with pytest.raises(package.UnknownQualifiedToolError) as refused:
            await hub.call(qualified, {"plan": ""})
        message = str(refused.value)
        assert "\n" not in message and repr(qualified) in message, message
        assert qualified not in offered or f"its server '{name}' no longer lists it" in message, message
    offered |= live


@pytest.fixture(scope="module")
def hub_http() -> Iterator[FuzzHttp]:
    server = FuzzHttp()
    try:
        yield server
    finally:
        server.close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_hub_connected_from_the_config_follows_a_server_that_changes_over_time(
    wirefuzz: Any, tmp_path: Path, hub_http: FuzzHttp, transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    """`Hub.connect_from_config` of a server whose steps hypothesis draws, in both eras: one in 10 of
    `MCP_STUBGEN_WIRE_FUZZ_EXAMPLES` per transport (CI: 4)."""

    @fuzzed(max(EXAMPLES // 10, 4))
    @given(runs(HUB_FAULTS, restarts=False), st.sampled_from(["ignore", "callable", "offer", "offer"]))
    def run(picked: tuple[str, list[Step]], live_tools: str) -> None:
        era, drawn = picked
        folder = tmp_path / f"hub-{time.monotonic_ns()}"
        folder.mkdir()
        server = LiveServer(folder, transport, era, hub_http)
        config = server.configure({"capabilities": NOTIFYING}, name=f"{era}_fuzz")

        async def follow() -> None:
            with anyio.fail_after(QUIET_LIMIT * (len(drawn) + 1)):
                hub = wirefuzz.hub.Hub.connect_from_config(config, servers=[f"{era}_fuzz"], live_tools=live_tools)
                async with hub as connected:
                    await hub_over_time(wirefuzz.hub, connected, server, era, drawn)

        with catching_tracebacks() as caught:
            anyio.run(follow)
        assert caught.records == [], caught.records

    with caplog.at_level(logging.WARNING):
        run()
    for record in caplog.records:  # a bad re-list is logged in one line naming the server
        message = record.getMessage()
        assert "\n" not in message and ("'legacy_fuzz'" in message or "'modern_fuzz'" in message), message


def test_a_server_that_says_its_tools_changed_whenever_they_are_listed_is_listed_once_a_second(
    tmp_path: Path, two_http: tuple[FuzzHttp, FuzzHttp]
) -> None:
    """A legacy server that sends `tools/list_changed` before every `tools/list` answer: `watch`
    settled each notification for 0.2 s and listed again, one listing after another for as long as
    it ran (10 in 3 s; the sweep's flood found it), where a hub lists such a server once a second.
    Now `watch` settles as the hub does (over Streamable HTTP too: the sweep's flood steps)."""
    server = LiveServer(tmp_path, "stdio", "legacy", two_http[0])
    server.configure({"capabilities": NOTIFYING})
    assert cli(tmp_path, "sync")[0] == 0
    server.set({"capabilities": NOTIFYING, "asides": {"tools/list": [CHANGED]}})
    watcher = Watcher(tmp_path, "--interval", "60")
    try:
        watcher.wait_for("fuzz: watching")
        listed_from = len(server.requests())
        time.sleep(3)
        assert relists(server.requests()[listed_from:]) <= 4, server.requests()
        watcher.process.terminate()
        code, _stdout, stderr = watcher.finish()
    finally:
        watcher.process.kill()
    assert code == 0, stderr
    assert relists(server.requests()) >= 3, "the server's notifications were not heard"


async def test_a_tool_added_live_that_the_server_removes_is_refused_as_removed(
    wirefuzz: Any, tmp_path: Path, hub_http: FuzzHttp
) -> None:
    """A tool the server added after the snapshot (offered live), then removed: calling it said "the
    hub has no tool 'legacy_fuzz__more' (it has 2 tools: see Hub.tools)", as for a name never seen,
    though the hub had just offered it (the hub's sweep found it). Now it says the server no longer
    lists it, as for a snapshot tool the server removed."""
    server = LiveServer(tmp_path, "stdio", "legacy", hub_http)
    plans = Step(("more",), DESCRIPTIONS[0], None, "one", None, False).catalog()
    config = server.configure(plans, name="legacy_fuzz")
    ok = answer({"content": [{"type": "text", "text": "ok"}]}, "legacy")
    with anyio.fail_after(QUIET_LIMIT):
        async with wirefuzz.hub.Hub.connect_from_config(config, servers=["legacy_fuzz"], live_tools="offer") as hub:
            assert (await hub.call("legacy_fuzz__more", {})).content[0].text == "ok"
            server.set(Step((), DESCRIPTIONS[0], None, "one", None, False).catalog())
            await hub.call("legacy_fuzz__answer", {"plan": json.dumps({"lines": [CHANGED, ok], "end": "stay"})})
            while "legacy_fuzz__more" in hub.live_tools:
                await anyio.sleep(0.05)
            with pytest.raises(wirefuzz.hub.UnknownQualifiedToolError) as refused:
                await hub.call("legacy_fuzz__more", {})
    assert str(refused.value) == (
        "the hub cannot offer or call 'legacy_fuzz__more': its server 'legacy_fuzz' no longer lists it"
    )
