"""Snapshot -> intermediate model: names from `codegen.identifiers`, models from datamodel-code-generator.

Each tool's models module is generated first (`codegen.generate.modelgen`), then read back with `ast`,
so the client's parameter and return annotations are exactly the types the models declare and can
never drift from them.

A tool's part of the model depends on that tool alone, so tools are built in batches spread over
the cores, each piece cached by content. The worker that builds a tool also formats the two pieces
of client.py only that tool decides (its method and its import), so a cold run goes through the
cores once rather than once for models and again for black; the renderer then finds them in the cache.
"""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic.alias_generators import to_camel

from codegen import console
from codegen.errors import StubgenError
from codegen.generate.cache import Cache, cache_key, compact_json
from codegen.generate.formatting import LINE_LENGTH
from codegen.generate.guard import check_text, check_tool_schemas, pointer, shown
from codegen.generate.headers import header_lines
from codegen.generate.modelgen import (
    SCHEMA_KEYWORDS,
    UNTYPED_REASON,
    ModelJob,
    annotation_text,
    model_source,
    one_line,
    parsed,
    untyped_source,
)
from codegen.generate.parallel import map_batches
from codegen.generate.render import PieceKind, formatted_pieces, formatted_without_black, piece_key, tool_pieces
from codegen.generate.spec import (
    AliasSpec,
    Import,
    InputKind,
    ModelModule,
    OutputKind,
    PackageSpec,
    Parameter,
    PromptSpec,
    ResourceSpec,
    TemplateSpec,
    ToolSpec,
)
from codegen.identifiers import (
    CLIENT_MEMBERS,
    Named,
    assign_names,
    class_name,
    escape,
    model_stems,
    package_name,
    plan_names,
    task_support,
)
from codegen.schemas import DEFINITIONS, MISSING, Document, follow, is_namespace
from codegen.snapshot import JSON, Snapshot

__all__ = ["LINE_LENGTH", "PackagePlan", "build_package", "header", "plan_package"]


def header(snapshot: Snapshot) -> str:
    """The fixed first lines of every rendered file: generator version and snapshot fingerprint, nothing variable."""
    return header_lines(f"snapshot {snapshot.fingerprint}")


@dataclass(frozen=True)
class ToolPlan:
    """One tool's names, known without generating anything."""

    tool: JSON
    named: Named
    stem: str
    fingerprint: str
    start_method: str | None = None
    """The name of the method starting the tool as a task, for a tool that may run as one."""


@dataclass(frozen=True)
class PackagePlan:
    """Every name in the package, known without generating anything."""

    snapshot: Snapshot
    tools: tuple[ToolPlan, ...]
    resource_names: tuple[Named, ...]
    template_names: tuple[Named, ...]
    prompt_names: tuple[Named, ...]


def plan_package(snapshot: Snapshot, method_names: Mapping[str, str] | None = None) -> PackagePlan:
    """Names for every tool, resource, template and prompt, after the catalog checks.

    (Each tool's schemas are checked where its models are built, `_build_tools`.)
    """
    where = f"server {snapshot.server!r}: "
    tools = snapshot.tools
    for tool in tools:
        _check_tool(where, tool)
    check_text(snapshot)

    names = plan_names(snapshot, method_names)
    tool_names = names.tools
    start_methods = {named.wire: named.python for named in names.starters}
    stems = model_stems([named.python for named in tool_names])
    plans = []
    for tool, named, stem in zip(tools, tool_names, stems, strict=True):
        tool_fingerprint = snapshot.tool_fingerprints[tool["name"]]
        plans.append(ToolPlan(tool, named, stem, tool_fingerprint, start_methods.get(named.wire)))
    return PackagePlan(
        snapshot=snapshot,
        tools=tuple(plans),
        resource_names=names.resources,
        template_names=names.templates,
        prompt_names=names.prompts,
    )


@dataclass(frozen=True)
class _ModelClass:
    fields: Mapping[str, tuple[str, ast.expr]]
    """Wire name -> (Python attribute name, annotation)."""
    required: frozenset[str]
    """Wire names of the fields without a default."""
    bases: tuple[str, ...]
    """The base classes as written (`BaseModel`, `RootModel[...]`, another model)."""
    extra: ast.expr | None = None
    """The type of the values of keys it has no field for (`__pydantic_extra__: dict[str, <this>]`), if typed."""

    @property
    def is_root(self) -> bool:
        """A `RootModel`: its value is `root`, whatever the schema's root is (a map, a union, an array...)."""
        return any(base.startswith("RootModel") for base in self.bases)


def build_package(
    snapshot: Snapshot,
    method_names: Mapping[str, str] | None = None,
    cache: Cache | None = None,
    strict: bool = False,
    renames: Mapping[str, str] | None = None,
    sync_client: bool = True,
) -> PackageSpec:
    """Turn a snapshot into the intermediate model; `method_names` maps a tool's wire name to a chosen method name.

    `cache` (default: none) holds tools' models modules from earlier runs, by content. A tool no
    models can be generated for gets an untyped method and one warning line on stderr; `strict`
    makes it an error instead. `renames` (old tool name -> new) keeps each renamed tool's old
    method name as a deprecated alias (`renamed_aliases`). `sync_client=False` leaves out the sync twin.
    """
    cache = cache or Cache.disabled()
    plan = plan_package(snapshot, method_names)
    where = f"server {snapshot.server!r}: "
    modules: list[ModelModule] = []
    tool_specs: list[ToolSpec] = []
    owners: dict[str, str] = {}
    model_imports: dict[str, set[str]] = {}
    for tool, (source, classes, imported, spec, contract) in zip(
        plan.tools, _tool_parts(snapshot.server, plan.tools, cache), strict=True
    ):
        if spec.untyped_reason is not None:
            message = f"{where}tool {shown(spec.wire)}: {spec.untyped_reason}"
            if strict:
                raise StubgenError(message)
            console.warn(
                f"{message}; its method takes `arguments: dict[str, Any]` (`generate --strict` makes this an error)"
            )
        for name in classes:
            if name in owners:
                raise StubgenError(
                    f"{where}tools {owners[name]!r} and {tool.tool['name']!r} both need a model named {name!r}; "
                    "rename one of them under [tool.mcp-stubgen.method_names]"
                )
            owners[name] = tool.tool["name"]
        tool_specs.append(spec)
        modules.append(
            ModelModule(
                module=spec.module,
                tool=tool.tool["name"],
                tool_fingerprint=tool.fingerprint,
                classes=tuple(sorted(classes)),
                source=source,
                contract=contract,
            )
        )
        own = _own_import(spec, classes)
        if own.names:
            model_imports.setdefault(own.module, set()).update(own.names)
        for name in _used_names(spec) - set(classes):
            if name in imported:
                model_imports.setdefault(imported[name], set()).add(name)
        if spec.extra:
            model_imports.setdefault("collections.abc", set()).add("Mapping")

    models = {*owners, *(name for names in model_imports.values() for name in names)}
    client_class, sync_class = (escape(class_name(snapshot.server, kind), models) for kind in ("Client", "SyncClient"))
    aliases = renamed_aliases(plan, tool_specs, method_names or {}, renames or {})
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
            _resource_spec(entry, named) for entry, named in zip(snapshot.resources, plan.resource_names, strict=True)
        ),
        templates=tuple(
            _template_spec(where, entry, named)
            for entry, named in zip(snapshot.resource_templates, plan.template_names, strict=True)
        ),
        prompts=tuple(
            _prompt_spec(where, entry, named) for entry, named in zip(snapshot.prompts, plan.prompt_names, strict=True)
        ),
        model_imports=tuple(Import(module, tuple(sorted(names))) for module, names in sorted(model_imports.items())),
        model_names=tuple(sorted(owners)),
        model_modules=tuple(sorted(modules, key=lambda module: module.module)),
        aliases=aliases,
        sync_client=sync_client,
    )


def renamed_aliases(
    plan: PackagePlan, tools: Sequence[ToolSpec], method_names: Mapping[str, str], renames: Mapping[str, str]
) -> tuple[AliasSpec, ...]:
    """A deprecated alias for each stated rename of a tool in this catalog: the method the old name
    would have alone (or its `method_names` choice), calling the new tool's method.

    An entry whose new name is not a tool here (a prompt's or resource's rename, or a stale entry), or
    whose old tool is still listed, gets none; nor does one whose old method name is the new one's
    (`getUser` to `get-user`). An old name another member already has is a warning, and no alias."""
    where = f"server {plan.snapshot.server!r}: "
    by_wire = {tool.wire: tool for tool in tools}
    taken = {
        *CLIENT_MEMBERS,
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
            [old], fallback="tool", taken=CLIENT_MEMBERS, method_names=chosen, kind="tool", where=where
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


_Parts = tuple[str, tuple[str, ...], dict[str, str], ToolSpec, str]
"""A tool's models module, its classes, the names it imports (name -> module), its method's spec and
its contract (`_contract`)."""


def _tool_parts(server: str, tools: Sequence[ToolPlan], cache: Cache) -> list[_Parts]:
    """Each tool's parts, from the cache or built in batches over the cores; the first failing tool
    (in catalog order) is the `StubgenError` raised."""
    texts = [compact_json(tool.tool) for tool in tools]
    source_keys = [cache_key("models", tool.stem, text) for tool, text in zip(tools, texts, strict=True)]
    spec_keys = [
        cache_key("tool-spec", text, tool.named.python, tool.stem, tool.start_method or "")
        for tool, text in zip(tools, texts, strict=True)
    ]
    sources = [cache.get(key) for key in source_keys]
    specs = [cache.get(key) for key in spec_keys]
    missing = [index for index, spec in enumerate(specs) if spec is None or sources[index] is None]
    jobs = [_ToolJob(server, tools[index], sources[index], source_keys[index], spec_keys[index]) for index in missing]
    for index, outcome in zip(missing, map_batches(functools.partial(_build_tools, cache.folder), jobs), strict=True):
        if isinstance(outcome, str):
            raise StubgenError(outcome)
        sources[index], specs[index] = outcome.source, outcome.spec
        for key, text in outcome.pieces:
            cache.remember(key, text)
    return [_load_parts(source, spec) for source, spec in zip(sources, specs, strict=True)]


@dataclass(frozen=True)
class _ToolJob:
    """What a worker needs to build one tool: its plan, its models module when that is cached, and
    the cache keys its texts are stored under."""

    server: str
    tool: ToolPlan
    source: str | None
    source_key: str
    spec_key: str


@dataclass(frozen=True)
class _Built:
    """One tool as a worker built it and stored it in the cache folder, for the parent's memory."""

    source: str
    spec: str
    """`_dump_parts`: what the models module tells the client, so a cached run never parses it."""
    pieces: tuple[tuple[str, str], ...]
    """(cache key, text) of everything built: the models module, the spec, and the methods and import
    black had to format (the renderer looks those up by their unformatted text; the rest it writes as
    they are, `formatted_without_black`)."""


def _build_tools(folder: Path | None, jobs: Sequence[_ToolJob]) -> list[_Built | str]:
    """Build a batch of tools (in a worker): models and spec one by one, then the methods and imports
    of the batch that black has to format, in one black call per kind, each text stored in the cache folder (in
    parallel, by the workers, rather than one file at a time by the parent). A failure is its
    one-line message."""
    built: list[tuple[_ToolJob, str, str, list[tuple[PieceKind, str]]] | str] = []
    for job in jobs:
        try:
            source, untypable = job.source, None
            if source is None:  # a cached module passed the checks when it was made
                untypable = check_tool_schemas(job.server, job.tool.tool)
            source, models, imported, spec = _typed_or_untyped(job.server, job.tool, source, untypable)
        except StubgenError as error:
            built.append(str(error))
            continue
        pieces = [
            piece for piece in tool_pieces(spec, _own_import(spec, models)) if formatted_without_black(*piece) is None
        ]
        parts = _dump_parts(tuple(models), imported, spec, _contract(job.tool.tool, spec))
        built.append((job, source, parts, pieces))
    texts = iter(formatted_pieces([piece for entry in built if not isinstance(entry, str) for piece in entry[3]]))
    store = Cache(folder)
    outcomes: list[_Built | str] = []
    for entry in built:
        if isinstance(entry, str):
            outcomes.append(entry)
            continue
        job, source, parts, pieces = entry
        made = (
            (job.source_key, source),
            (job.spec_key, parts),
            *((piece_key(*piece), next(texts)) for piece in pieces),
        )
        for key, text in made:
            store.put(key, text)
        outcomes.append(_Built(source, parts, made))
    return outcomes


def _typed_or_untyped(
    server: str, tool: ToolPlan, source: str | None, untypable: str | None = None
) -> tuple[str, dict[str, _ModelClass], dict[str, str], ToolSpec]:
    """A tool's models module and method spec; a schema the checks found untypable (`untypable`, the
    reason) or that no models can be generated from (or no method typed from) gets the untyped module
    (`untyped_source`), so one such tool never blocks its server. `build_package` turns that into an
    error under `strict`."""
    where = f"server {server!r}: "
    try:
        if untypable is not None:
            raise StubgenError(untypable)
        kind = tool.tool["inputSchema"].get("type", "object")
        if "object" not in (kind if isinstance(kind, list) else [kind]):
            raise StubgenError(f"/inputSchema/type: arguments are sent as an object, and the schema says {kind!r}")
        if source is None:
            source = model_source(server, ModelJob(tool.tool, tool.stem))
        models, imported = _read_models(source)
        return source, models, imported, _tool_spec(where, tool, tool.named.python, models, _untyped_reason(source))
    except StubgenError as error:
        prefix = f"{where}tool {tool.tool['name']!r}: "
        reason = error.message.removeprefix(prefix)
    except Exception as error:  # datamodel-code-generator failing on a schema it accepted
        reason = f"datamodel-code-generator failed ({type(error).__name__}: {one_line(str(error))})"
    source = untyped_source(ModelJob(tool.tool, tool.stem), reason)
    models, imported = _read_models(source)
    return source, models, imported, _tool_spec(where, tool, tool.named.python, models, reason)


def _untyped_reason(source: str) -> str | None:
    """The reason an untyped tool's module records, or None for a typed module."""
    if UNTYPED_REASON not in source:
        return None
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [ast.unparse(target) for target in node.targets] == [UNTYPED_REASON]:
            value = ast.literal_eval(node.value)
            return str(value)
    return None


def _own_import(spec: ToolSpec, classes: Mapping[str, object] | Sequence[str]) -> Import:
    """The client's import of this tool's own models: the classes its method's annotations use."""
    return Import(f"._models.{spec.module}", tuple(sorted(_used_names(spec) & set(classes))))


def _dump_parts(classes: tuple[str, ...], imported: Mapping[str, str], spec: ToolSpec, contract: str) -> str:
    """What a tool's models module tells the client (its classes, its imports, the method's spec) and
    its contract, for the cache: reading it back skips parsing the module, the slowest step of a
    cached run, and the parent never walks a schema for the contract (the workers made it)."""
    document = {"classes": classes, "imported": imported, "spec": asdict(spec), "contract": contract}
    return json.dumps(document, ensure_ascii=False)


def _load_parts(source: str | None, text: str | None) -> _Parts:
    assert source is not None and text is not None, "every tool was found in the cache or built"
    document = json.loads(text)
    spec = document["spec"]
    parameters = tuple(Parameter(**parameter) for parameter in spec.pop("parameters"))
    return (
        source,
        tuple(document["classes"]),
        document["imported"],
        ToolSpec(**spec, parameters=parameters),
        document["contract"],
    )


def _contract(tool: JSON, spec: ToolSpec) -> str:
    """What the runtime checks a call against: the tool's schemas as the snapshot holds them, and each
    keyword parameter's Python name by wire name (for its messages), as compact ASCII JSON.

    An untyped tool's references to nothing or outside its schema are left out (`without_unresolved`):
    the runtime never fetches one nor fails on one, and the server judges that value; when its output
    schema held one, `unresolved_output` tells the runtime to skip the SDK's check of the result."""
    keywords = spec.parameters if spec.input_kind == "keywords" else ()

    def rules(schema: Any) -> Any:
        return _for_validation(Document.of(schema).without_unresolved() if spec.untyped_reason else schema)

    document: JSON = {
        "input": rules(tool["inputSchema"]),
        "parameters": {parameter.wire: parameter.python for parameter in keywords},
    }
    if "outputSchema" in tool:
        document["output"] = rules(tool["outputSchema"])
        if spec.untyped_reason and Document.of(tool["outputSchema"]).unresolved:
            document["unresolved_output"] = True
    headers = _mirrored_headers(tool["inputSchema"])
    if headers:
        document["headers"] = headers
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text.replace("'", "\\u0027")  # one kind of quote: the literal is then the one black keeps


def _mirrored_headers(schema: Any) -> list[list[Any]]:
    """Each parameter a 2026-07-28 client mirrors into an `Mcp-Param-*` header (`x-mcp-header`,
    SEP-2243): its path of property names and its header's name, sorted. None for annotations the
    spec calls invalid: discovery drops such a tool, and a listing of it mirrors nothing either."""
    if "x-mcp-header" not in json.dumps(schema):  # importing the SDK takes seconds: only when needed
        return []
    from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map

    if find_invalid_x_mcp_header(schema) is not None:
        return []
    return sorted([list(path), token] for path, token in x_mcp_header_map(schema).items())


_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "example", "default", "deprecated", "readOnly", "writeOnly"}
)
"""Keywords no instance can fail: left out of the contract, whose size is then the rules' alone (a
megabyte description stays in the docstrings, not in every models module)."""
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_DATA = frozenset({"const", "enum", "required", "dependentRequired"})
_BASE_URI = frozenset({"$id", "id"})
"""Keywords the models never see but a validator needs: references are resolved against them."""


def _for_validation(schema: Any) -> Any:
    """The schema's JSON Schema keywords without its annotations (`SCHEMA_KEYWORDS`, as the models
    see them); names in maps of schemas, the definitions in a namespace of them (`is_namespace`) and
    values in data keywords are kept."""
    if isinstance(schema, list):
        return [_for_validation(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS or (key not in SCHEMA_KEYWORDS and key not in _BASE_URI):
            continue  # no extension keyword reaches the package; `$id` does, as relative references need it
        if key in _DATA:
            kept[key] = value
        elif key in DEFINITIONS and isinstance(value, dict):
            kept[key] = {name: _definition_for_validation(inner) for name, inner in value.items()}
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            kept[key] = {name: _for_validation(inner) for name, inner in value.items()}
        else:
            kept[key] = _for_validation(value)
    return kept


def _definition_for_validation(definition: Any) -> Any:
    if not is_namespace(definition):
        return _for_validation(definition)
    return {
        name: _definition_for_validation(inner) for name, inner in definition.items() if isinstance(inner, dict | bool)
    }


def _used_names(spec: ToolSpec) -> set[str]:
    """Every name the tool's method annotations refer to (its body imports the models it uses itself)."""
    annotations = (
        *(parameter.annotation for parameter in spec.parameters),
        spec.extra_annotation or "None",
        spec.return_annotation,
    )
    return {name for annotation in annotations for name in _names_in(annotation)}


def _check_tool(where: str, tool: JSON) -> None:
    """Reject schemas no client can be generated from, naming the tool and a JSON pointer into it."""
    name = tool["name"]
    for key in ("inputSchema", "outputSchema"):
        if key not in tool:
            continue
        schema = tool[key]
        if not isinstance(schema, dict):
            raise StubgenError(f"{where}tool {name!r}: /{key}: must be a JSON Schema object")
        properties = schema.get("properties", {})
        if not isinstance(properties, dict):
            raise StubgenError(f"{where}tool {name!r}: /{key}/properties: must be an object")
        for property_name, property_schema in properties.items():
            if not isinstance(property_schema, dict | bool):
                at = pointer(key, "properties", property_name)
                raise StubgenError(f"{where}tool {name!r}: {at}: must be a JSON Schema")
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
            raise StubgenError(f"{where}tool {name!r}: /{key}/required: must be a list of property names")


def _read_models(source: str) -> tuple[dict[str, _ModelClass], dict[str, str]]:
    """The classes (and type aliases) models.py defines, with their fields by wire name, and the names it imports."""
    tree = parsed(source)
    classes: dict[str, _ModelClass] = {}
    imported: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__" and not node.level:
            for alias in node.names:
                imported[alias.name] = node.module
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ClassDef):
            fields: dict[str, tuple[str, ast.expr]] = {}
            required: set[str] = set()
            extra: ast.expr | None = None
            for statement in node.body:
                values = _extra_values(statement) if isinstance(statement, ast.Assign | ast.AnnAssign) else None
                if values is not None:
                    extra = _unalias(values, aliases)
                elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    wire = _wire_name(statement, aliases)
                    fields[wire] = (statement.target.id, _unalias(statement.annotation, aliases))
                    if _has_no_default(statement):
                        required.add(wire)
            bases = tuple(ast.unparse(base) for base in node.bases)
            classes[node.name] = _ModelClass(fields, frozenset(required), bases, extra)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "TypeAliasType"
        ):  # a recursive alias, used in annotations like a class
            classes[node.targets[0].id] = _ModelClass({}, frozenset(), ())
    return classes, imported


def _extra_values(statement: ast.Assign | ast.AnnAssign) -> ast.expr | None:
    """`X` of `__pydantic_extra__: dict[str, X]`, or of `__annotations__ = {"__pydantic_extra__": Dict[str, X]}`
    as datamodel-code-generator writes it; None for any other statement."""
    if isinstance(statement, ast.AnnAssign):
        if not (isinstance(statement.target, ast.Name) and statement.target.id == "__pydantic_extra__"):
            return None
        annotation: ast.expr | None = statement.annotation
    else:
        targets, value = statement.targets, statement.value
        if not (len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == "__annotations__"):
            return None
        if not isinstance(value, ast.Dict):
            return None
        annotation = next(
            (item for key, item in zip(value.keys, value.values, strict=True)
             if isinstance(key, ast.Constant) and key.value == "__pydantic_extra__"),
            None,
        )  # fmt: skip
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
        pair = annotation.slice.elts
        return pair[1] if len(pair) == 2 else None
    return None


def _has_no_default(statement: ast.AnnAssign) -> bool:
    """`x: int` or `x: int = Field(..., ...)`: a field the caller must give."""
    value = statement.value
    if value is None:
        return True
    if isinstance(value, ast.Call) and value.args:
        return isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis
    return False


def _unalias(annotation: ast.expr, aliases: Mapping[str, str]) -> ast.expr:
    """The annotation with imports' original names: models.py aliases `Literal` when a field is named
    `Literal`, but the client, which has no such field, imports and writes plain `Literal`."""
    if not aliases:
        return annotation
    copy = ast.parse(ast.unparse(annotation), mode="eval").body
    for node in ast.walk(copy):
        if isinstance(node, ast.Name) and node.id in aliases:
            node.id = aliases[node.id]
    return copy


def _wire_name(statement: ast.AnnAssign, aliases: Mapping[str, str]) -> str:
    """The field's `alias=`, else the alias its model's `alias_generator=to_camel` gives it (modelgen
    sets that generator on every model); `Field` may itself be imported under an alias (`Field as
    Field_aliased`, when a property is named `Field`)."""
    assert isinstance(statement.target, ast.Name)
    value = statement.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and aliases.get(value.func.id, value.func.id) == "Field"
    ):
        for keyword in value.keywords:
            if (
                keyword.arg == "alias"
                and isinstance(keyword.value, ast.Constant)
                and isinstance(keyword.value.value, str)
            ):
                return keyword.value.value
    return to_camel(statement.target.id)


@functools.lru_cache(maxsize=4096)
def _names_in(annotation: str) -> frozenset[str]:
    """The names an annotation refers to; memoized, as a large catalog repeats the same few thousand."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(annotation, mode="eval")):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)  # a forward reference, `Union["A", "B"]`, as a recursive root model writes it
    return frozenset(names)


def _tool_spec(
    where: str, plan: ToolPlan, module: str, classes: Mapping[str, _ModelClass], untyped: str | None = None
) -> ToolSpec:
    """The method's spec; `untyped` is why the tool's module holds no models, for an untyped tool."""
    tool, stem = plan.tool, plan.stem
    wire = tool["name"]
    input_model = f"{stem}Input"
    if untyped is not None:
        note = (
            "Any arguments, checked against the tool's JSON Schema when called: mcp-stubgen could not "
            f"type this tool ({untyped})."
        )
        if any(Document.of(tool[key]).unresolved for key in ("inputSchema", "outputSchema") if key in tool):
            note += " A reference that names nothing in the schema is not checked: the server judges that value."
        argument = Parameter("arguments", "arguments", "dict[str, Any]", required=True, description=note)
        return ToolSpec(
            wire=wire,
            method=plan.named.python,
            module=module,
            title=_text(tool.get("title")),
            description=_text(tool.get("description")),
            input_model=input_model,
            output_kind="result",
            output_model=None,
            output_field=None,
            return_annotation="ToolResult",
            parameters=(argument,),
            fingerprint=plan.fingerprint,
            input_kind="untyped",
            untyped_reason=untyped,
            task_support=task_support(tool),
            start_method=plan.start_method,
        )
    model = _model_class(where, wire, input_model, classes)
    input_kind, parameters = _input_parameters(where, wire, tool["inputSchema"], input_model, model, classes)
    extra = extra_annotation = None
    root = Document.of(tool["inputSchema"]).local()
    if input_kind == "keywords" and _takes_more(root):
        extra = escape("extra", {parameter.python for parameter in parameters})
        values = "object"  # what keys matching `patternProperties` hold has types of its own
        if model.extra is not None and not root.get("patternProperties"):
            values = annotation_text(model.extra)
        extra_annotation = f"Mapping[str, {values}]"

    output_kind: OutputKind = "result"
    output_model: str | None = None
    output_field: str | None = None
    return_annotation = "ToolResult"
    if "outputSchema" in tool:
        output_schema = tool["outputSchema"]
        output_model = f"{stem}Output"
        output = _model_class(where, wire, output_model, classes)
        if output.is_root:
            output_kind = "value"
            output_field, annotation_node = output.fields["root"]
            return_annotation = annotation_text(annotation_node)
        elif _wraps_primitive(wire, output_schema) and "result" in output.fields:
            output_kind = "value"
            output_field, annotation_node = output.fields["result"]
            return_annotation = annotation_text(annotation_node)
        else:
            output_kind = "model"
            return_annotation = output_model
    return ToolSpec(
        wire=wire,
        method=plan.named.python,
        module=module,
        title=_text(tool.get("title")),
        description=_text(tool.get("description")),
        input_model=input_model,
        output_kind=output_kind,
        output_model=output_model,
        output_field=output_field,
        return_annotation=return_annotation,
        parameters=parameters,
        fingerprint=plan.fingerprint,
        input_kind=input_kind,
        extra=extra,
        extra_annotation=extra_annotation,
        task_support=task_support(tool),
        start_method=plan.start_method,
    )


def _takes_more(schema: JSON) -> bool:
    """Whether the input schema's root allows keys beyond its `properties`: JSON Schema allows them
    unless `additionalProperties: false` closes the root (and no `patternProperties` opens it again)."""
    return schema.get("additionalProperties", True) is not False or bool(schema.get("patternProperties"))


def _input_parameters(
    where: str, wire: str, schema: JSON, name: str, model: _ModelClass, classes: Mapping[str, _ModelClass]
) -> tuple[InputKind, tuple[Parameter, ...]]:
    """The method's parameters: one keyword argument per field when the input model is one object
    (its root's `properties`, or the fields an `allOf` merged into it), else one `arguments`
    parameter of the model's type (the root's value for a union or a map), narrowed to the members
    an object can be: arguments are always one."""
    local_schema = Document.of(schema).local()
    properties: dict[str, Any] = local_schema.get("properties", {})
    if model.is_root or any(base != "BaseModel" for base in model.bases):
        annotation = name
        if model.is_root:
            members = _object_members(model.fields["root"][1], classes, frozenset())
            if not members:
                raise StubgenError(
                    f"{where}tool {wire!r}: /inputSchema: arguments are sent as an object, and no object fits "
                    f"the type of the schema's root ({annotation_text(model.fields['root'][1])})"
                )
            annotation = " | ".join(annotation_text(member) for member in members)
        shape = "a map" if annotation.startswith("dict[") else "not one object"
        description = f"The tool's arguments as one value: its input schema's root is {shape}."
        argument = Parameter("arguments", "arguments", annotation, required=True, description=description)
        return "model", (argument,)
    if set(model.fields) == set(properties):
        required = set(local_schema.get("required", []))
    else:  # an `allOf` (or `$ref`) root that datamodel-code-generator merged into one class
        properties = {name: {} for name in model.fields}
        required = set(model.required)
    param_names = assign_names(sorted(properties), fallback="arg", kind="property", where=f"{where}tool {wire!r}: ")
    parameters = []
    for param in param_names:
        prop = properties[param.wire]
        nullable = _may_be_null(prop, local_schema, set()) if prop != {} else True
        annotation = _strip_none(model.fields[param.wire][1], nullable=nullable)
        parameters.append(
            Parameter(
                python=param.python,
                wire=param.wire,
                annotation=annotation,
                required=param.wire in required,
                description=_text(prop.get("description")) if isinstance(prop, dict) else None,
                default=_default_text(prop),
            )
        )
    parameters.sort(key=lambda parameter: not parameter.required)
    return "keywords", tuple(parameters)


def _object_members(annotation: ast.expr, classes: Mapping[str, _ModelClass], seen: frozenset[str]) -> list[ast.expr]:
    """The members of a union annotation (or the annotation itself) a JSON object can be: a `dict`, `Any`,
    a model class, or a root model whose own root can be one (`seen` stops a recursive one)."""
    members: list[ast.expr] = []
    for member in _union_members(annotation):
        if isinstance(member, ast.Subscript) and ast.unparse(member.value) in ("dict", "Dict", "Mapping"):
            members.append(member)
            continue
        name = member.id if isinstance(member, ast.Name) else member.value if isinstance(member, ast.Constant) else None
        if name == "Any":
            members.append(member)
            continue
        model = classes.get(name) if isinstance(name, str) else None
        if model is None or not model.bases or name in seen:
            continue
        if not model.is_root or _object_members(model.fields["root"][1], classes, seen | {str(name)}):
            members.append(member)
    return members


def _union_members(annotation: ast.expr) -> list[ast.expr]:
    """`A | B`, `Union[A, B]` and `Optional[A]` as their members; `Annotated[A, ...]` as `A`'s."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return [*_union_members(annotation.left), *_union_members(annotation.right)]
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in ("Union", "Optional", "Annotated"):
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if ast.unparse(annotation.value) == "Annotated":
            parts = parts[:1]
        return [member for part in parts for member in _union_members(part)]
    return [annotation]


def _model_class(where: str, tool: str, name: str, classes: Mapping[str, _ModelClass]) -> _ModelClass:
    """The class generated for one tool schema."""
    model = classes.get(name)
    if model is None:
        key = "inputSchema" if name.endswith("Input") else "outputSchema"
        raise StubgenError(f"{where}tool {tool!r}: /{key}: datamodel-code-generator made no model {name!r} for it")
    return model


def _wraps_primitive(tool: str, schema: JSON) -> bool:
    """MCPServer titles a wrapped primitive `<tool>Output`; FastMCP marks it with `x-fastmcp-wrap-result`."""
    properties = schema.get("properties", {})
    if set(properties) != {"result"} or schema.get("required") != ["result"]:
        return False
    return schema.get("x-fastmcp-wrap-result") is True or schema.get("title") == f"{tool}Output"


def _may_be_null(schema: Any, root: JSON, seen: set[str]) -> bool:
    """Whether a property schema admits `null`; unknown or unresolvable cases count as nullable."""
    if not isinstance(schema, dict):
        return schema is not False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("nullable") is True:
        return True
    if "const" in schema:
        return schema["const"] is None
    if isinstance(schema.get("enum"), list):
        return None in schema["enum"]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and any(_may_be_null(branch, root, seen) for branch in schema[key]):
            return True
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        return all(_may_be_null(branch, root, seen) for branch in schema["allOf"])
    reference = schema.get("$ref")
    if isinstance(reference, str):
        if reference in seen:
            return False
        target = follow(root, reference)
        return target is MISSING or _may_be_null(target, root, seen | {reference})
    return kind is None and not any(key in schema for key in ("anyOf", "oneOf", "allOf", "properties", "items"))


def _strip_none(annotation: ast.expr, nullable: bool) -> str:
    """Drop the `| None` datamodel-code-generator adds to optional fields when the schema itself forbids null."""
    members: list[ast.expr] = []

    def flatten(node: ast.expr) -> None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            flatten(node.left)
            flatten(node.right)
        else:
            members.append(node)

    flatten(annotation)
    if not nullable:
        kept = [member for member in members if not (isinstance(member, ast.Constant) and member.value is None)]
        members = kept or members
    return " | ".join(annotation_text(member) for member in members)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _default_text(schema: Any) -> str | None:
    if not isinstance(schema, dict) or "default" not in schema:
        return None
    return json.dumps(schema["default"], sort_keys=True, ensure_ascii=False)


def _resource_spec(entry: JSON, named: Named) -> ResourceSpec:
    return ResourceSpec(
        method=named.python,
        uri=entry["uri"],
        name=entry["name"],
        description=_text(entry.get("description")),
        mime_type=_text(entry.get("mimeType")),
    )


def _template_spec(where: str, entry: JSON, named: Named) -> TemplateSpec:
    from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate  # importing `mcp` takes a second

    try:
        template = UriTemplate.parse(entry["uriTemplate"])
    except InvalidUriTemplate as error:
        raise StubgenError(f"{where}resource template {shown(entry['name'])}: {one_line(str(error))}") from None
    optional = template.query_variable_names
    variables = assign_names(template.variable_names, fallback="var", kind="variable", where=where)
    parameters = sorted(
        (
            Parameter(
                python=variable.python, wire=variable.wire, annotation="str", required=variable.wire not in optional
            )
            for variable in variables
        ),
        key=lambda parameter: not parameter.required,
    )
    return TemplateSpec(
        method=named.python,
        uri_template=entry["uriTemplate"],
        name=entry["name"],
        description=_text(entry.get("description")),
        mime_type=_text(entry.get("mimeType")),
        parameters=tuple(parameters),
    )


def _prompt_spec(where: str, entry: JSON, named: Named) -> PromptSpec:
    arguments = [argument for argument in entry.get("arguments") or [] if isinstance(argument, dict)]
    by_name = {str(argument.get("name", "")): argument for argument in arguments}
    names = assign_names(sorted(by_name), fallback="arg", kind="argument", where=f"{where}prompt {entry['name']!r}: ")
    parameters = sorted(
        (
            Parameter(
                python=argument.python,
                wire=argument.wire,
                annotation="str",
                required=by_name[argument.wire].get("required") is True,
                description=_text(by_name[argument.wire].get("description")),
            )
            for argument in names
        ),
        key=lambda parameter: not parameter.required,
    )
    return PromptSpec(
        method=named.python,
        wire=entry["name"],
        description=_text(entry.get("description")),
        parameters=tuple(parameters),
    )
