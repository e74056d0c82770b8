"""`drift --usage PATH...`: which tools, resources, templates and prompts the project's own code uses.

An AST scan, no import or type inference: in a file that imports a server's generated package (or the
hub, which holds every server's client), an attribute named like one of that client's methods is a
use, as is `getattr(x, "name")`; anywhere, a string that is a tool's name in the hub
(`hub.call("server__tool", ...)`, or a constant holding it) is a use of that tool. Method names come
from the same planner the generator names them with, for the old and the new snapshot both. The scan
errs toward "used" (an attribute of another object that shares a method's name counts): a breaking
change is let through only when no name that could reach it appears.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codegen.console import warn
from codegen.drift.findings import CallSite, Finding, Kind
from codegen.drift.gitref import report_path
from codegen.errors import StubgenError
from codegen.identifiers import HUB_PACKAGE, package_name, qualified_tools
from codegen.runtime._hub_catalog import HUB_SEPARATOR
from codegen.snapshot import Snapshot

Entity = tuple[str, Kind, str]
"""(server, kind, wire name): what a finding is about and what a use reaches."""

_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})
MAX_SOURCE_BYTES = 10_000_000
"""A larger `.py` file is skipped, with a warning naming it: no hand-written module is near this size,
and a file that never ends (a link to `/dev/zero`) must not be read until memory runs out."""


@dataclass
class Usage:
    """Every use found, by entity; `servers` are those whose clients' names were worked out."""

    servers: frozenset[str]
    sites: dict[Entity, set[CallSite]] = field(default_factory=dict)

    def attach(self, findings: Iterable[Finding]) -> list[Finding]:
        """Each finding about a usable entity of a scanned server, with where it is used (maybe nowhere)."""
        out = []
        for finding in findings:
            if finding.kind == "server" or finding.server not in self.servers:
                out.append(finding)
                continue
            names = {finding.name, finding.old_name} - {None}
            found = {site for name in names for site in self.sites.get((finding.server, finding.kind, str(name)), ())}
            out.append(dataclasses.replace(finding, callers=tuple(sorted(found))))
        return out


@dataclass(frozen=True)
class _Client:
    """What code may write to reach one server: its package's name, its client's members by name."""

    server: str
    package: str
    members: Mapping[str, set[tuple[Kind, str]]]
    hub_names: set[tuple[str, str]]
    """(qualified name, tool) of each tool through the hub, in any catalog version."""


def scan_usage(
    paths: Sequence[Path],
    snapshots: Mapping[str, Sequence[Snapshot]],
    method_names: Mapping[str, Mapping[str, str]],
    separator: str = HUB_SEPARATOR,
    skip: Sequence[Path] = (),
) -> Usage:
    """Uses of every server's entities in the Python files under `paths` (files or folders), except
    under `skip` (the generated packages). `snapshots` are each server's old and new catalogs,
    `method_names` the config's `[tool.mcp-stubgen.method_names]`."""
    clients = [
        _client(server, versions, method_names.get(server, {}), separator) for server, versions in snapshots.items()
    ]
    hub_names = {qualified: (client.server, wire) for client in clients for qualified, wire in client.hub_names}
    usage = Usage(frozenset(client.server for client in clients))
    skipped = [folder.resolve() for folder in skip]
    for file in _python_files(paths, skipped):
        source = _source(file)
        if source is None:
            continue
        tree = _parse(file, source)
        shown = report_path(file)
        imported = _imported_components(tree)
        reachable = clients if HUB_PACKAGE in imported else [c for c in clients if c.package in imported]
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute | ast.Call) and (member := _member_named(node)) is not None:
                for client in reachable:
                    for kind, wire in client.members.get(member, ()):
                        site = CallSite(shown, node.lineno, node.col_offset)
                        usage.sites.setdefault((client.server, kind, wire), set()).add(site)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in hub_names:
                server, wire = hub_names[node.value]
                site = CallSite(shown, node.lineno, node.col_offset)
                usage.sites.setdefault((server, "tool", wire), set()).add(site)
    return usage


def _member_named(node: ast.Attribute | ast.Call) -> str | None:
    """The member a node reaches by name: `x.name`, or `getattr(x, "name")` (a method picked by name)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if (
        isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "hasattr")
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return node.args[1].value
    return None


def _client(server: str, versions: Sequence[Snapshot], method_names: Mapping[str, str], separator: str) -> _Client:
    """The members a server's generated client has, and its tools' names in the hub, for any of its catalog versions."""
    from codegen.generate.build import plan_package  # the generator loads only when --usage is given

    members: dict[str, set[tuple[Kind, str]]] = {}
    hub_names: set[tuple[str, str]] = set()
    for snapshot in versions:
        try:
            plan = plan_package(snapshot, method_names)
        except StubgenError as error:
            raise StubgenError(f"--usage: cannot name the methods of {server!r}'s client: {error}") from None
        named: list[tuple[Kind, str, str]] = [("tool", tool.named.wire, tool.named.python) for tool in plan.tools]
        named += [("tool", tool.named.wire, tool.start_method) for tool in plan.tools if tool.start_method]
        named += [("resource", item.wire, item.python) for item in plan.resource_names]
        named += [("template", item.wire, item.python) for item in plan.template_names]
        named += [("prompt", item.wire, item.python) for item in plan.prompt_names]
        for kind, wire, python in named:
            members.setdefault(python, set()).add((kind, wire))
        methods = {tool.named.wire: tool.named.python for tool in plan.tools}
        hub_names |= {
            (qualified.qualified_name, qualified.tool)
            for qualified in qualified_tools(
                {server: list(methods)}, separator, {server: methods}, {server: snapshot.naming_rules}
            )
        }
    return _Client(server, package_name(server), members, hub_names)


def _python_files(paths: Sequence[Path], skipped: Sequence[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            for folder, folders, files in os.walk(path):
                here = Path(folder).resolve()
                if any(here == skip or skip in here.parents for skip in skipped):
                    folders.clear()
                    continue
                folders[:] = sorted(
                    name for name in folders if not name.startswith(".") and name not in _SKIPPED_FOLDERS
                )
                yield from (Path(folder) / name for name in sorted(files) if name.endswith(".py"))
        elif path.exists():
            yield path
        else:
            raise StubgenError(f"--usage {path}: no such file or folder")


def _source(file: Path) -> bytes | None:
    """A source file's bytes, or None (and a warning naming it) for one that is not a regular file (a
    FIFO, a device, a link to one) or is larger than `MAX_SOURCE_BYTES`. A file that cannot be read
    is an error, since a use hidden in it would let a breaking change through. Opened without
    blocking and checked again once open, so a file swapped for a FIFO meanwhile cannot hang the scan."""
    try:
        if stat.S_ISREG(os.stat(file).st_mode):
            descriptor = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(descriptor, "rb") as handle:
                regular = stat.S_ISREG(os.fstat(descriptor).st_mode)
                source = handle.read(MAX_SOURCE_BYTES + 1) if regular else b""
        else:
            regular = False
    except OSError as error:
        raise StubgenError(f"--usage: cannot read {file} ({error.strerror})") from None
    if not regular:
        warn(f"--usage: skipped {file}: not a regular file; uses in it are not found")
        return None
    if len(source) > MAX_SOURCE_BYTES:
        warn(f"--usage: skipped {file}: larger than {MAX_SOURCE_BYTES:,} bytes; uses in it are not found")
        return None
    return source


def _parse(file: Path, source: bytes) -> ast.Module:
    """A source file's tree; one that cannot be parsed is an error, since a use hidden in it would let
    a breaking change through."""
    try:
        return ast.parse(source, filename=str(file))
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        where = f"{file}:{line}" if line else str(file)
        raise StubgenError(
            f"--usage: {where} is not valid Python ({getattr(error, 'msg', error)}); fix it or leave it out"
        ) from None


def _imported_components(tree: ast.Module) -> set[str]:
    """Every dotted component of every module (and name) the file imports: `from app.clients import
    weather` and `from app.clients.weather import WeatherClient` both yield `weather`."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(alias.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            found.update((node.module or "").split("."))
            found.update(alias.name for alias in node.names)
    return found
