"""The typed intermediate model between a snapshot and the rendered package.

Templates see only these frozen dataclasses: every identifier in them is already a clean, unique
Python name (from `codegen.identifiers`), and every free text is still raw, escaped by the renderer's
filters at the one place it is written out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codegen.identifiers import RUNTIME_EXPORTS, TaskSupport

OutputKind = Literal["result", "model", "value"]
"""`result`: no output schema, the runtime's `ToolResult` (typed content blocks, the SDK's result as `raw`); `model`: the output model; `value`: an unwrapped
primitive, or a root model's value (a map, a union, an array)."""

InputKind = Literal["keywords", "model", "untyped"]
"""`keywords`: one keyword argument per property; `model`: one `arguments` parameter holding the input
model (or, for a root model, its value); `untyped`: `arguments: dict[str, Any]`, checked against the
tool's JSON Schema when called, for a schema no model could be generated from."""


@dataclass(frozen=True)
class Parameter:
    python: str
    wire: str
    annotation: str
    required: bool
    description: str | None = None
    default: str | None = None
    """The schema's default as JSON text, for the docstring; the server applies it when the argument is not given."""


@dataclass(frozen=True)
class ToolSpec:
    wire: str
    method: str
    module: str
    """The module under `_models/` that holds this tool's models."""
    title: str | None
    description: str | None
    input_model: str
    output_kind: OutputKind
    output_model: str | None
    output_field: str | None
    """The output model's attribute holding an unwrapped primitive (`value` outputs only)."""
    return_annotation: str
    parameters: tuple[Parameter, ...]
    fingerprint: str
    input_kind: InputKind = "keywords"
    untyped_reason: str | None = None
    """Why no models could be generated (`untyped` tools only): the warning and the docstring say it."""
    untyped_output: str | None = None
    """Why the output schema gave no type, for a tool whose arguments are typed all the same (naming
    rules 13, `OUTPUT_ALONE_RULES`): its method returns `ToolResult`; the warning and the docstring say it."""
    left_to_server: tuple[str, ...] = ()
    """The keys of the untyped tool's schemas (or the output schema `untyped_output` is about) that
    nothing client-side applies (`guard.Findings`): the contract, the hub's catalog and the SDK's check
    of the result leave them to the server."""
    extra: str | None = None
    """The parameter taking more arguments by wire name, when the input schema's root allows keys
    beyond its properties (unless `additionalProperties: false` closes it, JSON Schema allows them); else None."""
    extra_annotation: str | None = None
    """`extra`'s type: `Mapping[str, <the additionalProperties' type>]`, `object` where no one type fits."""
    task_support: TaskSupport | None = None
    """The tool's `execution.taskSupport` when it may run as a task: a `required` tool's method runs it
    as one, and either gets `start_method`, returning a task handle."""
    start_method: str | None = None


@dataclass(frozen=True)
class AliasSpec:
    """A renamed tool's old method name, kept while the config's `renames` states the rename: a
    deprecated method (PEP 702, so type checkers flag its callers) that calls the new tool's method."""

    method: str
    old_wire: str
    tool: ToolSpec


@dataclass(frozen=True)
class ResourceSpec:
    method: str
    uri: str
    name: str
    description: str | None
    mime_type: str | None


@dataclass(frozen=True)
class TemplateSpec:
    method: str
    uri_template: str
    name: str
    description: str | None
    mime_type: str | None
    parameters: tuple[Parameter, ...]


@dataclass(frozen=True)
class PromptSpec:
    method: str
    wire: str
    description: str | None
    parameters: tuple[Parameter, ...]


@dataclass(frozen=True)
class CompletionSpec:
    """A completion method (naming rules 14, a server that declares `completions`): `complete_prompt`
    over the prompts with arguments, or `complete_template` over the resource templates with
    variables, typed by one overload per entry when there are several."""

    method: str
    kind: Literal["prompt", "template"]
    target: str
    """The keyword naming the entry: `prompt` (its name) or `template` (its URI template)."""
    name: str
    """The keyword naming what is completed: `argument` or `variable`."""
    entries: tuple[tuple[str, tuple[str, ...]], ...]
    """Each entry's wire key and the wire names of its arguments (variables), both sorted."""


@dataclass(frozen=True)
class Import:
    module: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class ModelModule:
    """One tool's models module, `_models/<module>.py`: made from that tool alone."""

    module: str
    tool: str
    tool_fingerprint: str
    classes: tuple[str, ...]
    source: str
    """datamodel-code-generator's module, its first line a placeholder for the header."""
    contract: str
    """The tool's schemas and parameter names as JSON text (ASCII), written into the module as a
    string literal for the runtime's validators (`_runtime.ToolContract`)."""
    client_imports: tuple[Import, ...] = ()
    """What client.py imports for the tool's method (`build.model_module`): the package's
    `model_imports` are every tool's together."""


@dataclass(frozen=True)
class PackageSpec:
    server: str
    package: str
    class_name: str
    sync_class_name: str
    """The client's sync twin, in the same module (`WeatherSyncClient`)."""
    header: str
    snapshot_fingerprint: str
    instructions: str | None
    client_capabilities: tuple[str, ...]
    """Declared in the snapshot's handshake: the client's `connect` requires a handler for each."""
    parse_text_json: bool
    """The snapshot's `parseTextJson`: a structured result may be read from its JSON text."""
    protocol_version: str
    """The protocol the snapshot recorded, which the client's `connect` speaks."""
    tools: tuple[ToolSpec, ...]
    resources: tuple[ResourceSpec, ...]
    templates: tuple[TemplateSpec, ...]
    prompts: tuple[PromptSpec, ...]
    model_imports: tuple[Import, ...]
    """What client.py imports for its annotations: model classes from `._models.<tool>`, and the typing names they use."""
    model_names: tuple[str, ...]
    """Every model class of every tool, re-exported (lazily) from `models.py` and the package, in
    `__all__`'s order (`all_sorted`)."""
    model_modules: tuple[ModelModule, ...]
    aliases: tuple[AliasSpec, ...] = ()
    sync_client: bool = True
    """Whether client.py has the sync twin (`sync_class_name`) and `connect_sync`."""
    completions: tuple[CompletionSpec, ...] = ()
    runtime_exports: tuple[str, ...] = RUNTIME_EXPORTS
    """What `__init__.py` re-exports from the runtime's `_runtime` (`identifiers.runtime_exports`)."""
