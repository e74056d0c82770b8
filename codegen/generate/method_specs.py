"""Catalog entry -> the spec of its client method: a tool's from its schemas and the models read back
(`model_reader`), a resource's, template's and prompt's from the entry alone."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codegen.errors import StubgenError
from codegen.generate.guard import shown
from codegen.generate.model_reader import ModelClass, names_in
from codegen.generate.modelgen import annotation_text, one_line
from codegen.generate.package_plan import ToolPlan
from codegen.generate.spec import (
    Import,
    InputKind,
    OutputKind,
    Parameter,
    PromptSpec,
    ResourceSpec,
    TemplateSpec,
    ToolSpec,
)
from codegen.identifiers import Named, argument_names, assign_names, escape, task_support, wraps_result
from codegen.runtime._uri_template import InvalidUriTemplate, UriTemplate
from codegen.schemas import MISSING, Document, follow
from codegen.snapshot import JSON

__all__ = ["Untypable", "own_import", "prompt_spec", "resource_spec", "template_spec", "tool_spec", "used_names"]


class Untypable(StubgenError):
    """Why no typed method can be made for a tool, as its reason alone (a JSON pointer into its
    schemas, then what is wrong): the tool gets the untyped method instead, or, under `strict`, the
    error naming its server and tool (`build_package`)."""


def own_import(spec: ToolSpec, used: set[str], classes: Mapping[str, object] | Sequence[str]) -> Import:
    """The client's import of this tool's own models: the classes its method's annotations use (`used`,
    its `used_names`)."""
    return Import(f"._models.{spec.module}", tuple(sorted(used & set(classes))))


def used_names(spec: ToolSpec) -> set[str]:
    """Every name the tool's method annotations refer to (its body imports the models it uses itself)."""
    annotations = (
        *(parameter.annotation for parameter in spec.parameters),
        spec.extra_annotation or "None",
        spec.return_annotation,
    )
    return {name for annotation in annotations for name in names_in(annotation)}


def tool_spec(
    plan: ToolPlan,
    module: str,
    classes: Mapping[str, ModelClass],
    untyped: str | None = None,
    left_to_server: tuple[str, ...] = (),
    untyped_output: str | None = None,
) -> ToolSpec:
    """The method's spec; `untyped` is why the tool's module holds no models, for an untyped tool, and
    `left_to_server` which of its schemas nothing client-side applies (`guard.Findings`).
    `untyped_output` is why a typed tool's output schema gave no type (naming rules 13): `plan`'s tool
    then comes without it, and its method returns `ToolResult`.
    Raises `Untypable` when the models give no typed method."""
    tool, stem = plan.tool, plan.stem
    wire = tool["name"]
    input_model = f"{stem}Input"
    extra = extra_annotation = None
    if untyped is not None:
        note = (
            "Any arguments, checked against the tool's JSON Schema when called: mcp-stubgen could not "
            f"type this tool ({untyped})."
        )
        if any(Document.of(tool[key]).unresolved for key in ("inputSchema", "outputSchema") if key in tool):
            note += " A reference that names nothing in the schema is not checked: the server judges that value."
        if left_to_server:
            note += " A schema left to the server is not checked at all: the server judges it."
        input_kind: InputKind = "untyped"
        parameters: tuple[Parameter, ...] = (
            Parameter("arguments", "arguments", "dict[str, Any]", required=True, description=note),
        )
        output = _UNTYPED_OUTPUT
    else:
        model = _model_class(input_model, classes)
        input_kind, parameters = _input_parameters(tool["inputSchema"], input_model, model, classes, plan)
        root = Document.of(tool["inputSchema"]).local()
        if input_kind == "keywords" and _takes_more(root):
            extra = escape("extra", {parameter.python for parameter in parameters})
            values = "object"  # what keys matching `patternProperties` hold has types of its own
            if model.extra is not None and not root.get("patternProperties"):
                values = annotation_text(model.extra)
            extra_annotation = f"Mapping[str, {values}]"
        output = _output(tool, wire, stem, classes, plan.naming_rules)
    return ToolSpec(
        wire=wire,
        method=plan.named.python,
        module=module,
        title=_text(tool.get("title")),
        description=_text(tool.get("description")),
        input_model=input_model,
        output_kind=output.kind,
        output_model=output.model,
        output_field=output.field,
        return_annotation=output.annotation,
        parameters=parameters,
        fingerprint=plan.fingerprint,
        input_kind=input_kind,
        untyped_reason=untyped,
        untyped_output=untyped_output,
        left_to_server=left_to_server,
        extra=extra,
        extra_annotation=extra_annotation,
        task_support=task_support(tool),
        start_method=plan.start_method,
    )


@dataclass(frozen=True)
class _Output:
    """What the method returns: the result itself, a model, or one value read off the model."""

    kind: OutputKind
    model: str | None
    field: str | None
    annotation: str


_UNTYPED_OUTPUT = _Output("result", None, None, "ToolResult")


def _output(tool: JSON, wire: str, stem: str, classes: Mapping[str, ModelClass], rules: int) -> _Output:
    if "outputSchema" not in tool:
        return _UNTYPED_OUTPUT
    name = f"{stem}Output"
    output = _model_class(name, classes)
    if output.is_root:
        field, annotation_node = output.fields["root"]
        return _Output("value", name, field, annotation_text(_as_sent(annotation_node, rules)))
    if wraps_result(wire, tool["outputSchema"]) and "result" in output.fields:
        field, annotation_node = output.fields["result"]
        return _Output("value", name, field, annotation_text(_as_sent(annotation_node, rules)))
    return _Output("model", name, None, name)


def _as_sent(annotation: ast.expr, rules: int) -> ast.expr:
    """A method's keyword or return type as the wire has it: by naming rules 6, which write a
    constrained plain value as `Annotated[int, Field(ge=1)]` in the models, without the constraints
    (`list[int]`), which the JSON Schema check applies; by earlier rules as the models have it, so
    an upgrade changes no committed client."""
    return _without_annotated(annotation) if rules >= 6 else annotation


def _takes_more(schema: JSON) -> bool:
    """Whether the input schema's root allows keys beyond its `properties`: JSON Schema allows them
    unless `additionalProperties: false` closes the root (and no `patternProperties` opens it again)."""
    return schema.get("additionalProperties", True) is not False or bool(schema.get("patternProperties"))


def _input_parameters(
    schema: JSON, name: str, model: ModelClass, classes: Mapping[str, ModelClass], plan: ToolPlan
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
                raise Untypable(
                    "/inputSchema: arguments are sent as an object, and no object fits "
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
    param_names = argument_names(properties, plan.keywords, plan.naming_rules)
    parameters = []
    for param in param_names:
        prop = properties[param.wire]
        nullable = _may_be_null(prop, local_schema, set()) if prop != {} else True
        plain = _plain_roots(model.fields[param.wire][1], classes, frozenset())
        annotation = _keyword_annotation(_as_sent(plain, plan.naming_rules), nullable=nullable)
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


def _plain_roots(annotation: ast.expr, classes: Mapping[str, ModelClass], seen: frozenset[str]) -> ast.expr:
    """`annotation` with each root model of a plain value (`RootModel[str]`, made for a constrained
    array item or union member) replaced by that value's type, and a union's repeats dropped: the
    keyword takes what the wire takes (`paths=["a.txt"]`, not `paths=[GitAddInputPath("a.txt")]`),
    and the JSON Schema check still applies the constraints before sending."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        members: dict[str, ast.expr] = {}
        for member in _union_members(annotation):
            plain = _plain_roots(member, classes, seen)
            members.setdefault(ast.unparse(plain), plain)
        union, *rest = members.values()
        for member in rest:
            union = ast.BinOp(union, ast.BitOr(), member)
        return union
    if isinstance(annotation, ast.Subscript):
        return ast.Subscript(annotation.value, _plain_roots(annotation.slice, classes, seen), annotation.ctx)
    if isinstance(annotation, ast.Tuple):
        return ast.Tuple([_plain_roots(element, classes, seen) for element in annotation.elts], annotation.ctx)
    name = annotation.id if isinstance(annotation, ast.Name) else None
    model = classes.get(name) if name is not None and name not in seen else None
    if model is not None and model.alias_of is not None and names_in(ast.unparse(model.alias_of)) & set(classes):
        # an alias of a type built of models (`Annotated[list[SearchInputDiseaseItem], Field(...)]`,
        # biomcp's `type: ["string", "array"]`): the keyword takes its plain type if it has one
        aliased = _plain_roots(_without_annotated(model.alias_of), classes, seen | {str(name)})
        return annotation if names_in(ast.unparse(aliased)) & set(classes) else aliased
    if model is None or not model.is_root:
        return annotation
    root = _plain_roots(model.fields["root"][1], classes, seen | {str(name)})
    return annotation if names_in(ast.unparse(root)) & set(classes) else root


def _without_annotated(annotation: ast.expr) -> ast.expr:
    """The annotation with each `Annotated[X, ...]` as `X`: a keyword's type says what the wire takes,
    and the JSON Schema check applies the constraints `Field(...)` held."""
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Annotated":
        first = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else annotation.slice
        return _without_annotated(first)
    if isinstance(annotation, ast.Subscript):
        return ast.Subscript(annotation.value, _without_annotated(annotation.slice), annotation.ctx)
    if isinstance(annotation, ast.Tuple):
        return ast.Tuple([_without_annotated(element) for element in annotation.elts], annotation.ctx)
    if isinstance(annotation, ast.BinOp):
        return ast.BinOp(_without_annotated(annotation.left), annotation.op, _without_annotated(annotation.right))
    return annotation


def _object_members(annotation: ast.expr, classes: Mapping[str, ModelClass], seen: frozenset[str]) -> list[ast.expr]:
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


def _model_class(name: str, classes: Mapping[str, ModelClass]) -> ModelClass:
    """The class generated for one tool schema."""
    model = classes.get(name)
    if model is None:
        key = "inputSchema" if name.endswith("Input") else "outputSchema"
        raise Untypable(f"/{key}: datamodel-code-generator made no model {name!r} for it")
    return model


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


def _keyword_annotation(annotation: ast.expr, nullable: bool) -> str:
    """A keyword's type from its field's: without the `| None` datamodel-code-generator adds to
    optional fields when the schema itself forbids null, and without `int` beside `float`, which a
    type checker takes an `int` for (ruff's default rules reject `int | float` in a signature, PYI041;
    mcpforunityserver's `anyOf` of an integer and a number). The field keeps both: pydantic reads them apart."""
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
    if any(isinstance(member, ast.Name) and member.id == "float" for member in members):
        members = [member for member in members if not (isinstance(member, ast.Name) and member.id == "int")]
    return " | ".join(annotation_text(member) for member in members)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _default_text(schema: Any) -> str | None:
    if not isinstance(schema, dict) or "default" not in schema:
        return None
    return json.dumps(schema["default"], sort_keys=True, ensure_ascii=False)


def resource_spec(entry: JSON, named: Named) -> ResourceSpec:
    return ResourceSpec(
        method=named.python,
        uri=entry["uri"],
        name=entry["name"],
        description=_text(entry.get("description")),
        mime_type=_text(entry.get("mimeType")),
    )


def template_spec(where: str, entry: JSON, named: Named, rules: int) -> TemplateSpec:
    """The template's reader; its variables' keywords follow the snapshot's naming `rules`."""
    parsed = _template_variables(entry["uriTemplate"])
    if isinstance(parsed, str):
        raise StubgenError(f"{where}resource template {shown(entry['name'])}: {parsed}")
    names, optional, exploded = parsed
    variables = assign_names(names, fallback="var", kind="variable", where=where, rules=rules)
    parameters = sorted(
        (
            Parameter(
                python=variable.python,
                wire=variable.wire,
                annotation="str | list[str]" if variable.wire in exploded else "str",
                required=variable.wire not in optional,
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


def _template_variables(uri_template: str) -> tuple[list[str], set[str], set[str]] | str:
    """A URI template's variables, those a method may leave out (its closing query's) and those it
    explodes (a list's items, `{/path*}`: `["a", "b"]` is `/a/b`, where `"a/b"` is the one segment
    `/a%2Fb`), as the runtime's reader expands it, or why it cannot."""
    try:
        template = UriTemplate.parse(uri_template)
    except InvalidUriTemplate as error:
        return one_line(str(error))
    return template.variable_names, template.query_variable_names, template.exploded_names


def prompt_spec(entry: JSON, named: Named, keywords: Mapping[str, str], rules: int) -> PromptSpec:
    """The prompt's method; `keywords` are the committed package's for its arguments (`argumentNames`),
    the others follow the snapshot's naming `rules`."""
    arguments = [argument for argument in entry.get("arguments") or [] if isinstance(argument, dict)]
    by_name = {str(argument.get("name", "")): argument for argument in arguments}
    names = argument_names(by_name, keywords, rules)
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
