"""`mcp-stubgen generate`: write (or, with --check, compare) one typed package per snapshot."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from codegen import console
from codegen.config import ProjectConfig
from codegen.errors import EXIT_FINDINGS, EXIT_OK, StubgenError
from codegen.generate import Cache, package_dir, render_snapshot
from codegen.generate.hub import HubSettings, hub_dir, render_hub
from codegen.generate.proof import hub_source, remember_rendered, rendered_before
from codegen.generate.publish import Published, diff_trees, publish, read_tree, recover_output
from codegen.generate.runtime_folder import check_runtime, publish_runtime, runtime_dir
from codegen.identifiers import HUB_SEPARATOR
from codegen.options import config_options, load_project, shown_path
from codegen.runtime._hub_catalog import HINT_DEFAULTS, ToolFilter
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot, read_snapshot_bytes


def method_names_for(config: ProjectConfig | None, server: str) -> Mapping[str, str]:
    """`[tool.mcp-stubgen.method_names.<server>]`: tool wire name -> Python method name."""
    if config is None:
        return {}
    table = config.settings.get("method_names", {})
    method_names = table.get(server, {}) if isinstance(table, dict) else None
    if not isinstance(method_names, dict) or not all(isinstance(value, str) for value in method_names.values()):
        raise StubgenError(
            f"{config.source}: [tool.mcp-stubgen.method_names.{server}] must map tool names to method names"
        )
    return method_names


Inputs = list[tuple[Snapshot, Mapping[str, str]]]
"""Snapshots with their method-name overrides, one per package to render."""


Sources = list[tuple[Path, Mapping[str, str]]]
"""Snapshot files with their method-name overrides, read only when their package must be rendered."""


Packages = list[tuple[Path, Mapping[str, str], Mapping[str, str]]]
"""Snapshot files with their method-name overrides and stated renames, one per package to render."""


HubSources = tuple[Sources, HubSettings]
"""The hub's snapshot files and how it names and selects their tools."""


def hub_settings(config: ProjectConfig | None) -> HubSettings:
    """`hub_separator` and `[tool.mcp-stubgen.hub_filters.<server>]` (`include`, `exclude`, `annotations`)."""
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
    return HubSettings(separator=separator, filters=dict(sorted(filters.items())))


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


def hub_inputs(config: ProjectConfig) -> tuple[Inputs, HubSettings]:
    """The hub's servers, parsed: `sync` renders the hub right after writing their snapshots."""
    sources, settings = hub_sources(config)
    return _load_hub(sources), settings


def _load_hub(sources: Sources) -> Inputs:
    try:
        return [(load_snapshot(path), method_names) for path, method_names in sources]
    except StubgenError as error:
        raise StubgenError(f"hub: {error}") from None


def _hub_source(hub: HubSources) -> bytes:
    """What the hub is rendered from (`proof.hub_source`): its servers' snapshot files and its settings."""
    sources, settings = hub
    filters = {
        server: [list(rule.include), list(rule.exclude), sorted(rule.annotations.items())]
        for server, rule in settings.filters.items()
    }
    try:
        snapshots = [(read_snapshot_bytes(path), method_names) for path, method_names in sources]
    except StubgenError as error:
        raise StubgenError(f"hub: {error}") from None
    return hub_source(snapshots, [settings.separator, filters])


def strict_setting(config: ProjectConfig) -> bool:
    """`strict = true` under [tool.mcp-stubgen]: a tool no models can be generated for is an error."""
    value = config.settings.get("strict", False)
    if not isinstance(value, bool):
        raise StubgenError(f"{config.source}: [tool.mcp-stubgen] strict must be true or false, not {value!r}")
    return value


def _sources(
    targets: tuple[str, ...], out: Path | None, config_path: Path | None, servers_file: Path | None, with_hub: bool
) -> tuple[Packages, Path, HubSources | None, bool]:
    """The snapshot files to render, the output folder, the hub's snapshot files when a hub is
    wanted, and the config's `strict`."""
    if targets and all(target.endswith(".json") for target in targets):
        if out is None:
            raise click.UsageError("generating from snapshot files needs --out DIR")
        sources: Sources = [(Path(target), {}) for target in targets]
        packages: Packages = [(path, {}, {}) for path, _ in sources]
        return packages, out, (sources, HubSettings()) if with_hub else None, False
    if any(target.endswith(".json") for target in targets):
        raise click.UsageError("give either server ids from the config or snapshot .json files, not both")
    config = load_project(config_path, servers_file)
    out_dir = out or config.output
    if out_dir is None:
        raise StubgenError(f"{config.source or config.root}: set `output` under [tool.mcp-stubgen] or pass --out DIR")
    servers = config.select(targets)
    return (
        [
            (config.snapshot_path(server.name), method_names_for(config, server.name), config.renames(server.name))
            for server in servers
        ],
        out_dir,
        hub_sources(config) if config.hub or with_hub else None,
        strict_setting(config),
    )


cache_option = click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache of generated pieces (MCP_STUBGEN_CACHE_DIR, else the user cache folder).",
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
@cache_option
@config_options
@console.format_option
def generate(
    targets: tuple[str, ...],
    out: Path | None,
    check: bool,
    with_hub: bool,
    strict_flag: bool,
    no_cache: bool,
    config_path: Path | None,
    servers_file: Path | None,
) -> int:
    """Generate a typed client package per server from its snapshot (SERVER ids, or SNAPSHOT.json files)."""
    sources, out_dir, hub, strict = _sources(targets, out, config_path, servers_file, with_hub)
    strict = strict or strict_flag
    cache = cache_for(no_cache)
    if check:
        checked: list[tuple[Path | None, bytes | None, Path, str]] = []
        for path, method_names, renames in sources:
            source = read_snapshot_bytes(path)
            checked.append((path, source, *check_server(source, str(path), method_names, out_dir, cache, renames)))
        if hub is not None:
            checked.append((None, None, *check_hub(hub, out_dir, cache)))
        runtime_folder, runtime_diff = check_runtime(out_dir, _label(runtime_dir(out_dir)), hub is not None)
        if runtime_diff:  # named only when stale, as `generate` names it only when it writes it
            checked.append((None, None, runtime_folder, runtime_diff))
        stale = 0
        for snapshot_file, checked_bytes, target, diff in checked:
            stale += bool(diff)
            console.result(diff, nl=False)
            details = {"diff": diff} if diff else {}
            state = "stale" if diff else "current"
            console.emit(_server_of(checked_bytes), state, **_where(snapshot_file, target), **details)
        if stale:
            console.note(f"{stale} generated package(s) out of date; run `mcp-stubgen generate`")
            return EXIT_FINDINGS
        console.note(f"{len(checked)} generated package(s) up to date")
        return EXIT_OK
    recover_output(out_dir)
    # Everything is rendered before anything is published, so a failing server leaves every package as it was;
    # a package (or hub) this generator rendered from these very snapshot bytes, untouched since, is not even parsed.
    rendered: list[tuple[Path | None, Path, dict[str, bytes] | None, bytes, Mapping[str, str], Mapping[str, str]]] = []
    for path, method_names, renames in sources:
        source = read_snapshot_bytes(path)
        # A package proven current may hold untyped tools, which --strict must still refuse: render it.
        unchanged = None if strict else rendered_before(source, method_names, out_dir, cache, renames)
        if unchanged is not None:
            rendered.append((path, unchanged, None, source, method_names, renames))
            continue
        snapshot = parse_snapshot(source, str(path))
        package = render_snapshot(snapshot, method_names, cache, strict, renames)
        rendered.append((path, package_dir(snapshot, out_dir), package, source, method_names, renames))
    if hub is not None:
        source = _hub_source(hub)
        unchanged = rendered_before(source, {}, out_dir, cache)
        files = render_hub(_load_hub(hub[0]), cache, hub[1]) if unchanged is None else None
        rendered.append((None, unchanged or hub_dir(out_dir), files, source, {}, {}))
    # The runtime goes first, so no package ever imports a runtime older than itself.
    runtime = publish_runtime(out_dir, with_hub=hub is not None)
    for snapshot_file, target, files, snapshot_bytes, method_names, renames in rendered:
        result = publish(files, target) if files is not None else None
        if files is not None:
            remember_rendered(snapshot_bytes, method_names, target, files, cache, renames)
        _report(snapshot_file, target, result, _server_of(snapshot_bytes if snapshot_file is not None else None))
    if runtime.changed:  # said only when it changed: it follows the generator, not any snapshot
        _report(None, runtime.path, runtime, None)
    return EXIT_OK


def _report(snapshot_file: Path | None, target: Path, result: Published | None, server: str | None) -> None:
    """Say what publishing one folder did (`result`; None when it was proven current without rendering)."""
    if result is not None and result.changed:
        detail = f"{len(result.written)} file(s) written, {len(result.removed)} removed"
        console.note(f"generated {shown_path(target)} ({detail})")
        changes = {"written": list(result.written), "removed": list(result.removed)}
        console.emit(server, "generated", **_where(snapshot_file, target), **changes)
    else:
        console.note(f"{shown_path(target)} is up to date")
        console.emit(server, "unchanged", **_where(snapshot_file, target))


def _where(snapshot: Path | None, package: Path) -> dict[str, str | None]:
    """The `snapshot` and `package` keys of a `--format json` object (no snapshot for the hub)."""
    return {"snapshot": shown_path(snapshot) if snapshot is not None else None, "package": _label(package)}


def _server_of(source: bytes | None) -> str | None:
    """The server id a `--format json` object names: the snapshot's own `server` (read only in that
    mode, and from bytes already rendered or proven to render); None for the hub."""
    if source is None or not console.json_lines():
        return None
    server = json.loads(source).get("server")
    return server if isinstance(server, str) else None


def check_server(
    source: bytes,
    name: str,
    method_names: Mapping[str, str],
    out_dir: Path,
    cache: Cache,
    renames: Mapping[str, str] | None = None,
) -> tuple[Path, str]:
    """A server's package folder and the diff from it to what its snapshot bytes `source` (read
    from the file `name`) produce; empty when current. Proven from the snapshot and the generator
    only (`proof.rendered_before`), else rendered: never from what the committed files say about themselves."""
    proven = rendered_before(source, method_names, out_dir, cache, renames)
    if proven is not None:
        return proven, ""
    snapshot = parse_snapshot(source, name)
    target = package_dir(snapshot, out_dir)
    files = render_snapshot(snapshot, method_names, cache, renames=renames)
    remember_rendered(source, method_names, target, files, cache, renames)
    return target, diff_trees(files, read_tree(target), _label(target))


def hub_is_stale(config: ProjectConfig, out_dir: Path, cache: Cache) -> bool:
    """Whether the hub under `out_dir` is not what the committed snapshots give, proven as `--check`
    proves it; a snapshot that cannot be read counts as stale, so publishing the hub reports it."""
    try:
        return bool(check_hub(hub_sources(config), out_dir, cache)[1])
    except StubgenError:
        return True


def check_hub(hub: HubSources, out_dir: Path, cache: Cache) -> tuple[Path, str]:
    """The hub's folder and diff, proven as a server's package is (`check_server`): from its
    snapshots' bytes and the generator, else rendered."""
    source = _hub_source(hub)
    target = hub_dir(out_dir)
    if rendered_before(source, {}, out_dir, cache) is not None:
        return target, ""
    files = render_hub(_load_hub(hub[0]), cache, hub[1])
    remember_rendered(source, {}, target, files, cache)
    return target, diff_trees(files, read_tree(target), _label(target))
