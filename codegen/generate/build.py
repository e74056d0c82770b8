"""Snapshot -> intermediate model (`PackageSpec`): the naming plan (`package_plan`), each tool's
models and method spec built over the cores (`tool_workers`), then the package assembled from them.

Each tool's models module is generated first (`codegen.generate.modelgen`), then read back with `ast`
(`model_reader`), so the client's parameter and return annotations are exactly the types the models
declare and can never drift from them.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence

from codegen import console
from codegen.errors import StubgenError
from codegen.generate.cache import Cache
from codegen.generate.formatting import LINE_LENGTH
from codegen.generate.guard import shown
from codegen.generate.method_specs import own_import, prompt_spec, resource_spec, template_spec, used_names
from codegen.generate.package_plan import PackagePlan, ToolPlan, header, plan_package
from codegen.generate.spec import (
    AliasSpec,
    CompletionSpec,
    Import,
    ModelModule,
    PackageSpec,
    Parameter,
    PromptSpec,
    TemplateSpec,
    ToolSpec,
)
from codegen.generate.templating import all_sorted, import_sorted, tool_uses_any
from codegen.generate.tool_workers import ToolParts, tool_parts
from codegen.identifiers import (
    COMPLETE_PROMPT,
    COMPLETE_TEMPLATE,
    COMPLETION_RULES,
    assign_names,
    class_name,
    client_members,
    escape,
    package_name,
    runtime_exports,
)
from codegen.snapshot import Snapshot

__all__ = ["LINE_LENGTH", "PackagePlan", "build_package", "header", "plan_package", "warn_unmatched_method_names"]


def build_package(
    snapshot: Snapshot,
    method_names: Mapping[str, str] | None = None,
    cache: Cache | None = None,
    strict: bool = False,
    renames: Mapping[str, str] | None = None,
    sync_client: bool = True,
    plan: PackagePlan | None = None,
) -> PackageSpec:
    """Turn a snapshot into the intermediate model; `method_names` maps a tool's wire name to a chosen method name.

    `cache` (default: none) holds tools' models modules from earlier runs, by content. A tool no
    models can be generated for gets an untyped method and one warning line on stderr; `strict`
    makes it an error instead. `renames` (old tool name -> new) keeps each renamed tool's old
    method name as a deprecated alias (`renamed_aliases`). `sync_client=False` leaves out the sync twin.
    `plan` is the snapshot's `plan_package`, when the caller made it.
    """
    cache = cache or Cache.disabled()
    plan = plan or plan_package(snapshot, method_names)
    where = f"server {snapshot.server!r}: "
    rules = snapshot.naming_rules
    modules: list[ModelModule] = []
    tool_specs: list[ToolSpec] = []
    owners: dict[str, str] = {}
    module_owners: dict[str, str] = {}
    model_imports: dict[str, set[str]] = {}
    for tool, parts in zip(plan.tools, tool_parts(snapshot.server, plan.tools, cache, strict), strict=True):
        classes, spec = parts.classes, parts.spec
        warn_untyped(snapshot.server, spec.wire, spec.untyped_reason, spec.untyped_output, strict)
        for name in classes:
            if name in owners:
                raise StubgenError(
                    f"{where}tools {owners[name]!r} and {tool.tool['name']!r} both need a model named {name!r}; "
                    "rename one of them under [tool.mcp-stubgen.method_names]"
                )
            owners[name] = tool.tool["name"]
        if spec.module in module_owners:
            raise StubgenError(
                f"{where}tools {module_owners[spec.module]!r} and {tool.tool['name']!r} both need the models module "
                f"{spec.module!r}; rename one of them under [tool.mcp-stubgen.method_names]"
            )
        module_owners[spec.module] = tool.tool["name"]
        tool_specs.append(spec)
        module = model_module(tool, parts)
        modules.append(module)
        for entry in module.client_imports:
            model_imports.setdefault(entry.module, set()).update(entry.names)

    models = {*owners, *(name for names in model_imports.values() for name in names)}
    client_class, sync_class = (
        escape(class_name(snapshot.server, kind, snapshot.naming_rules), models) for kind in ("Client", "SyncClient")
    )
    aliases = renamed_aliases(plan, tool_specs, method_names or {}, renames or {})
    templates = _templates(snapshot, plan, strict)
    prompts = tuple(
        prompt_spec(entry, named, snapshot.argument_names.get("prompts", {}).get(entry["name"], {}), rules)
        for entry, named in zip(snapshot.prompts, plan.prompt_names, strict=True)
    )
    completions = completion_specs(snapshot, prompts, templates)
    return PackageSpec(
        server=snapshot.server,
        package=package_name(snapshot.server),
        class_name=client_class,
        sync_class_name=sync_class,
        header=header(snapshot),
        snapshot_fingerprint=snapshot.fingerprint,
        instructions=snapshot.instructions,
        client_capabilities=snapshot.client_capabilities,
        parse_text_json=snapshot.parse_text_json,
        protocol_version=snapshot.protocol_version,
        tools=tuple(tool_specs),
        resources=tuple(
            resource_spec(entry, named) for entry, named in zip(snapshot.resources, plan.resource_names, strict=True)
        ),
        templates=templates,
        prompts=prompts,
        model_imports=tuple(
            Import(module, tuple(import_sorted(names))) for module, names in sorted(model_imports.items())
        ),
        model_names=tuple(all_sorted(owners)),
        model_modules=tuple(sorted(modules, key=lambda module: module.module)),
        aliases=aliases,
        sync_client=sync_client,
        completions=completions,
        runtime_exports=runtime_exports(rules, bool(completions)),
    )


def completion_specs(
    snapshot: Snapshot, prompts: Sequence[PromptSpec], templates: Sequence[TemplateSpec]
) -> tuple[CompletionSpec, ...]:
    """The completion methods of a package of naming rules 14 or later whose server declares the
    `completions` capability: `complete_prompt` where a prompt has arguments, `complete_template`
    where a template has variables (a template left out for its syntax has no method to complete)."""
    if snapshot.naming_rules < COMPLETION_RULES or "completions" not in snapshot.capabilities:
        return ()
    methods = (
        CompletionSpec(
            COMPLETE_PROMPT,
            "prompt",
            "prompt",
            "argument",
            _completion_entries((prompt.wire, prompt.parameters) for prompt in prompts),
        ),
        CompletionSpec(
            COMPLETE_TEMPLATE,
            "template",
            "template",
            "variable",
            _completion_entries((template.uri_template, template.parameters) for template in templates),
        ),
    )
    return tuple(method for method in methods if method.entries)


def _completion_entries(
    entries: Iterable[tuple[str, Sequence[Parameter]]],
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each entry with names to complete, and those names, sorted."""
    return tuple(
        sorted(
            (key, tuple(sorted(parameter.wire for parameter in parameters)))
            for key, parameters in entries
            if parameters
        )
    )


def warn_untyped(server: str, wire: str, reason: str | None, output_reason: str | None, strict: bool) -> None:
    """For a tool no models could be generated for (`reason` says why), or whose output schema alone
    gave none (`output_reason`, `ToolSpec.untyped_output`), the warning line, or under `strict` the error."""
    if reason is None and output_reason is None:
        return
    message = f"server {server!r}: tool {shown(wire)}: {reason or output_reason}"
    if strict:
        raise StubgenError(message)
    method = "takes `arguments: dict[str, Any]`" if reason is not None else "returns `ToolResult`"
    console.warn(f"{message}; its method {method} (`generate --strict` makes this an error)")


def model_module(tool: ToolPlan, parts: ToolParts) -> ModelModule:
    """A built tool's models module, with what client.py imports for its method (`_tool_imports`)."""
    imports = _tool_imports(parts.spec, parts.classes, parts.imported)
    return ModelModule(
        module=parts.spec.module,
        tool=tool.tool["name"],
        tool_fingerprint=tool.fingerprint,
        classes=tuple(import_sorted(parts.classes)),
        source=parts.source,
        contract=parts.contract,
        client_imports=tuple(Import(module, tuple(sorted(names))) for module, names in sorted(imports.items())),
    )


def _tool_imports(spec: ToolSpec, classes: Sequence[str], imported: Mapping[str, str]) -> dict[str, set[str]]:
    """What client.py imports for one tool's method, by module: its own models, the names its models
    module imports from elsewhere that the method's annotations use, and `Mapping` for more arguments."""
    imports: dict[str, set[str]] = {}
    used = used_names(spec)
    own = own_import(spec, used, classes)
    if own.names:
        imports[own.module] = set(own.names)
    for name in used - set(classes):
        if name in imported:
            imports.setdefault(imported[name], set()).add(name)
    if spec.extra:
        imports.setdefault("collections.abc", set()).add("Mapping")
    return imports


def package_facing(spec: ToolSpec, module: ModelModule) -> str:
    """What the package reads of one tool outside the tool's own methods, models module and
    fingerprint, besides its `package_flags`, as one text: its names and task support (the bases, the
    task imports, `tool_task_support`), and its models' names and what client.py imports for it. Two
    packages whose tools differ only where this text is the same and the union of their flags is the
    same differ only in those tools' methods, models modules and fingerprints, so a package can be
    redone by replacing them (`last_render`): whatever else the templates come to read of each tool
    belongs here."""
    return json.dumps(
        [
            [spec.wire, spec.method, spec.module, spec.start_method, spec.task_support],
            list(module.classes),
            [[entry.module, list(entry.names)] for entry in module.client_imports],
        ],
        ensure_ascii=False,
    )


def package_flags(spec: ToolSpec) -> int:
    """What the package reads of all its tools at once, one bit each: whether any tool takes optional
    arguments (`NOT_GIVEN`), returns the untyped result (`ToolResult`) or names `Any` in its signature
    (`templating.runtime_names`, `typing_names`)."""
    optional = bool(spec.extra) or any(not parameter.required for parameter in spec.parameters)
    return optional | (spec.output_kind == "result") << 1 | tool_uses_any(spec) << 2


def warn_unmatched_method_names(
    snapshot: Snapshot, method_names: Mapping[str, str], renames: Mapping[str, str]
) -> None:
    """A `method_names` key that is not a tool of the server (a misspelling, a tool since removed)
    names nothing, and the method it meant keeps its name: said, with the closest tool name. The old
    name of a stated rename is not a tool any more, and names its deprecated alias (`renamed_aliases`)."""
    tools = sorted(tool["name"] for tool in snapshot.tools)
    for name in sorted(set(method_names) - set(tools) - set(renames)):
        close = difflib.get_close_matches(name, tools, n=1)
        hint = (
            f"did you mean {shown(close[0])}?"
            if close
            else f"see its tools with `mcp-stubgen inspect {snapshot.server}`"
        )
        console.warn(
            f"server {snapshot.server!r}: [tool.mcp-stubgen.method_names.{snapshot.server}] names {name!r}, "
            f"which is not one of its tools, so it names no method; {hint}"
        )


def _templates(snapshot: Snapshot, plan: PackagePlan, strict: bool) -> tuple[TemplateSpec, ...]:
    """A reader per resource template; one RFC 6570 does not define (an unclosed expression, a bad
    variable name) is left out with one warning line, as an untyped tool is typed loosely, rather than
    failing the whole package; `strict` makes it an error."""
    where = f"server {snapshot.server!r}: "
    specs: list[TemplateSpec] = []
    for entry, named in zip(snapshot.resource_templates, plan.template_names, strict=True):
        try:
            specs.append(template_spec(where, entry, named, snapshot.naming_rules))
        except StubgenError as error:
            if strict:
                raise
            console.warn(
                f"{error}; it has no method: read its resources with `client.mcp_client.read_resource(uri)` "
                "(`generate --strict` makes this an error)"
            )
    return tuple(specs)


ALIASES_BY_RULES_6 = 6
"""The naming rules of an alias in a package of rules 1 to 6: releases before rules 7 named aliases by
the newest rules whatever the package's (and rules 5 and 6 name methods alike), so such a package
keeps its aliases; a package of rules 7 or later names them by its own."""


def renamed_aliases(
    plan: PackagePlan, tools: Sequence[ToolSpec], method_names: Mapping[str, str], renames: Mapping[str, str]
) -> tuple[AliasSpec, ...]:
    """A deprecated alias for each stated rename of a tool in this catalog: the method the old name
    would have alone (or its `method_names` choice), calling the new tool's method.

    An entry whose new name is not a tool here (a prompt's or resource's rename, or a stale entry), or
    whose old tool is still listed, gets none; nor does one whose old method name is the new one's
    (`getUser` to `get-user`). An old name another member already has is a warning, and no alias."""
    where = f"server {plan.snapshot.server!r}: "
    rules = max(plan.snapshot.naming_rules, ALIASES_BY_RULES_6)
    by_wire = {tool.wire: tool for tool in tools}
    members = client_members(plan.snapshot.naming_rules)
    taken = {
        *members,
        *(tool.method for tool in tools),
        *(tool.start_method for tool in tools if tool.start_method),
        *(named.python for named in (*plan.resource_names, *plan.template_names, *plan.prompt_names)),
    }
    aliases: list[AliasSpec] = []
    for old, new in sorted(renames.items()):
        tool = by_wire.get(new)
        if tool is None or old in by_wire:
            continue
        chosen = {old: method_names[old]} if old in method_names else None
        [named] = assign_names(
            [old], fallback="tool", taken=members, method_names=chosen, kind="tool", where=where, rules=rules
        )
        if named.python == tool.method:
            continue
        if named.python in taken:
            console.warn(
                f"{where}renames: the old name {shown(old)} of tool {shown(new)} would be the method "
                f"{named.python!r}, which another member has; no alias is kept for it"
            )
            continue
        taken.add(named.python)
        aliases.append(AliasSpec(method=named.python, old_wire=old, tool=tool))
    return tuple(sorted(aliases, key=lambda alias: alias.method))
