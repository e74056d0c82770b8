"""Compare two snapshots of one server: match entries (by key, then by rename), then judge each pair.

Entries are matched by their wire identity (tool and prompt name, resource URI, template URI with
variable names erased) before anything is compared, so a server that reorders its catalog reports
nothing and a rename is reported once rather than as a removal plus an addition.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from codegen.drift.apps import compare_ui
from codegen.drift.findings import Finding, Kind, pointer, sort_findings
from codegen.drift.models import renamed_models
from codegen.drift.names import retargeted_keywords, retargeted_names
from codegen.drift.normalize import JSON, canonical, normalize_schema, same, strip_text
from codegen.drift.renames import Rename, find_renames, schema_features
from codegen.drift.schema import Direction, compare_schema
from codegen.drift.typing_changes import retyped_methods
from codegen.identifiers import task_support, wraps_result
from codegen.snapshot import Snapshot
from codegen.snapshot.audit import catalog_findings

HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
"""The MCP spec's defaults: an absent hint means the cautious value."""

_HINT_RULES = (
    ("readOnlyHint", "annotation-readonly-withdrawn", "is no longer marked read-only", "annotation-readonly-claimed",
     "now claims to be read-only (hosts may run it without asking)"),
    ("destructiveHint", "annotation-destructive-withdrawn", "no longer warns that it may destroy data",
     "annotation-destructive-added", "is now marked destructive"),
    ("idempotentHint", "annotation-idempotent-withdrawn", "is no longer marked idempotent",
     "annotation-idempotent-claimed", "now claims to be idempotent (hosts may retry it)"),
    ("openWorldHint", "annotation-openworld-withdrawn", "no longer says it reaches an open world",
     "annotation-openworld-added", "now reaches an open world"),
)  # fmt: skip
"""(hint, rule and message when it becomes false, rule and message when it becomes true), on effective
values: a move toward more trust (read-only, not destructive, idempotent, closed world) is what a host
acts on without asking, and a move away from it withdraws a promise callers relied on."""

TASK_SUPPORT_DEFAULT = "forbidden"
"""The spec's value for a tool without `execution.taskSupport`."""

_TASK_MODES = {
    "forbidden": frozenset({"plain"}),
    "optional": frozenset({"plain", "task"}),
    "required": frozenset({"task"}),
}
"""How each `execution.taskSupport` value lets a tool be called: plainly, as a task, or both."""

_SERVER_INFO_KEYS = ("name", "title", "version", "websiteUrl", "description")
"""`serverInfo` fields reported when they change: the server's identity, display only."""

_VOLATILE_ENTRY_KEYS = frozenset({"_meta", "icons"})
"""Cache hints and pictures: not part of what a client calls."""

_RESOURCE_HINT_KEYS = frozenset({"size", "annotations"})
"""A resource's size and its audience, priority and lastModified hints: they describe the content a
read returns, which changes freely, not how a client reads it. A MIME type where there was none is
likewise new information, not a change."""

_Add = Callable[..., None]
"""add(rule, message, path, old, new) for one entity."""

_TEMPLATE_VARIABLE = re.compile(r"\{[^}]*\}")


@dataclass
class _Collector:
    """Findings of one server comparison, stamped with the entity each one is about."""

    server: str
    findings: list[Finding] = field(default_factory=list)

    def add(
        self,
        rule: str,
        kind: Kind,
        name: str,
        message: str,
        path: str = "",
        old: Any = None,
        new: Any = None,
        old_name: str | None = None,
        similarity: float | None = None,
    ) -> None:
        self.findings.append(Finding(rule, kind, name, message, path, old, new, old_name, self.server, similarity))


def compare_snapshots(
    old: Snapshot,
    new: Snapshot,
    renames: Mapping[str, str] | None = None,
    method_names: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Every finding between two snapshots of one server, sorted; `renames` maps old to new names,
    `method_names` is the config's choice of method names for the server (`method-retargeted`).

    The new catalog is named by the old one's naming rules, as the snapshot that replaces it keeps
    them (`keep_names`): a fresh snapshot taken by a newer mcp-stubgen reports what the server
    changed, not what newer rules would name another way."""
    if new.naming_rules != old.naming_rules:
        new = replace(new, naming_rules=old.naming_rules)
    out = _Collector(new.server)
    stated = dict(renames or {})
    _compare_server(old, new, out)
    _compare_kind(out, "tool", old.tools, new.tools, "name", stated)
    _compare_kind(out, "resource", old.resources, new.resources, "uri", stated)
    _compare_templates(out, old.resource_templates, new.resource_templates)
    _compare_kind(out, "prompt", old.prompts, new.prompts, "name", stated)
    _audit_new_text(old, new, out)
    renamed = {(found.kind, found.old_name): found.name for found in out.findings if found.rule.endswith("-renamed")}
    retargeted_names(old, new, method_names, renamed, out.add)
    retargeted_keywords(old, new, out.add)
    renamed_models(old, new, method_names, out.add)
    untyped_outputs = retyped_methods(old, new, method_names, out.add)
    return sort_findings([_untyped_output_added(found, untyped_outputs) for found in out.findings])


def _untyped_output_added(found: Finding, untyped_outputs: Mapping[str, str]) -> Finding:
    """`found` as said of a tool whose new output schema gives no type (`untyped_outputs`: why, by
    tool), when it is that tool's `out-schema-added`: its regenerated method still returns `ToolResult`."""
    if found.rule != "out-schema-added" or found.name not in untyped_outputs:
        return found
    message = (
        f"now promises structured results, but its output schema gives no type ({untyped_outputs[found.name]}): "
        "a regenerated client's method still returns ToolResult, its structured content at "
        "`result.raw.structured_content`"
    )
    return replace(found, message=message)


def _audit_new_text(old: Snapshot, new: Snapshot, out: _Collector) -> None:
    """What the catalog-text audit finds in the new snapshot and did not find in the same entity
    before: an added or changed entry, or changed instructions, that reads like a prompt injection."""
    for found in catalog_findings(new, since=old):
        message = (
            f"{found.kind} text at {found.where} reads like a prompt injection ({found.finding.kind}): "
            f"{found.finding.why}; review it"
        )
        out.add(f"text-{found.finding.kind}", found.kind, found.name, message, found.where, None, found.finding.excerpt)


def _added_rule(kind: Kind, name: str, entry: JSON) -> tuple[str, str]:
    """The rule and message for an added entry: a new tool that its hints (or their cautious defaults)
    make destructive or open-world has its own, dangerous rule, since hosts may offer it at once."""
    if kind == "tool":
        hints = entry.get("annotations") or {}
        if not _hint(hints, "readOnlyHint") and _hint(hints, "destructiveHint"):
            return (
                "tool-added-destructive",
                f"tool {name!r} was added; its hints (or their absence) say it may destroy data",
            )
        if _hint(hints, "openWorldHint"):
            return (
                "tool-added-open-world",
                f"tool {name!r} was added; its hints (or their absence) say it reaches an open world",
            )
    return f"{kind}-added", f"{kind} {name!r} was added"


def _compare_server(old: Snapshot, new: Snapshot, out: _Collector) -> None:
    name = new.server
    if old.protocol_version != new.protocol_version:
        out.add(
            "protocol-version-changed",
            "server",
            name,
            f"protocol version changed from {old.protocol_version} to {new.protocol_version}",
            "/protocolVersion",
            old.protocol_version,
            new.protocol_version,
        )
    if old.instructions != new.instructions:
        out.add(
            "instructions-changed",
            "server",
            name,
            "server instructions changed; they are part of the model's prompt",
            "/instructions",
            old.instructions,
            new.instructions,
        )
    old_info, new_info = old.server_info or {}, new.server_info or {}
    for key in _SERVER_INFO_KEYS:
        before, after = old_info.get(key), new_info.get(key)
        if before != after:
            message = f"server {key} changed from {_shown(before)} to {_shown(after)}"
            out.add("server-info-changed", "server", name, message, pointer("serverInfo", key), before, after)
    _compare_capabilities(_usable_capabilities(old), new.capabilities, ("capabilities",), name, out)
    _compare_extensions(old.capabilities.get("extensions", {}), new.capabilities.get("extensions", {}), name, out)
    if old.client_capabilities != new.client_capabilities:
        before, after = list(old.client_capabilities), list(new.client_capabilities)
        message = (
            f"the client capabilities declared in the handshake changed from {', '.join(before) or 'none'} "
            f"to {', '.join(after) or 'none'}; "
            "tools listed only to clients declaring them appear or vanish with them"
        )
        out.add("client-capabilities-changed", "server", name, message, "/clientCapabilities", before, after)
    for method in sorted(set(old.missing_methods) - set(new.missing_methods)):
        if method.split("/")[0] not in new.capabilities:  # not listed at all: capability-removed says so
            continue
        message = f"{method} is now implemented (it answered -32601 Method not found before)"
        out.add("list-method-appeared", "server", name, message, "/missingMethods", method, None)


def _usable_capabilities(snapshot: Snapshot) -> JSON:
    """The capabilities a caller could use, so that withdrawing one that offered nothing takes nothing
    away: `tasks` offers task-augmented calls of the tools that allow them (FastMCP 2 declares it on
    every server, FastMCP 3 does not), `completions` completes prompt arguments and template
    variables (the TypeScript SDK declares it for a prompt without arguments)."""
    idle = set()
    if not any(task_support(tool) for tool in snapshot.tools):
        idle.add("tasks")
    if not snapshot.resource_templates and not any(prompt.get("arguments") for prompt in snapshot.prompts):
        idle.add("completions")
    if isinstance(snapshot.capabilities.get("extensions"), dict):
        idle.add("extensions")  # `_compare_extensions` judges each one
    return {key: value for key, value in snapshot.capabilities.items() if key not in idle}


def _compare_extensions(old: Any, new: Any, server: str, out: _Collector) -> None:
    """Each extension identifier on its own, none as breaking: an extension is in use only when the
    client declares it too, and generated clients and the hub declare none, so no call of theirs
    changes; a host that negotiates one (an MCP Apps host rendering the server's UI) does lose it."""
    if not isinstance(old, dict):
        return  # not a map of extensions: `_compare_capabilities` judged it
    after = new if isinstance(new, dict) else {}
    unused = "generated clients declare no extension, so none of their calls change"
    for identifier in sorted(set(old) | set(after)):
        where = pointer("capabilities", "extensions", identifier)
        before, now = old.get(identifier, _GONE), after.get(identifier, _GONE)
        if now is _GONE:
            message = f"extension {identifier} was withdrawn; a host that used it loses it ({unused})"
            out.add("capability-extension-removed", "server", server, message, where, before, None)
        elif before is _GONE:
            message = f"extension {identifier} is now offered; a client uses it only by declaring it too"
            out.add("capability-extension-added", "server", server, message, where, None, now)
        elif not same(before, now):
            message = (
                f"extension {identifier} changed its settings; a host that used it may behave otherwise ({unused})"
            )
            out.add("capability-extension-changed", "server", server, message, where, before, now)


def _compare_capabilities(old: Any, new: Any, path: tuple[str, ...], server: str, out: _Collector) -> None:
    where = pointer(*path)
    label = ".".join(path[1:])
    if path[-1] == "experimental" and old == {} and new is _GONE:
        return  # a map of non-standard capabilities: declaring none is saying nothing
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if key in old:
                _compare_capabilities(old[key], new.get(key, _GONE), (*path, key), server, out)
        return
    if old == new or old is False or old is None:
        return
    if new is _GONE or new is False or new is None:
        if path[-1] == "listChanged":
            message = f"capability {label} was withdrawn: list changes are no longer announced"
            out.add("capability-listchanged-removed", "server", server, message, where, old, None)
        else:
            out.add("capability-removed", "server", server, f"capability {label} was removed", where, old, None)
        return
    out.add(
        "schema-uncomparable",
        "server",
        server,
        f"capability {label} changed; cannot prove it compatible, review by hand",
        where,
        old,
        new,
    )


_GONE: Any = object()


def _compare_kind(
    out: _Collector,
    kind: Kind,
    old_entries: tuple[JSON, ...],
    new_entries: tuple[JSON, ...],
    key: str,
    stated: Mapping[str, str],
) -> None:
    before = {entry[key]: entry for entry in old_entries}
    after = {entry[key]: entry for entry in new_entries}
    removed = {name: entry for name, entry in before.items() if name not in after}
    added = {name: entry for name, entry in after.items() if name not in before}
    renames = find_renames(removed, added, _FEATURES[kind], stated)
    for rename in renames:
        _report_rename(out, kind, rename)
        del removed[rename.old], added[rename.new]
        _compare_entry(out, kind, before[rename.old], after[rename.new], rename.new, rename.old)
    for name in sorted(set(before) & set(after)):
        _compare_entry(out, kind, before[name], after[name], name, None)
    for name in sorted(removed):
        out.add(f"{kind}-removed", kind, name, f"{kind} {name!r} was removed", old=removed[name])
    for name in sorted(added):
        rule, message = _added_rule(kind, name, added[name])
        out.add(rule, kind, name, message, new=added[name])


def _report_rename(out: _Collector, kind: Kind, rename: Rename) -> None:
    out.add(
        f"{kind}-renamed",
        kind,
        rename.new,
        f"{kind} {rename.old!r} was renamed to {rename.new!r} ({rename.evidence}); callers must use the new name",
        old=rename.old,
        new=rename.new,
        old_name=rename.old,
        similarity=rename.similarity,
    )


def _compare_entry(out: _Collector, kind: Kind, old: JSON, new: JSON, name: str, old_name: str | None) -> None:
    def add(rule: str, message: str, path: str = "", before: Any = None, after: Any = None) -> None:
        out.add(rule, kind, name, message, path, before, after, old_name)

    described = "prompt-description-changed" if kind == "prompt" else "description-changed"
    if old.get("description") != new.get("description"):
        message = f"{kind} description changed; a model reads it, review the new text"
        if _same_words(old.get("description"), new.get("description")):
            message = f"{kind} description changed in its spacing only, its words are the same"
        add(described, message, "/description", old.get("description"), new.get("description"))
    if old.get("title") != new.get("title"):
        add("title-changed", f"{kind} title changed", "/title", old.get("title"), new.get("title"))
    compare_ui(kind, old.get("_meta"), new.get("_meta"), add)
    handled = {"name", "description", "title", *_VOLATILE_ENTRY_KEYS}
    if kind == "tool":
        handled |= {"inputSchema", "outputSchema", "annotations", "execution"}
        _compare_tool(old, new, name, add)
        _compare_execution(old.get("execution"), new.get("execution"), add)
    elif kind == "resource" or kind == "template":
        handled |= {"uri", "uriTemplate", "mimeType", *_RESOURCE_HINT_KEYS}
        if "mimeType" in old and old.get("mimeType") != new.get("mimeType"):
            message = f"MIME type changed from {_shown(old.get('mimeType'))} to {_shown(new.get('mimeType'))}"
            add("resource-mimetype-changed", message, "/mimeType", old.get("mimeType"), new.get("mimeType"))
        if old.get("name") != new.get("name"):
            message = f"{kind} name changed from {_shown(old.get('name'))} to {_shown(new.get('name'))}"
            add("resource-renamed", message, "/name", old.get("name"), new.get("name"))
    elif kind == "prompt":
        handled.add("arguments")
        _compare_prompt_arguments(old.get("arguments") or [], new.get("arguments") or [], add)
    for key in sorted((set(old) | set(new)) - handled):
        if not same(old.get(key), new.get(key)):
            message = f"`{key}` changed; cannot prove it compatible, review by hand"
            add("schema-uncomparable", message, pointer(key), old.get(key), new.get(key))


def _same_words(old: object, new: object) -> bool:
    """Whether two texts differ only in whitespace: a Python server's tool descriptions are its
    functions' docstrings, indented under Python 3.12 and dedented by 3.13's compiler, so moving the
    server to 3.13 changes every one of them, and the word diff of such a change shows nothing."""
    return isinstance(old, str) and isinstance(new, str) and old.split() == new.split()


def _compare_tool(old: JSON, new: JSON, name: str, add: _Add) -> None:
    old_hints, new_hints = old.get("annotations") or {}, new.get("annotations") or {}
    if old_hints.get("title") != new_hints.get("title"):
        add("title-changed", "tool title changed", "/annotations/title", old_hints.get("title"), new_hints.get("title"))
    for hint, to_false, false_message, to_true, true_message in _HINT_RULES:
        before, after = _hint(old_hints, hint), _hint(new_hints, hint)
        if before != after:
            rule, message = (to_true, true_message) if after else (to_false, false_message)
            add(rule, f"tool {message}", pointer("annotations", hint), before, after)
    if _may_differ(old, new, "inputSchema"):
        _compare_schema(tool_schema(old, "inputSchema"), tool_schema(new, "inputSchema"), "in", "/inputSchema", add)
    if "outputSchema" in old and "outputSchema" not in new:
        add("out-schema-removed", "structured results are no longer promised", "/outputSchema", old["outputSchema"])
    elif "outputSchema" in new and "outputSchema" not in old:
        message = (
            "now promises structured results: a regenerated client's method returns a model instead of"
            " ToolResult, so callers reading `.content` or `.text` must change"
        )
        add("out-schema-added", message, "/outputSchema", None, new["outputSchema"])
    elif "outputSchema" in new and _may_differ(old, new, "outputSchema"):
        _compare_schema(tool_schema(old, "outputSchema"), tool_schema(new, "outputSchema"), "out", "/outputSchema", add)
        was, now = (wraps_result(tool["name"], tool["outputSchema"]) for tool in (old, new))
        if was != now:
            message = (
                "the regenerated method returns the whole output model where it returned its `result` value"
                if was
                else "the regenerated method returns the output's `result` value where it returned the whole model"
            )
            add("out-return-changed", message, "/outputSchema", old["outputSchema"], new["outputSchema"])


def _hint(hints: JSON, hint: str) -> bool:
    """The hint's effective value: a missing or malformed hint means the spec's cautious default."""
    value = hints.get(hint)
    return value if isinstance(value, bool) else HINT_DEFAULTS[hint]


def _compare_execution(old: Any, new: Any, add: _Add) -> None:
    """`execution.taskSupport` by meaning: a tool may be called plainly, as a task, or both; losing a
    way to call it breaks callers that use it, gaining one breaks nobody. Absent means `forbidden`."""
    if not all(value is None or isinstance(value, dict) for value in (old, new)):
        if old != new:
            add("schema-uncomparable", "`execution` is not an object; review by hand", "/execution", old, new)
        return
    before, after = old or {}, new or {}
    for key in sorted((set(before) | set(after)) - {"taskSupport"}):
        if before.get(key) != after.get(key):
            message = f"`execution.{key}` changed; cannot prove it compatible, review by hand"
            add("schema-uncomparable", message, pointer("execution", key), before.get(key), after.get(key))
    was = before.get("taskSupport", TASK_SUPPORT_DEFAULT)
    now = after.get("taskSupport", TASK_SUPPORT_DEFAULT)
    if was == now:
        return
    where = pointer("execution", "taskSupport")
    if was not in _TASK_MODES or now not in _TASK_MODES:
        add("schema-uncomparable", "`execution.taskSupport` changed to or from an unknown value", where, was, now)
    elif _TASK_MODES[now] >= _TASK_MODES[was]:
        add("task-support-widened", f"task support changed from {was} to {now}", where, was, now)
    else:
        message = f"task support changed from {was} to {now}; callers that call it the old way now fail"
        add("task-support-narrowed", message, where, was, now)


def _shown(value: Any) -> str:
    """A value in a message: absent is "absent", never Python's `None`."""
    return "absent" if value is None else repr(value)


def _may_differ(old: JSON, new: JSON, key: str) -> bool:
    """Whether two tools' schemas under `key` can normalise differently. Normalising is a function of
    the schema and the tool's name (its root title), and equal normal forms yield no finding, so a
    schema written identically under the same name is skipped: most of a catalog, most of the time.
    "Identically" is compared as JSON text, where `1`, `1.0` and `true` differ, as they may when
    normalised (a draft-4 `exclusiveMinimum: true` is not `exclusiveMinimum: 1`)."""
    if old.get("name") != new.get("name"):
        return True
    return canonical(old.get(key, {})) != canonical(new.get(key, {}))


FASTMCP_WRAPPER_TEXT = "Generic wrapper for non-object return types."
"""The description FastMCP 2 gives every wrapped result's schema and FastMCP 3 no longer does."""


def tool_schema(tool: JSON, key: str) -> JSON:
    """The tool's normalised schema without the generator's name-derived root title (`fooArguments`),
    nor FastMCP's boilerplate description of a wrapped result, whose method returns the value and
    shows no one the wrapper."""
    raw = tool.get(key, {})
    schema = normalize_schema(raw)
    name = tool.get("name", "")
    if schema.get("title") in (f"{name}Arguments", f"{name}Output", f"{name}Input", f"{name}Result"):
        del schema["title"]
    if key == "outputSchema" and schema.get("description") == FASTMCP_WRAPPER_TEXT and wraps_result(name, raw):
        del schema["description"]
    return schema


def _compare_schema(old: JSON, new: JSON, direction: Direction, base: str, add: _Add) -> None:
    """The root `title` is the name a framework gives the schema (FastMCP: the function name plus
    `Arguments`), so its change is `title-changed`, not text a model reads inside the schema."""

    def emit(rule: str, path: str, before: Any, after: Any, message: str) -> None:
        add(rule, message, path, before, after)

    old, new = dict(old), dict(new)
    before, after = old.pop("title", None), new.pop("title", None)
    if before != after:
        message = f"{'input' if direction == 'in' else 'output'} schema title changed"
        add("title-changed", message, base + "/title", before, after)
    compare_schema(old, new, direction, base, emit)


def _compare_prompt_arguments(old: list[JSON], new: list[JSON], add: _Add) -> None:
    before = {arg.get("name"): (index, arg) for index, arg in enumerate(old) if isinstance(arg, dict)}
    after = {arg.get("name"): (index, arg) for index, arg in enumerate(new) if isinstance(arg, dict)}
    for arg in sorted(set(before) | set(after), key=str):
        if arg not in after:
            index, entry = before[arg]
            add("prompt-arg-removed", f"argument {arg!r} was removed", pointer("arguments", index), entry, None)
            continue
        index, entry = after[arg]
        where = pointer("arguments", index)
        required = entry.get("required") is True
        if arg not in before:
            if required:
                add("prompt-arg-required-added", f"argument {arg!r} was added as required", where, None, entry)
            else:
                add("in-optional-added", f"argument {arg!r} was added as optional", where, None, entry)
            continue
        previous = before[arg][1]
        was_required = previous.get("required") is True
        if required and not was_required:
            add("prompt-arg-became-required", f"argument {arg!r} became required", where + "/required", False, True)
        elif was_required and not required:
            add("in-became-optional", f"argument {arg!r} became optional", where + "/required", True, False)
        for key in ("description", "title"):
            if previous.get(key) != entry.get(key):
                message = f"argument {arg!r} {key} changed"
                add("schema-text-changed", message, f"{where}/{key}", previous.get(key), entry.get(key))
        for key in sorted((set(previous) | set(entry)) - {"name", "description", "title", "required"}):
            if not same(previous.get(key), entry.get(key)):
                message = f"argument {arg!r} `{key}` changed; cannot prove it compatible, review by hand"
                add("schema-uncomparable", message, f"{where}/{pointer(key)[1:]}", previous.get(key), entry.get(key))


def _tool_features(tool: JSON) -> frozenset[str]:
    inputs = schema_features(strip_text(tool_schema(tool, "inputSchema")), "in")
    outputs = schema_features(strip_text(tool_schema(tool, "outputSchema")), "out") if "outputSchema" in tool else set()
    return frozenset(inputs | outputs)


def _prompt_features(prompt: JSON) -> frozenset[str]:
    return frozenset(
        f"arg:{arg.get('name')}:{arg.get('required') is True}"
        for arg in prompt.get("arguments") or []
        if isinstance(arg, dict)
    )


def _resource_features(resource: JSON) -> frozenset[str]:
    return frozenset({f"name:{resource.get('name')}", f"mime:{resource.get('mimeType')}"})


_FEATURES = {"tool": _tool_features, "prompt": _prompt_features, "resource": _resource_features}


def _compare_templates(out: _Collector, old_entries: tuple[JSON, ...], new_entries: tuple[JSON, ...]) -> None:
    """Templates are matched with variable names erased: `{id}` -> `{key}` is the same template, edited."""
    before = {entry["uriTemplate"]: entry for entry in old_entries}
    after = {entry["uriTemplate"]: entry for entry in new_entries}
    removed = sorted(set(before) - set(after))
    added = sorted(set(after) - set(before))
    for name in sorted(set(before) & set(after)):
        _compare_entry(out, "template", before[name], after[name], name, None)
    for old in removed:
        shape = _TEMPLATE_VARIABLE.sub("{}", old)
        matches = [new for new in added if _TEMPLATE_VARIABLE.sub("{}", new) == shape]
        rivals = [other for other in removed if _TEMPLATE_VARIABLE.sub("{}", other) == shape]
        if len(matches) == 1 and len(rivals) == 1:
            new = matches[0]
            added.remove(new)
            message = f"template variables changed: {old!r} is now {new!r}"
            out.add("template-variables-changed", "template", new, message, "/uriTemplate", old, new, old)
            _compare_entry(out, "template", before[old], after[new], new, old)
        else:
            out.add("template-removed", "template", old, f"template {old!r} was removed", old=before[old])
    for new in added:
        out.add("template-added", "template", new, f"template {new!r} was added", new=after[new])
