"""A package redone for the few tools whose text changed, from a record of its last render.

Rendering a 1,000-tool package again for one changed tool read, planned, assembled and rendered every
tool: 0.8 s, where issue 29 allows a tenth of a cold run (about 0.4 s). So each render is recorded in the cache, under the
digest of the files it made (`LastRender`): each tool's text in the snapshot file (hashed), its names,
what the rest of the package reads of it (`build.package_facing`), and client.py's chunks
(`render.Chunk`). A later render whose package folder holds exactly those files, and whose snapshot
file differs from the recorded one only inside some tools' texts, builds those tools alone and puts
their models module, methods and fingerprints into the files on disk, with the snapshot's new
fingerprint in every header. Anything else (a tool added, removed or renamed, any change outside the
tools, a changed tool that the rest of the package reads differently, a catalog the record cannot
describe) renders the whole package; the bytes are the same either way (`test_last_render`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, get_args

from codegen.generate.build import model_module, package_facing, package_flags, warn_untyped
from codegen.generate.cache import Cache, cache_key
from codegen.generate.headers import header_lines
from codegen.generate.package_plan import PackagePlan, ToolPlan, check_tool, content_digest
from codegen.generate.piecewise_black import cached_members
from codegen.generate.pipeline import PackageInputs, Rendered
from codegen.generate.publish import read_tree
from codegen.generate.render import Chunk, ChunkKind, methods_text, model_module_file
from codegen.generate.spec import ModelModule, PackageSpec, ToolSpec
from codegen.generate.tool_workers import tool_parts
from codegen.identifiers import UNRECORDED_RULES, Named, package_name, task_support
from codegen.snapshot import Snapshot
from codegen.snapshot.format import read_tool_span, tool_spans

__all__ = ["LastRender", "describe_render", "redo_changed_tools", "remember_last_render"]

_FACADES = ("__init__.py", "models.py", "_models/__init__.py")
"""The package's files besides client.py that hold nothing of a tool but through what
`package_facing` covers: only their header changes with a tool's text."""


class ToolRecord(NamedTuple):
    """One tool of a recorded render: what building it alone again needs, and what to compare."""

    wire: str
    span: str
    """The hash of the tool's text in the snapshot file (`tool_spans`)."""
    fingerprint: str
    python: str
    stem: str
    start_method: str | None
    task_support: str | None
    keywords: Mapping[str, str]
    facing: str
    """The hash of `build.package_facing` of the tool."""
    flags: int
    """`build.package_flags` of the tool."""
    untyped_reason: str | None
    untyped_output: str | None
    """`ToolSpec.untyped_output`: a redone render repeats its warning, as it does `untyped_reason`'s."""


@dataclass(frozen=True)
class LastRender:
    """A package's render as a later one needs it to redo only the tools whose text changed."""

    server: str
    frame: str
    """The hash of the snapshot file's bytes before its first tool (`tool_spans`)."""
    snapshot_fingerprint: str
    naming_rules: int
    tools: tuple[ToolRecord, ...]
    """In the snapshot's order, which is the file's."""
    client: tuple[tuple[str, str, int], ...]
    """client.py after its header: each `Chunk`'s kind, tool and length in bytes."""

    def to_text(self) -> str:
        tools = [list(tool) for tool in self.tools]
        document = [self.server, self.frame, self.snapshot_fingerprint, self.naming_rules, tools, list(self.client)]
        return json.dumps(document, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str) -> LastRender | None:
        """The record a cache entry holds; None for anything this release did not write (an entry
        damaged or edited by hand is a miss, as every unreadable cache entry is)."""
        try:
            server, frame, fingerprint, rules, tools, client = json.loads(text)
            records = tuple(map(ToolRecord._make, tools))
            chunks = tuple((kind, wire, length) for kind, wire, length in client)
        except (ValueError, TypeError, RecursionError):
            return None
        if not (_all_str(server, frame, fingerprint) and type(rules) is int):
            return None
        if not all(_well_typed(record) for record in records):
            return None
        if not all(kind in _CHUNK_KINDS and type(wire) is str and type(length) is int for kind, wire, length in chunks):
            return None
        return cls(server, frame, fingerprint, rules, records, chunks)


_CHUNK_KINDS = frozenset(get_args(ChunkKind))
"""What `Chunk.kind` may be."""


def _all_str(*values: object) -> bool:
    return all(type(value) is str for value in values)


def _optional_str(value: object) -> bool:
    return value is None or type(value) is str


def _well_typed(record: ToolRecord) -> bool:
    """Whether a record read back holds what `describe_render` writes, field by field."""
    keywords = record.keywords
    return (
        _all_str(record.wire, record.span, record.fingerprint, record.python, record.stem, record.facing)
        and _optional_str(record.start_method)
        and _optional_str(record.task_support)
        and _optional_str(record.untyped_reason)
        and _optional_str(record.untyped_output)
        and type(record.flags) is int
        and type(keywords) is dict
        and _all_str(*keywords, *keywords.values())
    )


def _hash(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def _key(tree_digest: str, method_names: Mapping[str, str], sync_client: bool) -> str:
    settings = json.dumps([sorted(method_names.items()), sync_client], ensure_ascii=False)
    return cache_key("last-render", tree_digest, settings)


def describe_render(
    source: bytes,
    snapshot: Snapshot,
    plan: PackagePlan,
    package: PackageSpec,
    chunks: Sequence[Chunk] | None,
    method_names: Mapping[str, str],
    renames: Mapping[str, str],
) -> LastRender | None:
    """The record of a whole render of `source`, or None where a later render could not be redone from
    one: a snapshot file not exactly as `write_snapshot` writes it (a hand edit the reader sorted), one
    whose naming rules are not recorded in it (a changed tool could change them), a render that warned
    of more than untyped tools (stated renames, a `method_names` entry naming no tool, a resource
    template left out: a redone render would not repeat the warning), or a client.py not laid out
    in chunks."""
    cut = tool_spans(source)
    if (
        chunks is None
        or cut is None
        or renames
        or not {tool.named.wire for tool in plan.tools}.issuperset(method_names)
        or snapshot.naming_rules <= UNRECORDED_RULES
        or len(package.templates) != len(snapshot.resource_templates)
        or len(cut[1]) != len(plan.tools)
        or snapshot.canonical_bytes() != source
    ):
        return None
    frame, spans = cut
    modules = {module.module: module for module in package.model_modules}
    specs = {spec.wire: spec for spec in package.tools}
    tools = []
    for tool, span in zip(plan.tools, spans, strict=True):
        spec = specs[tool.named.wire]
        tools.append(
            ToolRecord(
                wire=tool.named.wire,
                span=_hash(span),
                fingerprint=tool.fingerprint,
                python=tool.named.python,
                stem=tool.stem,
                start_method=tool.start_method,
                task_support=spec.task_support,
                keywords=dict(tool.keywords),
                facing=_hash(package_facing(spec, modules[spec.module]).encode()),
                flags=package_flags(spec),
                untyped_reason=spec.untyped_reason,
                untyped_output=spec.untyped_output,
            )
        )
    client = tuple((chunk.kind, chunk.wire, len(chunk.text.encode())) for chunk in chunks)
    return LastRender(snapshot.server, _hash(frame), snapshot.fingerprint, snapshot.naming_rules, tuple(tools), client)


def remember_last_render(
    record: LastRender, tree_digest: str, method_names: Mapping[str, str], sync_client: bool, cache: Cache
) -> None:
    """Keep `record` for the package whose files have `tree_digest`, rendered with these settings."""
    cache.put(_key(tree_digest, method_names, sync_client), record.to_text())


def redo_changed_tools(inputs: PackageInputs, out_dir: Path, cache: Cache) -> Rendered | None:
    """The package of `inputs` redone from the record of its folder's last render, when only some
    tools' texts changed and nothing else reads them differently (with the folder as read and the
    hashes of the files it keeps, for publishing and recording it); None when it must be rendered
    whole. Raises `StubgenError` for a changed tool no package can be generated from, as a whole
    render would."""
    source, method_names, sync_client = inputs.source, inputs.method_names, inputs.sync_client
    cut = tool_spans(source)
    if cut is None:
        return None
    frame, spans = cut
    server = _server_named(frame)
    if server is None:
        return None
    target = out_dir / package_name(server)
    folder = read_tree(target)
    if not folder or None in folder.values():
        return None
    from codegen.generate.proof import content_hashes, source_digest, tree_digest

    hashes = content_hashes(folder)
    text = cache.get(_key(tree_digest(folder, hashes), method_names, sync_client))
    record = LastRender.from_text(text) if text is not None else None
    if record is None or record.server != server or record.frame != _hash(frame) or len(record.tools) != len(spans):
        return None
    changed = {index: span for index, span in enumerate(spans) if _hash(span) != record.tools[index].span}
    planned = [_tool_plan(record, index, span) for index, span in changed.items()]
    plans = [plan for plan in planned if plan is not None]
    if not changed or len(plans) != len(planned):
        return None
    for plan in plans:  # only once all can be redone: a whole render may refuse a renamed tool first
        check_tool(f"server {server!r}: ", plan.tool)
    built = dict(zip(changed, tool_parts(server, plans, cache), strict=True))
    tools = list(record.tools)
    modules: dict[str, ModelModule] = {}
    for (index, parts), plan in zip(built.items(), plans, strict=True):
        module = model_module(plan, parts)
        if _hash(package_facing(parts.spec, module).encode()) != tools[index].facing:
            return None
        tools[index] = tools[index]._replace(
            span=_hash(spans[index]),
            fingerprint=plan.fingerprint,
            flags=package_flags(parts.spec),
            untyped_reason=parts.spec.untyped_reason,
            untyped_output=parts.spec.untyped_output,
        )
        modules[plan.named.wire] = module
    if _union(tools) != _union(record.tools):
        return None
    fingerprint = source_digest(source)[:16]  # the file is as `write_snapshot` writes it: its canonical bytes
    old_header = (header_lines(f"snapshot {record.snapshot_fingerprint}") + "\n").encode()
    new_header = (header_lines(f"snapshot {fingerprint}") + "\n").encode()
    files = {name: data for name, data in folder.items() if data is not None}
    for name in (*_FACADES, "client.py"):
        data = files.get(name)
        if data is None or not data.startswith(old_header):
            return None
        if name != "client.py":
            files[name] = new_header + data[len(old_header) :]
    specs = {parts.spec.wire: parts.spec for parts in built.values()}
    body = memoryview(files["client.py"])[len(old_header) :]
    client = _client_redone(body, record, fingerprint, specs, modules, cache)
    if client is None:
        return None
    files["client.py"] = new_header + client[0]
    for module in modules.values():
        files[f"_models/{module.module}.py"] = model_module_file(module)
    for tool in tools:
        warn_untyped(server, tool.wire, tool.untyped_reason, tool.untyped_output, strict=False)
    redone = LastRender(server, record.frame, fingerprint, record.naming_rules, tuple(tools), client[1])
    unchanged = {name: hashes[name] for name, data in files.items() if data is folder[name]}
    return Rendered(target, dict(sorted(files.items())), inputs.key, server, redone, folder, unchanged)


def _union(tools: Sequence[ToolRecord]) -> int:
    """The `package_flags` of a package's tools together, as its imports read them."""
    union = 0
    for tool in tools:
        union |= tool.flags
    return union


def _server_named(frame: bytes) -> str | None:
    """The server a snapshot file names, read from the bytes before its tools; None when they do not
    read as the start of a snapshot (the whole file then says what is wrong)."""
    try:
        document: Any = json.loads(frame + b"]}")
    except (ValueError, RecursionError):  # nested too deep: reading the file whole says so
        return None
    server = document.get("server") if isinstance(document, dict) else None
    return server if isinstance(server, str) else None


def _tool_plan(record: LastRender, index: int, span: memoryview) -> ToolPlan | None:
    """The plan of a changed tool: the names its record holds, which stay its names while its own name
    and task support (all that names depend on of a tool) do not change; None when they did, or when
    the span is not a tool's text as `write_snapshot` writes it."""
    read = read_tool_span(span)
    if read is None:
        return None
    tool, compact, fingerprint = read
    known = record.tools[index]
    if tool["name"] != known.wire or task_support(tool) != known.task_support:
        return None
    named = Named(known.wire, known.python)
    return ToolPlan(
        tool,
        named,
        known.stem,
        fingerprint,
        content_digest(compact),
        len(compact),
        known.start_method,
        known.keywords,
        record.naming_rules,
    )


def _client_redone(
    body: memoryview,
    record: LastRender,
    fingerprint: str,
    specs: Mapping[str, ToolSpec],
    modules: Mapping[str, ModelModule],
    cache: Cache,
) -> tuple[bytes, tuple[tuple[str, str, int], ...]] | None:
    """client.py after its header with the changed tools' methods and fingerprints and the snapshot's
    fingerprint replaced, and its chunks' lengths; None when the file does not hold the recorded chunks."""
    pieces: list[bytes | memoryview] = []
    lengths: list[tuple[str, str, int]] = []
    position = 0
    for kind, wire, length in record.client:
        data: bytes | memoryview = body[position : position + length]
        position += length
        if kind == "snapshot":
            data = fingerprint.encode()
        elif kind == "fingerprint" and wire in modules:
            data = modules[wire].tool_fingerprint.encode()
        elif kind in ("methods", "sync methods") and wire in specs:
            methods = cached_members(specs[wire], cache)
            assert methods is not None, "tool_parts holds every tool's formatted methods in the cache"
            data = methods_text(methods[kind == "sync methods"]).encode()
        pieces.append(data)
        lengths.append((kind, wire, len(data)))
    if position != len(body):
        return None
    return b"".join(pieces), tuple(lengths)
