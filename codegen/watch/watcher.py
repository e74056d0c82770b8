"""The `watch` loop: one long-lived session per server, each real catalog change published whole.

A change notification carries no items, so every trigger re-lists the server's whole catalog with
`list_catalog`; a burst of notifications is settled into one re-list, at most one a second. Only a
catalog whose canonical bytes differ from the last published one is reported and published, and
publishing is `sync`'s (render, then publish the package and the snapshot together), so a snapshot
never lands without its package.
"""

from __future__ import annotations

import signal
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio
import anyio.abc
import mcp_types
from mcp import Client, MCPError
from mcp.client.session import IncomingMessage
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from codegen import console
from codegen.config import ProjectConfig, ServerConfig
from codegen.drift import (
    DriftPolicy,
    Finding,
    apply_ignores,
    apply_severities,
    compare_snapshots,
    render,
    sort_findings,
)
from codegen.drift.report import summary
from codegen.errors import StubgenError
from codegen.fsutil import what_to_check
from codegen.generate import Cache, generate_package, package_dir
from codegen.generate.hub_build import hub_is_stale
from codegen.identifiers import keep_names
from codegen.options import shown_path
from codegen.runtime._hub_runtime import RELIST_INTERVAL, SETTLE_SECONDS
from codegen.snapshot import Snapshot, write_snapshot
from codegen.snapshot.discovery import connect, list_catalog
from codegen.snapshot.summary import emptied, warn_unlisted_methods
from codegen.sync.publish import PublishError, RuntimeChanges, publish_hub, publish_with_snapshot

BACKOFF_FIRST = 1.0
BACKOFF_CAP = 60.0
"""Seconds before the first reconnection attempt, doubled after each failed one up to the cap."""

_Outcome = Literal["published", "rejected", "failed"]
"""What became of a changed catalog: published; refused for itself (not tried again until it changes);
or refused by the file system (tried again at the next trigger, once the user may have fixed that)."""

_KINDS = ("tools", "prompts", "resources")
_LIST_CHANGED = (
    mcp_types.ToolListChangedNotification,
    mcp_types.PromptListChangedNotification,
    mcp_types.ResourceListChangedNotification,
)


class _Changes:
    """A resettable flag raised by change notifications and lowered just before each re-list,
    so a notification that arrives during a listing still causes one more."""

    def __init__(self) -> None:
        self._event = anyio.Event()

    def set(self) -> None:
        self._event.set()

    def clear(self) -> None:
        if self._event.is_set():
            self._event = anyio.Event()

    def is_set(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        await self._event.wait()

    async def handle(self, message: IncomingMessage) -> None:
        """The session's `message_handler`: a legacy `notifications/*/list_changed` raises the flag."""
        if isinstance(message, _LIST_CHANGED):
            self.set()


@dataclass(frozen=True)
class _Plan:
    """How one session learns of changes: the kinds the server notifies about, and whether to poll."""

    notified: tuple[str, ...]
    poll: bool

    @classmethod
    def of(cls, capabilities: mcp_types.ServerCapabilities) -> _Plan:
        """Notifications for the kinds declaring `listChanged`; polling if any listed kind does not."""
        notified: list[str] = []
        poll = False
        for kind in _KINDS:
            capability = getattr(capabilities, kind)
            if capability is None:
                continue
            if capability.list_changed:
                notified.append(kind)
            else:
                poll = True
        return cls(tuple(notified), poll or not notified)

    def describe(self, modern: bool, interval: float) -> str:
        parts = []
        if self.notified:
            channel = "subscriptions/listen" if modern else "list_changed notifications"
            parts.append(f"{', '.join(self.notified)} changes via {channel}")
        if self.poll:
            parts.append(f"polling every {interval:g}s")
        return "; ".join(parts)


class _Backoff:
    def __init__(self) -> None:
        self.delay = BACKOFF_FIRST

    def reset(self) -> None:
        self.delay = BACKOFF_FIRST

    def next(self) -> float:
        delay = self.delay
        self.delay = min(self.delay * 2, BACKOFF_CAP)
        return delay


class Watcher:
    """Watches the servers concurrently until Ctrl-C (SIGINT/SIGTERM) or `max_changes` publications."""

    _publishing: anyio.Lock
    """One publication at a time, so reports of different servers do not interleave."""
    _stop: anyio.CancelScope

    def __init__(
        self,
        config: ProjectConfig,
        policy: DriftPolicy,
        servers: Sequence[ServerConfig],
        committed: Mapping[str, Snapshot | None],
        interval: float,
        max_changes: int | None,
    ) -> None:
        self._config = config
        self._policy = policy
        self._servers = servers
        self._published = dict(committed)
        self._rejected: dict[str, bytes] = {}
        """Catalog bytes that cannot be published (empty, or not renderable), so polling does not repeat
        the same error; a catalog the file system refused is tried again at the next trigger."""
        self._owed: set[str] = set()
        """Servers whose changed catalog the file system refused: listed again every interval, even
        those that notify of changes, so freeing the disk or moving a folder away is enough."""
        self._interval = interval
        self._max_changes = max_changes
        self.changes = 0

    def run(self) -> None:
        anyio.run(self._run)

    async def _run(self) -> None:
        self._publishing = anyio.Lock()
        self._stop = anyio.CancelScope()
        with self._stop:
            async with anyio.create_task_group() as group:
                await group.start(self._stop_on_signal)
                await anyio.to_thread.run_sync(self._build_stale)
                for server in self._servers:
                    group.start_soon(self._watch, server)

    async def _stop_on_signal(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            task_status.started()
            async for _ in signals:
                self._stop.cancel()
                return

    async def _watch(self, server: ServerConfig) -> None:
        """Connect, watch, and on any failure report one line and reconnect after a growing delay."""
        backoff = _Backoff()
        while True:
            changes = _Changes()
            try:
                async with connect(server, changes.handle, console.warn) as client:
                    await self._session(client, server, changes, backoff)
            except StubgenError as error:
                _failed(server.name, str(error))
            delay = backoff.next()
            console.note(f"{server.name}: reconnecting in {delay:g}s")
            console.emit(server.name, "reconnecting", delay=delay)
            await anyio.sleep(delay)

    async def _session(self, client: Client, server: ServerConfig, changes: _Changes, backoff: _Backoff) -> None:
        plan = _Plan.of(client.server_capabilities)
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        async with anyio.create_task_group() as group:
            # Subscribed before the first listing, so a change between the two is not missed; a server
            # that refuses the stream is polled instead.
            if modern and plan.notified and not await group.start(self._listen, client, server, plan.notified, changes):
                plan = _Plan((), poll=True)
            changes.clear()
            last = anyio.current_time()
            await self._refresh(client, server, first=True)
            backoff.reset()
            console.note(f"{server.name}: watching ({plan.describe(modern, self._interval)})")
            console.emit(
                server.name, "watching", notified=list(plan.notified), poll=self._interval if plan.poll else None
            )
            while True:
                with anyio.move_on_after(self._interval):
                    await changes.wait()
                if changes.is_set():
                    # Settled as a hub settles: a server that says its tools changed whenever they are
                    # listed costs one listing a second, not one after another.
                    await anyio.sleep(max(SETTLE_SECONDS, last + RELIST_INTERVAL - anyio.current_time()))
                    changes.clear()
                    last = anyio.current_time()
                    await self._refresh(client, server)
                elif plan.poll or server.name in self._owed:
                    last = anyio.current_time()
                    await self._refresh(client, server)
                elif not modern:
                    await self._ping(client, server)

    async def _listen(
        self,
        client: Client,
        server: ServerConfig,
        kinds: tuple[str, ...],
        changes: _Changes,
        *,
        task_status: anyio.abc.TaskStatus[bool] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Raise the flag for every event of the 2026-07-28 listen stream; its end ends the session.
        Started with False, and over at once, when the server does not implement the stream (-32601)
        though it declares `listChanged`: the session polls it instead."""
        name = f"server {server.name!r}"
        listening = False
        try:
            async with client.listen(
                tools_list_changed="tools" in kinds,
                prompts_list_changed="prompts" in kinds,
                resources_list_changed="resources" in kinds,
            ) as subscription:
                task_status.started(True)
                listening = True
                async for _event in subscription:
                    changes.set()
        except SubscriptionLost:
            raise StubgenError(f"{name}: the connection dropped (subscriptions/listen stream lost)") from None
        except MCPError as error:
            if error.error.code == mcp_types.METHOD_NOT_FOUND and not listening:
                console.warn(
                    f"{name}: declares listChanged but does not implement subscriptions/listen "
                    f"({error.error.message}); polling it every {self._interval:g}s instead"
                )
                task_status.started(False)
                return
            raise StubgenError(
                f"{name}: subscriptions/listen failed: {error.error.message} (code {error.error.code})"
            ) from None
        except TimeoutError:
            raise StubgenError(
                f"{name}: subscriptions/listen was not acknowledged within {server.timeouts.request:g}s"
            ) from None
        raise StubgenError(f"{name}: the server closed the subscriptions/listen stream")

    async def _ping(self, client: Client, server: ServerConfig) -> None:
        """A legacy session that only waits for notifications would not notice a dead server otherwise."""
        with warnings.catch_warnings():
            # Deprecated only because 2026-07-28 removed ping; this session speaks the legacy protocol.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            ping = client.send_ping()
        try:
            with anyio.fail_after(server.timeouts.request):
                await ping
        except TimeoutError:
            raise StubgenError(
                f"server {server.name!r}: no answer to ping within {server.timeouts.request:g}s"
            ) from None
        except MCPError as error:
            raise StubgenError(f"server {server.name!r}: the connection dropped ({error.error.message})") from None

    async def _refresh(self, client: Client, server: ServerConfig, *, first: bool = False) -> None:
        """Re-list the whole catalog and publish it if it differs from the last published one."""
        current = self._published.get(server.name)
        snapshot = keep_names(
            current, await list_catalog(client, server, console.warn), self._config.method_names(server.name)
        )
        data = snapshot.canonical_bytes()
        if current is not None and current.canonical_bytes() == data:
            self._owed.discard(server.name)
            if first:
                path = shown_path(self._config.snapshot_path(server.name))
                console.note(f"{server.name}: catalog matches {path}")
                console.emit(server.name, "current", snapshot=path)
            return
        if self._rejected.get(server.name) == data:
            return
        async with self._publishing:
            # In a worker thread: rendering takes long enough to starve the other sessions otherwise,
            # and a cancellation waits for the thread, so an interrupted publish still completes.
            outcome = await anyio.to_thread.run_sync(self._publish, server, current, snapshot)
        if outcome == "rejected":
            self._rejected[server.name] = data
        if outcome == "failed":
            self._owed.add(server.name)
        else:
            self._owed.discard(server.name)
        if outcome != "published":
            return
        self._published[server.name] = snapshot
        self._rejected.pop(server.name, None)
        self.changes += 1
        if self._max_changes is not None and self.changes >= self._max_changes:
            self._stop.cancel()

    def _build_stale(self) -> None:
        """Before any server is reached, build each missing or stale package from its committed
        snapshot, then a stale hub: only a change publishes otherwise, so a checkout without its
        generated code (or with it edited) would stay so, for as long as a server is unreachable too."""
        output = self._config.output
        if output is None:
            return
        cache = Cache.default()
        try:
            for server in self._servers:
                snapshot = self._published.get(server.name)
                if snapshot is not None:
                    self._build(server, snapshot, output, cache)
            snapshots = [self._config.snapshot_path(name) for name in self._config.servers]
            # The hub is made from every configured server's snapshot (not from the packages); one
            # without a snapshot yet gets the hub rebuilt with its first listing.
            if (
                self._config.hub
                and all(path.exists() for path in snapshots)
                and hub_is_stale(self._config, output, cache)
            ):
                runtime = RuntimeChanges()
                publish_hub(self._config, output, cache, runtime, {server.name for server in self._servers})
                runtime.announce()
        finally:
            cache.trim()

    def _build(self, server: ServerConfig, snapshot: Snapshot, output: Path, cache: Cache) -> None:
        """Build one server's package from its committed snapshot if it is missing or stale."""
        target = package_dir(snapshot, output)
        try:
            # Leaves a package this generator rendered from these bytes and nobody edited untouched.
            result = generate_package(
                snapshot,
                output,
                self._config.method_names(server.name),
                cache,
                self._config.strict,
                self._config.renames(server.name),
                self._config.sync_client,
            )
        except StubgenError as error:
            _failed(server.name, str(error))
            return
        except OSError as error:
            _failed(
                server.name,
                f"server {server.name!r}: cannot write {shown_path(target)} ({error.strerror or error}); "
                f"{what_to_check(error)}",
            )
            return
        if not result.changed:
            return
        path = shown_path(self._config.snapshot_path(server.name))
        console.note(f"{server.name}: built {shown_path(target)} from {path}")
        console.emit(server.name, "built", snapshot=path, package=shown_path(target))

    def _publish(self, server: ServerConfig, old: Snapshot | None, new: Snapshot) -> _Outcome:
        """Report the drift, then render and publish the package and the snapshot together: `rejected`
        when the catalog cannot be, `failed` when the file system refused it."""
        name = server.name
        path = self._config.snapshot_path(name)
        reason = emptied(old, new) if old is not None else None
        if reason is not None:  # a watch never empties a committed snapshot or deletes a package
            _failed(name, f"server {name!r}: {reason} ({shown_path(path)}); not published, still watching")
            return "rejected"
        warn_unlisted_methods(new, server)
        findings: list[Finding] = []
        ignored = 0
        if old is None:
            console.note(f"{name}: no committed snapshot at {shown_path(path)}; writing the first one")
        else:
            console.note(f"{name}: catalog changed")
            filtered = apply_ignores(
                compare_snapshots(old, new, self._policy.renames_for(name), self._config.method_names(name)),
                self._policy.ignores,
                [name],
            )
            findings = sort_findings(apply_severities(filtered.kept, self._policy.severities))
            ignored = len(filtered.ignored)
            console.result(render(findings, "text", ignored), nl=False)
        drift = {
            "first": old is None,
            "findings": [finding.to_json() for finding in findings],
            "summary": summary(findings, ignored),
        }
        output = self._config.output
        if output is None:
            try:
                _write(path, new)
            except StubgenError as error:
                _failed(name, str(error))
                return "failed"
            console.note(f"{name}: wrote {shown_path(path)}")
            console.emit(name, "published", snapshot=shown_path(path), package=None, **drift)
            return "published"
        # The cache `generate` uses, so a change re-generates the changed tools' models, not every
        # tool's; a fresh one per publication, so a long watch does not keep every piece in memory.
        cache = Cache.default()
        runtime = RuntimeChanges()
        try:
            try:
                result = publish_with_snapshot(new, self._config, path, output, cache, runtime)
            except StubgenError as error:
                _failed(name, str(error))
                return "failed" if isinstance(error, PublishError) else "rejected"
            console.note(f"{name}: wrote {shown_path(path)} and regenerated {shown_path(result.path)}")
            console.emit(name, "published", snapshot=shown_path(path), package=shown_path(result.path), **drift)
            if self._config.hub:  # the server's own files are published either way; a hub error is reported
                publish_hub(self._config, output, cache, runtime, {server.name for server in self._servers})
            return "published"
        finally:
            runtime.announce()
            cache.trim()


def _failed(server: str, message: str) -> None:
    console.error(message)
    console.emit(server, "error", error=message)


def _write(path: Path, snapshot: Snapshot) -> None:
    try:
        write_snapshot(path, snapshot)
    except OSError as error:
        raise StubgenError(
            f"server {snapshot.server!r}: cannot write {path} ({error.strerror}); {what_to_check(error)}"
        ) from None
