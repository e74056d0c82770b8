"""`mcp-stubgen generate`: write (or, with --check, compare) one typed package per snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegen import console
from codegen.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, StubgenError
from codegen.generate.cache import Cache
from codegen.generate.parallel import warm_workers
from codegen.generate.pipeline import (
    PackageInputs,
    Rendered,
    announce_package,
    announce_runtime,
    code_mode_dir,
    hub_dir,
    note_stray_packages,
    package_label,
    publish_rendered,
    render_current,
    stale_diff,
)
from codegen.generate.publish import recover_output
from codegen.generate.runtime_folder import check_runtime, prune_runtime, publish_runtime, runtime_dir
from codegen.options import OutPath, cache_for, cache_option, config_options, load_project, shown_path
from codegen.snapshot import read_snapshot_bytes

if TYPE_CHECKING:  # the hub's and code mode's modules load only for a run with a hub (a third of a no-op run's imports)
    from codegen.config import ProjectConfig
    from codegen.generate.code_mode import CodeModeBuild
    from codegen.generate.hub_build import HubSources, LeftOut


@dataclass(frozen=True)
class PackageSource:
    """One package to render: its server id (None for a snapshot file given by path), its snapshot
    file, and the config's settings for it."""

    server: str | None
    snapshot: Path
    method_names: Mapping[str, str]
    renames: Mapping[str, str]


@dataclass(frozen=True)
class Targets:
    """What a `generate` run renders: the packages, the output folder, the hub's sources when a hub is
    wanted, and the config's `strict` and `sync_client`."""

    packages: tuple[PackageSource, ...]
    out_dir: Path
    hub: HubSources | None
    strict: bool = False
    sync_client: bool = True
    code_mode: bool = False
    kept: frozenset[str] | None = None
    """Every package folder the config generates, when the run covers them all: other generated
    packages in the output folder are strays to name."""


def _targets(
    targets: tuple[str, ...],
    out: Path | None,
    config_path: Path | None,
    servers_file: Path | None,
    with_hub: bool,
    code_mode: bool = False,
) -> Targets:
    """Snapshot files given by path (with --out), or the config's servers, named or all."""
    if targets and all(target.endswith(".json") for target in targets):
        if out is None:
            raise click.UsageError("generating from snapshot files needs --out DIR")
        if code_mode and not with_hub:
            raise click.UsageError("--code-mode calls every tool through the hub: pass --hub as well")
        paths = [Path(target) for target in targets]
        hub = _hub_of_files(paths) if with_hub else None
        return Targets(tuple(PackageSource(None, path, {}, {}) for path in paths), out, hub, code_mode=code_mode)
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
    packages = tuple(
        PackageSource(
            server.name,
            config.snapshot_path(server.name),
            config.method_names(server.name),
            config.renames(server.name),
        )
        for server in servers
    )
    hub = _hub_of_config(config) if config.hub or with_hub else None
    code_mode = code_mode or config.code_mode
    flagged = {hub_dir(out_dir).name} if hub else set()
    flagged |= {code_mode_dir(out_dir).name} if code_mode else set()
    kept = None if targets else frozenset(config.package_names() | flagged)
    return Targets(packages, out_dir, hub, config.strict, config.sync_client, code_mode, kept)


def _hub_of_files(paths: list[Path]) -> HubSources:
    from codegen.generate.hub_build import HubInput, HubSources

    return HubSources(tuple(HubInput(path, {}) for path in paths))


def _hub_of_config(config: ProjectConfig) -> HubSources:
    from codegen.generate.hub_build import hub_sources

    return hub_sources(config)


@click.command("generate")
@click.argument("targets", nargs=-1)
@click.option("--out", type=OutPath(file_okay=False), help="Folder to write the packages into.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 with a diff when the packages are out of date.")
@click.option("--hub", "with_hub", is_flag=True, help="Also write the hub package (the default with `hub = true`).")
@click.option(
    "--strict",
    "strict_flag",
    is_flag=True,
    help="A tool no models can be generated for, or a resource template RFC 6570 does not define, is an error (`strict = true`).",
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
    run = _targets(targets, out, config_path, servers_file, with_hub, code_mode_flag)
    strict = run.strict or strict_flag
    cache = cache_for(no_cache)
    with warm_workers():
        code = _check(run, cache) if check else _generate(run, cache, strict)
    if run.kept is not None:
        note_stray_packages(run.out_dir, run.kept)
    return code


def _generate(run: Targets, cache: Cache, strict: bool) -> int:
    """`generate` without --check: render every package that is not proven current, then publish them."""
    out_dir = run.out_dir
    recover_output(out_dir)
    failed = 0
    # Every package is rendered before any is published; a server that fails is reported and left as it was.
    ready: list[_Ready] = []
    hub = run.hub
    for package in run.packages:
        try:
            inputs = _inputs(package, run.sync_client, strict)
            rendered = render_current(inputs, out_dir, cache)
        except StubgenError as error:
            failed += _failed(package.server or package.snapshot.stem, package.snapshot, error)
            continue
        server = package.server or rendered.server
        if rendered.files is not None and hub is not None and rendered.target == hub_dir(out_dir):
            continue  # a server named like the hub: the hub's own error names it
        if hub is not None and run.code_mode and rendered.target == code_mode_dir(out_dir):
            from codegen.generate.code_mode import code_mode_clash
            from codegen.generate.hub_build import HubSources

            # Published, it would replace the code-mode package; in the hub, the hub would route to it.
            failed += _failed(server, package.snapshot, code_mode_clash(server or package.snapshot.stem))
            hub = HubSources(tuple(each for each in hub.servers if each.snapshot != package.snapshot), hub.settings)
            continue
        ready.append(_Ready(server, package.snapshot, rendered))
    lacking: tuple[LeftOut, ...] = ()
    hub_built = False
    if hub is not None:
        from codegen.generate.hub_build import code_mode_build, hub_rendered

        try:
            built = hub_rendered(hub, out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error)
        else:
            ready.append(_Ready(None, None, built.rendered))
            lacking = built.lacking
            hub_built = True
    code: CodeModeBuild | None = None
    if hub is not None and run.code_mode and hub_built:  # its stubs name what the hub routes
        try:
            code = code_mode_build(hub, out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error, code_mode_dir(out_dir))
        else:
            ready.append(_Ready(None, None, code.rendered))
    if ready:
        # The runtime goes first, so no package ever imports a runtime older than itself.
        try:
            with_hub = any(item.snapshot is None for item in ready)
            coming = [item.rendered.files for item in ready if item.rendered.files is not None]
            runtime = publish_runtime(out_dir, with_hub, coming)
        except StubgenError as error:  # no package is published beside a runtime that could not be
            _failed(None, None, error, runtime_dir(out_dir))
            return EXIT_ERROR
    replaced: set[Path] = set()
    for item in ready:
        rendered = item.rendered
        if rendered.target in replaced:  # the folder it was redone from (`last_render`) was published over since
            rendered = replace(rendered, folder=None)
        try:
            result = publish_rendered(rendered, cache)
        except StubgenError as error:
            failed += _failed(item.server, item.snapshot, error)
            continue
        if result.changed:
            replaced.add(result.path)
        announce_package(result.path.name if item.snapshot is None else item.server or item.snapshot.stem, result)
        if result.changed:
            changes = {"written": list(result.written), "removed": list(result.removed)}
            console.emit(item.server, "generated", **_where(item.snapshot, result.path), **changes)
            if code is not None and result.path == code.target:
                from codegen.generate.code_mode import report_tokens

                report_tokens(code)
        else:
            console.emit(item.server, "unchanged", **_where(item.snapshot, result.path))
    if ready:
        try:
            announce_runtime(prune_runtime(out_dir, runtime))
        except StubgenError as error:
            failed += _failed(None, None, error, runtime_dir(out_dir))
    for message in _left_out_errors(lacking, run):
        failed += _failed(None, None, StubgenError(message), hub_dir(out_dir))
    return EXIT_ERROR if failed else EXIT_OK


@dataclass(frozen=True)
class _Ready:
    """A package ready to publish (or proven current): the hub's has no server and no snapshot file."""

    server: str | None
    """The configured server id, or the one a snapshot file given by path names; None for the hub."""
    snapshot: Path | None
    rendered: Rendered


def _inputs(package: PackageSource, sync_client: bool, strict: bool) -> PackageInputs:
    """A package's snapshot bytes, read, with its settings; raises `StubgenError`."""
    source = read_snapshot_bytes(package.snapshot)
    return PackageInputs(source, str(package.snapshot), package.method_names, package.renames, sync_client, strict)


def _failed(server: str | None, snapshot: Path | None, error: StubgenError, hub: Path | None = None) -> int:
    """One server's (or, with no server, the hub's) failure: one line and one JSON object, and the run
    goes on; returns 1, to count it."""
    console.error(str(error))
    where = {"snapshot": shown_path(snapshot)} if snapshot is not None else {}
    if hub is not None:
        where["package"] = package_label(hub)
    console.emit(server, "error", error=str(error), **where)
    return 1


@dataclass(frozen=True)
class _Checked:
    server: str | None
    snapshot: Path | None
    target: Path
    diff: str
    """Empty when the folder is current."""


def _check(run: Targets, cache: Cache) -> int:
    """`generate --check`: a diff per stale package on stdout; every package that can be is checked."""
    stale = current = failed = 0
    checked: list[_Checked] = []
    for package in run.packages:
        try:
            inputs = _inputs(package, run.sync_client, strict=False)
            rendered = render_current(inputs, run.out_dir, cache)
            diff = stale_diff(rendered, cache, package_label(rendered.target))
        except StubgenError as error:
            failed += _failed(package.server or package.snapshot.stem, package.snapshot, error)
            continue
        server = package.server or rendered.server
        checked.append(_Checked(server, package.snapshot, rendered.target, diff))
    lacking: tuple[LeftOut, ...] = ()
    if run.hub is not None:
        from codegen.generate.hub_build import code_mode_build, hub_rendered

        try:
            built = hub_rendered(run.hub, run.out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error)
        else:
            target = built.rendered.target
            checked.append(_Checked(None, None, target, stale_diff(built.rendered, cache, package_label(target))))
            lacking = built.lacking
    if run.hub is not None and run.code_mode:
        try:
            code = code_mode_build(run.hub, run.out_dir, cache)
        except StubgenError as error:
            failed += _failed(None, None, error, code_mode_dir(run.out_dir))
        else:
            diff = stale_diff(code.rendered, cache, package_label(code.target))
            checked.append(_Checked(None, None, code.target, diff))
    if checked:  # the packages' runtime, named only when stale, as `generate` names it only when it writes it
        runtime_folder = runtime_dir(run.out_dir)
        runtime_diff = check_runtime(run.out_dir, package_label(runtime_folder), run.hub is not None)[1]
        if runtime_diff:
            checked.append(_Checked(None, None, runtime_folder, runtime_diff))
    for item in checked:
        stale += bool(item.diff)
        current += not item.diff
        console.result(item.diff, nl=False)
        details = {"diff": item.diff} if item.diff else {}
        console.emit(item.server, "stale" if item.diff else "current", **_where(item.snapshot, item.target), **details)
    for message in _left_out_errors(lacking, run):
        failed += _failed(None, None, StubgenError(message), hub_dir(run.out_dir))
    could_not = f"; {failed} could not be checked" if failed else ""
    if stale:
        console.note(f"{stale} generated package(s) out of date{could_not}; run `mcp-stubgen generate`")
    elif current:
        console.note(f"{current} generated package(s) up to date{could_not}")
    return EXIT_ERROR if failed else EXIT_FINDINGS if stale else EXIT_OK


def _left_out_errors(lacking: tuple[LeftOut, ...], run: Targets) -> list[str]:
    """The hub's left-out servers as errors, but those with no snapshot yet that the run did not name
    (`generate NAME`), which are one warning, as `sync NAME` says them."""
    if not lacking:
        return []
    from codegen.generate.hub_build import left_out_errors

    return left_out_errors(lacking, {package.server or package.snapshot.stem for package in run.packages})


def _where(snapshot: Path | None, package: Path) -> dict[str, str | None]:
    """The `snapshot` and `package` keys of a `--format json` object (no snapshot for the hub)."""
    return {"snapshot": shown_path(snapshot) if snapshot is not None else None, "package": package_label(package)}
