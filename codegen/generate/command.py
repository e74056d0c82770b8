"""`mcp-stubgen generate`: write (or, with --check, compare) one typed package per snapshot."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from codegen import console
from codegen.config import ProjectConfig
from codegen.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, StubgenError
from codegen.generate import Cache, Published, package_dir, render_snapshot
from codegen.generate.code_mode import CodeModeBuild, build_code_mode, code_mode_dir, remember, report_tokens
from codegen.generate.hub import HubSettings, hub_dir, render_hub
from codegen.generate.proof import hub_source, remember_rendered, rendered_before
from codegen.generate.publish import diff_trees, publish, read_tree, recover_output
from codegen.generate.runtime_folder import RUNTIME_PACKAGE, check_runtime, prune_runtime, publish_runtime, runtime_dir
from codegen.identifiers import HUB_SEPARATOR
from codegen.options import cache_option, config_options, load_project, shown_path
from codegen.runtime._hub_catalog import HINT_DEFAULTS, ToolFilter
from codegen.runtime._hub_runtime import LIVE_TOOLS
from codegen.snapshot import Snapshot, parse_snapshot, read_snapshot_bytes


def method_names_for(config: ProjectConfig | None, server: str) -> Mapping[str, str]:
    """`[tool.mcp-stubgen.method_names.<server>]`: tool wire name -> Python method name."""
    return {} if config is None else config.method_names(server)


Sources = list[tuple[Path, Mapping[str, str]]]
"""Snapshot files with their method-name overrides, read only when their package must be rendered."""


Packages = list[tuple[str | None, Path, Mapping[str, str], Mapping[str, str]]]
"""Server ids (None for a snapshot file given by path) with their snapshot files, method-name overrides
and stated renames, one per package to render."""


HubSources = tuple[Sources, HubSettings]
"""The hub's snapshot files and how it names and selects their tools."""


def hub_settings(config: ProjectConfig | None) -> HubSettings:
    """`hub_separator`, `[tool.mcp-stubgen.hub_filters.<server>]` (`include`, `exclude`, `annotations`)
    and `hub_live_tools`."""
    if config is None:
        return HubSettings()
    where = config.source or config.root
    separator = config.settings.get("hub_separator", HUB_SEPARATOR)
    if not isinstance(separator, str):
        raise StubgenError(f"{where}: hub_separator must be a string such as {HUB_SEPARATOR!r}")
    table = config.settings.get("hub_filters", {})
    if not isinstance(table, dict):
        raise StubgenError(f"{where}: [tool.mcp-stubgen.hub_filters] must be a table of servers")
    filters = {
        server: _tool_filter(raw, f"{where}: [tool.mcp-stubgen.hub_filters.{server}]") for server, raw in table.items()
    }
    live_tools = config.settings.get("hub_live_tools", "ignore")
    if live_tools not in LIVE_TOOLS:
        raise StubgenError(
            f"{where}: hub_live_tools must be one of {', '.join(map(repr, LIVE_TOOLS))}, not {live_tools!r}"
        )
    return HubSettings(separator=separator, filters=dict(sorted(filters.items())), live_tools=live_tools)


def _tool_filter(raw: Any, where: str) -> ToolFilter:
    if not isinstance(raw, dict) or not set(raw) <= {"include", "exclude", "annotations"}:
        raise StubgenError(f"{where}: must be a table of `include`, `exclude` and `annotations`")
    for key in ("include", "exclude"):
        patterns = raw.get(key, [])
        if not isinstance(patterns, list) or not all(isinstance(pattern, str) for pattern in patterns):
            raise StubgenError(f'{where}: {key} must be a list of glob patterns on tool names, e.g. ["get_*"]')
    annotations = raw.get("annotations", {})
    if (
        not isinstance(annotations, dict)
        or not set(annotations) <= set(HINT_DEFAULTS)
        or not all(isinstance(value, bool) for value in annotations.values())
    ):
        raise StubgenError(f"{where}: annotations must map hints ({', '.join(sorted(HINT_DEFAULTS))}) to true or false")
    return ToolFilter(
        include=tuple(raw.get("include", ())), exclude=tuple(raw.get("exclude", ())), annotations=annotations
    )


def hub_sources(config: ProjectConfig) -> HubSources:
    """Every configured server's committed snapshot: the hub covers all of them, whichever were named."""
    sources = [(config.snapshot_path(name), method_names_for(config, name)) for name in sorted(config.servers)]
    return sources, hub_settings(config)


@dataclass(frozen=True)
class HubBuild:
    """The hub as the snapshots on disk give it: built from every server whose snapshot can be read
    and parsed, so one missing server does not leave the rest without a hub."""

    target: Path
    files: dict[str, bytes] | None
    """None when the folder is proven to be what these very snapshots render (`proof.rendered_before`)."""
    source: bytes
    """The proof key of what it was built from (`proof.hub_source`)."""
    lacking: tuple[str, ...]
    """One message per server left out, naming it and why (its snapshot is missing or invalid)."""


def build_hub(hub: HubSources, out_dir: Path, cache: Cache) -> HubBuild:
    """The hub over the servers that have a usable snapshot, rendered unless proven unchanged;
    raises `StubgenError` when no hub can be built at all."""
    sources, settings = hub
    readable: list[tuple[Path, bytes, Mapping[str, str]]] = []
    lacking: list[str] = []
    for path, method_names in sources:
        try:
            readable.append((path, read_snapshot_bytes(path), method_names))
        except StubgenError as error:
            lacking.append(_lacks(path, error))
    target = hub_dir(out_dir)
    source = _hub_key([(data, method_names) for _, data, method_names in readable], settings)
    if rendered_before(source, {}, out_dir, cache) is not None:
        return HubBuild(target, None, source, tuple(lacking))
    parsed: list[tuple[Snapshot, Mapping[str, str], bytes]] = []
    for path, data, method_names in readable:
        try:
            parsed.append((parse_snapshot(data, str(path)), method_names, data))
        except StubgenError as error:
            lacking.append(_lacks(path, error))
    if len(parsed) < len(readable):
        source = _hub_key([(data, method_names) for _, method_names, data in parsed], settings)
    try:
        files = render_hub([(snapshot, method_names) for snapshot, method_names, _ in parsed], cache, settings)
    except StubgenError as error:
        message = str(error)
        raise StubgenError(message if message.startswith("hub: ") else f"hub: {message}") from None
    return HubBuild(target, files, source, tuple(lacking))


def _lacks(path: Path, error: StubgenError) -> str:
    """The line saying the hub was built without a server: its snapshot file is named `<server>.json`."""
    return f"hub: built without {path.stem!r}: {error}"


def _hub_key(snapshots: list[tuple[bytes, Mapping[str, str]]], settings: HubSettings) -> bytes:
    """What the hub is rendered from (`proof.hub_source`): its servers' snapshot bytes and its settings."""
    filters = {
        server: [list(rule.include), list(rule.exclude), sorted(rule.annotations.items())]
        for server, rule in settings.filters.items()
    }
    return hub_source(snapshots, [settings.separator, filters, settings.live_tools])


def _sources(
    targets: tuple[str, ...],
    out: Path | None,
    config_path: Path | None,
    servers_file: Path | None,
    with_hub: bool,
    code_mode: bool = False,
) -> tuple[Packages, Path, HubSources | None, bool, bool, bool]:
    """The snapshot files to render, the output folder, the hub's snapshot files when a hub is
    wanted, the config's `strict` and `sync_client`, and whether code mode is wanted."""
    if targets and all(target.endswith(".json") for target in targets):
        if out is None:
            raise click.UsageError("generating from snapshot files needs --out DIR")
        if code_mode and not with_hub:
            raise click.UsageError("--code-mode calls every tool through the hub: pass --hub as well")
        sources: Sources = [(Path(target), {}) for target in targets]
        packages: Packages = [(None, path, {}, {}) for path, _ in sources]
        return packages, out, (sources, HubSettings()) if with_hub else None, False, True, code_mode
    if any(target.endswith(".json") for target in targets):
        raise click.UsageError("give either server ids from the config or snapshot .json files, not both")
    config = load_project(config_path, servers_file)
    out_dir = out or config.output
    if out_dir is None:
        raise config.missing("set `output` under [tool.mcp-stubgen] or pass --out DIR")
    servers = config.select(targets)
    if with_hub and not config.sync_client:
        raise config.missing("remove `sync_client = false` to write the hub (its sync twin uses each package's)")
    if code_mode and not (config.hub or with_hub):
        raise config.missing("set `hub = true` (or pass --hub): --code-mode calls every tool through the hub")
    return (
        [
            (
                server.name,
                config.snapshot_path(server.name),
                method_names_for(config, server.name),
                config.renames(server.name),
            )
            for server in servers
        ],
        out_dir,
        hub_sources(config) if config.hub or with_hub else None,
        config.strict,
        config.sync_client,
        code_mode or config.code_mode,
    )


def _label(target: Path) -> str:
    """A package folder as a diff names it: relative to the working directory, so the diff applies there."""
    return Path(shown_path(target)).as_posix()


def cache_for(no_cache: bool) -> Cache:
    """The running command's cache, trimmed to its size bound when the command ends, however it ends."""
    cache = Cache.disabled() if no_cache else Cache.default()
    click.get_current_context().call_on_close(cache.trim)
    return cache


@click.command("generate")
@click.argument("targets", nargs=-1)
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), help="Folder to write the packages into.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 with a diff when the packages are out of date.")
@click.option("--hub", "with_hub", is_flag=True, help="Also write the hub package (the default with `hub = true`).")
@click.option(
    "--strict",
    "strict_flag",
    is_flag=True,
    help="A tool no models can be generated for is an error, not a method taking a dict (`strict = true`).",
)
@click.option(
    "--code-mode",
    "code_mode_flag",
    is_flag=True,
    help="Also write the code-mode package, typed stubs for agents that write code (`code_mode = true`; needs the hub).",
)
@cache_option
@config_options
@console.format_option
def generate(
    targets: tuple[str, ...],
    out: Path | None,
    check: bool,
    with_hub: bool,
    strict_flag: bool,
    code_mode_flag: bool,
    no_cache: bool,
    config_path: Path | None,
    servers_file: Path | None,
) -> int:
    """Generate a typed client package per server from its snapshot (SERVER ids, or SNAPSHOT.json files).

    Every server that can be is generated (or checked); each failure is one line, and the run then exits 2.
    """
    sources, out_dir, hub, strict, sync_client, code_mode = _sources(
        targets, out, config_path, servers_file, with_hub, code_mode_flag
    )
    strict = strict or strict_flag
    cache = cache_for(no_cache)
    if check:
        return _check(sources, out_dir, hub, cache, sync_client, code_mode)
    recover_output(out_dir)
    failed = 0
    # Every package is rendered before any is published; a server that fails is reported and left as it was.
    rendered: list[_Rendered] = []
    for server, path, method_names, renames in sources:
        try:
            source = read_snapshot_bytes(path)
            # A package proven current may hold untyped tools, which --strict must still refuse: render it.
            unchanged = None if strict else rendered_before(source, method_names, out_dir, cache, renames, sync_client)
            if unchanged is not None:
                rendered.append(_Rendered(server, path, unchanged, None, source, method_names, renames))
                continue
            snapshot = parse_snapshot(source, str(path))
            package = render_snapshot(snapshot, method_names, cache, strict, renames, sync_client)
        except StubgenError as error:
            failed += _failed(server or path.stem, path, error)
            continue
        target = package_dir(snapshot, out_dir)
        if hub is not None and target == hub_dir(out_dir):
            continue  # a server named like the hub: the hub's own error names it
        rendered.append(_Rendered(server or snapshot.server, path, target, package, source, method_names, renames))
    lacking: tuple[str, ...] = ()
    if hub is not None:
        try:
            built = build_hub(hub, out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error)
        else:
            rendered.append(_Rendered(None, None, built.target, built.files, built.source, {}, {}))
            lacking = built.lacking
    code: CodeModeBuild | None = None
    if hub is not None and code_mode:
        try:
            code = build_code_mode(*hub, out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error, code_mode_dir(out_dir))
        else:
            rendered.append(_Rendered(None, None, code.target, code.files, code.source, {}, {}))
    if rendered:
        # The runtime goes first, so no package ever imports a runtime older than itself.
        with_hub = any(item.snapshot is None for item in rendered)
        coming = [item.files for item in rendered if item.files is not None]
        try:
            runtime = publish_runtime(out_dir, with_hub, coming)
        except StubgenError as error:  # no package is published beside a runtime that could not be
            _failed(None, None, error, runtime_dir(out_dir))
            return EXIT_ERROR
    for item in rendered:
        server = item.server or (_server_of(item.source) if item.snapshot is not None else None)
        try:
            result = publish(item.files, item.target) if item.files is not None else None
        except StubgenError as error:
            failed += _failed(server, item.snapshot, error)
            continue
        if item.files is not None:
            sync_twin = sync_client or item.snapshot is None  # the hub's record has no such setting
            remember_rendered(item.source, item.method_names, item.target, item.files, cache, item.renames, sync_twin)
        announce_package(
            item.target.name if item.snapshot is None else server or item.snapshot.stem, item.target, result
        )
        if result is not None and result.changed:
            changes = {"written": list(result.written), "removed": list(result.removed)}
            console.emit(server, "generated", **_where(item.snapshot, item.target), **changes)
            if code is not None and item.target == code.target:
                report_tokens(code)
        else:
            console.emit(server, "unchanged", **_where(item.snapshot, item.target))
    if rendered:
        try:
            announce_runtime(prune_runtime(out_dir, runtime))
        except StubgenError as error:
            failed += _failed(None, None, error, runtime_dir(out_dir))
    for message in lacking:
        failed += _failed(None, None, StubgenError(message), hub_dir(out_dir))
    return EXIT_ERROR if failed else EXIT_OK


@dataclass(frozen=True)
class _Rendered:
    """A package ready to publish: `files` is None when the folder is proven current."""

    server: str | None
    """The configured server id; None for the hub, and for a snapshot file given by path until it is read."""
    snapshot: Path | None
    target: Path
    files: dict[str, bytes] | None
    source: bytes
    method_names: Mapping[str, str]
    renames: Mapping[str, str]


def announce_package(server: str, target: Path, published: Published | None) -> None:
    """A package's line, in the words `generate` and `sync` share: `<server>: generated <folder>
    (what changed)`, or `<server>: unchanged <folder>`, as a snapshot's line says it."""
    if published is not None and published.changed:
        detail = f"{len(published.written)} file(s) written, {len(published.removed)} removed"
        console.note(f"{server}: generated {shown_path(target)} ({detail})")
    else:
        console.note(f"{server}: unchanged {shown_path(target)}")


def announce_runtime(runtime: Published) -> None:
    """The output folder's runtime line, only when it changed: it follows the generator and the
    packages' needs, not any snapshot."""
    if runtime.changed:
        announce_package(RUNTIME_PACKAGE, runtime.path, runtime)
        changes = {"written": list(runtime.written), "removed": list(runtime.removed)}
        console.emit(None, "generated", **_where(None, runtime.path), **changes)


def _failed(server: str | None, snapshot: Path | None, error: StubgenError, hub: Path | None = None) -> int:
    """One server's (or, with no server, the hub's) failure: one line and one JSON object, and the run
    goes on; returns 1, to count it."""
    console.error(str(error))
    where = {"snapshot": shown_path(snapshot)} if snapshot is not None else {}
    if hub is not None:
        where["package"] = _label(hub)
    console.emit(server, "error", error=str(error), **where)
    return 1


def _check(
    sources: Packages, out_dir: Path, hub: HubSources | None, cache: Cache, sync_client: bool, code_mode: bool = False
) -> int:
    """`generate --check`: a diff per stale package on stdout; every package that can be is checked."""
    stale = current = failed = 0
    checked: list[tuple[str | None, Path | None, Path, str]] = []
    for server, path, method_names, renames in sources:
        try:
            source = read_snapshot_bytes(path)
            target, diff = check_server(source, str(path), method_names, out_dir, cache, renames, sync_client)
        except StubgenError as error:
            failed += _failed(server or path.stem, path, error)
            continue
        checked.append((server or _server_of(source), path, target, diff))
    lacking: tuple[str, ...] = ()
    if hub is not None:
        try:
            target, diff, lacking = check_hub(hub, out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error)
        else:
            checked.append((None, None, target, diff))
    if hub is not None and code_mode:
        try:
            code = build_code_mode(*hub, out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error, code_mode_dir(out_dir))
        else:
            diff = "" if code.files is None else diff_trees(code.files, read_tree(code.target), _label(code.target))
            remember(code, cache)
            checked.append((None, None, code.target, diff))
    if checked:  # the packages' runtime, named only when stale, as `generate` names it only when it writes it
        runtime_folder, runtime_diff = check_runtime(out_dir, _label(runtime_dir(out_dir)), hub is not None)
        if runtime_diff:
            checked.append((None, None, runtime_folder, runtime_diff))
    for server, snapshot_file, target, diff in checked:
        stale += bool(diff)
        current += not diff
        console.result(diff, nl=False)
        details = {"diff": diff} if diff else {}
        console.emit(server, "stale" if diff else "current", **_where(snapshot_file, target), **details)
    for message in lacking:
        failed += _failed(None, None, StubgenError(message), hub_dir(out_dir))
    could_not = f"; {failed} could not be checked" if failed else ""
    if stale:
        console.note(f"{stale} generated package(s) out of date{could_not}; run `mcp-stubgen generate`")
    elif current:
        console.note(f"{current} generated package(s) up to date{could_not}")
    return EXIT_ERROR if failed else EXIT_FINDINGS if stale else EXIT_OK


def _where(snapshot: Path | None, package: Path) -> dict[str, str | None]:
    """The `snapshot` and `package` keys of a `--format json` object (no snapshot for the hub)."""
    return {"snapshot": shown_path(snapshot) if snapshot is not None else None, "package": _label(package)}


def _server_of(source: bytes) -> str | None:
    """The server a snapshot file given by path names (the config names its own servers)."""
    server = json.loads(source).get("server")
    return server if isinstance(server, str) else None


def check_server(
    source: bytes,
    name: str,
    method_names: Mapping[str, str],
    out_dir: Path,
    cache: Cache,
    renames: Mapping[str, str] | None = None,
    sync_client: bool = True,
) -> tuple[Path, str]:
    """A server's package folder and the diff from it to what its snapshot bytes `source` (read
    from the file `name`) produce; empty when current. Proven from the snapshot and the generator
    only (`proof.rendered_before`), else rendered: never from what the committed files say about themselves."""
    proven = rendered_before(source, method_names, out_dir, cache, renames, sync_client)
    if proven is not None:
        return proven, ""
    snapshot = parse_snapshot(source, name)
    target = package_dir(snapshot, out_dir)
    files = render_snapshot(snapshot, method_names, cache, renames=renames, sync_client=sync_client)
    remember_rendered(source, method_names, target, files, cache, renames, sync_client)
    return target, diff_trees(files, read_tree(target), _label(target))


def hub_is_stale(config: ProjectConfig, out_dir: Path, cache: Cache) -> bool:
    """Whether the hub under `out_dir` (or, with `code_mode = true`, the code-mode package beside it) is
    not what the committed snapshots give, proven as `--check` proves it; a hub that lacks a server
    counts as stale, so publishing the hub reports it."""
    try:
        _target, diff, lacking = check_hub(hub_sources(config), out_dir, cache)
        code = build_code_mode(*hub_sources(config), out_dir, cache) if config.code_mode else None
    except StubgenError:
        return True
    return bool(diff or lacking) or (code is not None and code.files != read_tree(code.target))


def check_hub(hub: HubSources, out_dir: Path, cache: Cache) -> tuple[Path, str, tuple[str, ...]]:
    """The hub's folder, its diff, and the servers it lacks, proven as a server's package is
    (`check_server`): from its snapshots' bytes and the generator, else rendered."""
    built = build_hub(hub, out_dir, cache)
    if built.files is None:
        return built.target, "", built.lacking
    remember_rendered(built.source, {}, built.target, built.files, cache)
    return built.target, diff_trees(built.files, read_tree(built.target), _label(built.target)), built.lacking
