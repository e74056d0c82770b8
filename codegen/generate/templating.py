"""The one strict Jinja environment the templates render in, and what they call: the escaping
filters, the import lists a client needs, and the macros of `helpers.jinja` for one method each."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable
from importlib.resources import files
from typing import Any

import jinja2

from codegen.cache_dir import default_cache_dir
from codegen.generate.escaping import docstring, literal, quoted
from codegen.generate.piecewise_black import INDENT, laid_out_keyword
from codegen.generate.spec import CompletionSpec, Import, PackageSpec, Parameter, PromptSpec, TemplateSpec, ToolSpec
from codegen.generate.template_cache import TemplateBytecodeCache
from codegen.identifiers import CALL_OPTIONS, TASK_EXPORTS

__all__ = ["jinja_environment", "keyword_parameter", "method_macros", "model_import", "tool_members"]


_NUMBERS = re.compile(r"(\d+)")


def all_sorted(names: Iterable[str]) -> list[str]:
    """Names in the order ruff's RUF022 keeps `__all__` in (isort style): constants, then classes, then
    the rest, each in natural order (`Get2` before `Get10`), so a user's linter finds nothing to sort."""
    return sorted(names, key=_natural_key)


def import_sorted(names: Iterable[str]) -> list[str]:
    """Names in the order isort and ruff's I001 keep a `from` import's members in: as `all_sorted`, but
    each kind in natural order of the lowercased name first (`Foo_baz` before `FooBar`), so that a
    tool's tenth union member (`Operations10`) does not make a user's linter re-sort the import."""
    return sorted(names, key=_import_key)


@functools.cache
def _import_key(name: str) -> tuple[str, str, str]:
    """`import_sorted`'s order: the kind, the name's natural runs lowercased, then as they are. Kept
    per name, as `_natural_key` is: a package's model names are sorted for its `models` module,
    `__init__` and methods' imports alike. The runs are split once: lowercasing each text run is
    lowercasing the name (a digit is neither cased nor ignored by case, so it ends every context)."""
    runs = _NUMBERS.split(name)
    runs[1::2] = [_number_key(str(int(digits))) for digits in runs[1::2]]
    exact = "\0".join(runs)
    runs[0::2] = [text.lower() for text in runs[0::2]]
    return _kind(name), "\0".join(runs), exact


@functools.cache
def _natural_key(name: str) -> str:
    """`all_sorted`'s order as one string, compared in C (a thousand tools' `__all__` is 8,000 names): the
    kind, then the text and number runs apart, each separated by `\\0` (below every character of a
    name), each number as its digit count then its digits, so that a shorter number sorts first."""
    return _kind(name) + _import_key(name)[2]


def _kind(name: str) -> str:
    """Constants, then classes, then the rest."""
    return "0" if name.isupper() else "1" if name[:1].isupper() else "2"


def _number_key(digits: str) -> str:
    return chr(len(digits) + 1) + digits


def parameter_doc(parameter: Parameter) -> str:
    """One parameter's docstring entry: its description, wire name when it differs, default, optionality."""
    parts = []
    if parameter.description:
        text = docstring(parameter.description)
        parts.append(text if text.endswith((".", "!", "?")) else text + ".")
    if parameter.wire != parameter.python:
        parts.append(f"Sent as {docstring(quoted(parameter.wire))}.")
    if parameter.default is not None:
        parts.append(f"Server default: {docstring(parameter.default)}.")
    if not parameter.required:
        parts.append("Optional.")
    return " ".join(parts) or "Required."


def keyword_parameter(parameter: Parameter) -> str:
    """A method's keyword parameter, from its name to its comma, as black lays it out (`laid_out_keyword`)."""
    if parameter.required:
        return laid_out_keyword(parameter.python, parameter.annotation, 2)
    return laid_out_keyword(parameter.python, parameter.annotation, 2, union="NotGiven", default="NOT_GIVEN")


@functools.cache
def jinja_environment() -> jinja2.Environment:
    """The one strict Jinja environment every template renders in: undefined names fail, and
    catalog text reaches code only through the `literal`, `quoted`, `docstring` and `parameter_doc` filters.
    Made once per process, so each template is compiled once however many packages are rendered, and
    its compiled code is kept in the user's cache folder for the next run (`template_cache`)."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("codegen.templates"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        bytecode_cache=TemplateBytecodeCache(default_cache_dir()),
    )
    environment.filters["literal"] = literal
    environment.filters["quoted"] = quoted
    environment.filters["docstring"] = docstring
    environment.filters["parameter_doc"] = parameter_doc
    environment.globals["import_sorted"] = import_sorted
    environment.globals["model_import"] = model_import
    environment.globals["package_exports"] = package_exports
    environment.globals["runtime_names"] = runtime_names
    environment.globals["typing_names"] = typing_names
    environment.globals["type_checking_imports"] = type_checking_imports
    environment.globals["call_options"] = CALL_OPTIONS
    environment.globals["keyword_parameter"] = keyword_parameter
    environment.globals["completion_parameters"] = completion_parameters
    return environment


def model_import(entry: Import) -> str:
    """One `from ._models.<tool> import ...` line of the client's `if TYPE_CHECKING:` block, indented
    as there: the template writes it, and a worker formats it beside the tool's models."""
    return f"{INDENT}from {entry.module} import {', '.join(entry.names)}"


def package_exports(package: PackageSpec) -> list[str]:
    """The `__all__` of a package's `__init__.py`: the runtime's names it re-exports, the client classes
    and every model, less the sync twin's and the tasks' names where the package has none, in
    `all_sorted` order. In Python, not Jinja filters: a thousand tools' models are 8,000 names."""
    dropped = set()
    if not package.sync_client:
        dropped |= {"SyncTaskHandle", package.sync_class_name}
    if not any(tool.task_support for tool in package.tools):
        dropped |= set(TASK_EXPORTS)
    names = [*package.runtime_exports, *TASK_EXPORTS, package.class_name, package.sync_class_name, *package.model_names]
    return all_sorted(name for name in names if name not in dropped)


def runtime_names(package: PackageSpec) -> list[str]:
    """The runtime names the client's code uses, in isort's order, so a user's linter finds no unused import."""
    entries: list[ToolSpec | TemplateSpec | PromptSpec] = [*package.tools, *package.templates, *package.prompts]
    optional = any(tool.extra for tool in package.tools) or any(
        not parameter.required for entry in entries for parameter in entry.parameters
    )
    reads = bool(package.resources or package.templates or package.prompts)
    tasks = any(tool.task_support for tool in package.tools)  # then the bases are `_tasks`' (`TaskClient`)
    used = {
        "NOT_GIVEN": optional,
        "CallOptions": bool(package.tools),
        "Completion": bool(package.completions),
        "GeneratedClient": not tasks,
        "NotGiven": optional,
        "RequestOptions": reads,
        "SyncClient": package.sync_client and not tasks,
        "TaskSupport": tasks,
        "ToolResult": any(tool.output_kind == "result" for tool in package.tools),
    }
    return [name for name, needed in used.items() if needed]


def typing_names(package: PackageSpec) -> list[str]:
    """The `typing` names the client's code uses: `Any` only where a signature has it (the sync
    twin's `connect_sync` always does), `Literal` and `overload` where completion methods do, so a
    user's linter finds no unused import."""
    entries: list[TemplateSpec | PromptSpec] = [*package.templates, *package.prompts]
    uses_any = (
        package.sync_client
        or any(tool_uses_any(tool) for tool in package.tools)
        or any(_ANY.search(parameter.annotation) for entry in entries for parameter in entry.parameters)
    )
    literal = bool(package.completions)
    overloaded = any(len(completion.entries) > 1 for completion in package.completions)
    return [
        "TYPE_CHECKING",
        *(["Any"] if uses_any else []),
        "ClassVar",
        *(["Literal"] if literal else []),
        *(["overload"] if overloaded else []),
    ]


_ANY = re.compile(r"\bAny\b")


def tool_uses_any(tool: ToolSpec) -> bool:
    """Whether a tool's method signature names `typing.Any`."""
    annotations = [
        *(parameter.annotation for parameter in tool.parameters),
        tool.return_annotation,
        tool.extra_annotation or "",
    ]
    return any(_ANY.search(text) for text in annotations)


def type_checking_imports(package: PackageSpec) -> list[str]:
    """The absolute imports of the client's `if TYPE_CHECKING:` block, indented, sorted and grouped
    (standard library, then third party) as isort writes them, less the `Literal` a client with
    completion methods imports at its top (`typing_names`); the model imports follow them."""
    imports: dict[str, set[str]] = {
        "collections.abc": {"Mapping"},
    }
    if package.sync_client:  # what `connect_sync` takes and returns
        imports["contextlib"] = {"AbstractContextManager"}
        imports["mcp.client"] = {"Transport"}
        # not `from mcp import`: a project's own `mcp/` folder (the default `mcp/snapshots`) makes
        # isort and ruff count `mcp` as first party, and `mcp.client` not, and sort them apart
        imports["mcp.client.stdio"] = {"StdioServerParameters"}
    mcp_types = {
        "GetPromptResult": bool(package.prompts),
        "ReadResourceResult": bool(package.resources or package.templates),
    }
    if any(mcp_types.values()):
        imports["mcp.types"] = {name for name, needed in mcp_types.items() if needed}
    for entry in package.model_imports:
        if not entry.module.startswith("."):
            imports.setdefault(entry.module, set()).update(entry.names)
    if package.completions and "typing" in imports:  # the completion methods import `Literal` at the top
        imports["typing"].discard("Literal")
        if not imports["typing"]:
            del imports["typing"]
    standard = [module for module in sorted(imports) if module.partition(".")[0] in sys.stdlib_module_names]
    third_party = [module for module in sorted(imports) if module not in standard]
    lines = [f"{INDENT}from {module} import {', '.join(import_sorted(imports[module]))}" for module in standard]
    if third_party:
        lines.append("")
        lines.extend(
            f"{INDENT}from {module} import {', '.join(import_sorted(imports[module]))}" for module in third_party
        )
    return lines


def completion_parameters(completion: CompletionSpec, entries: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    """A completion method's keyword parameters before `call_options`, as black lays them out: the
    entry and the name to complete as `Literal`s of the one entry's (an overload's, or the method's
    when it has one entry), else as `str` (the method an overload types each call of); then the value
    typed so far and the arguments already chosen."""
    if len(entries) == 1:
        [(key, names)] = entries
        target, name = _literal_of([key]), _literal_of(names)
    else:
        target = name = "str"
    return [
        laid_out_keyword(completion.target, target, 2),
        laid_out_keyword(completion.name, name, 2),
        "value: str,",
        "context: Mapping[str, str] | None = None,",
    ]


def _literal_of(values: Iterable[str]) -> str:
    """A `Literal` of catalog text, each value escaped (`literal`)."""
    return f"Literal[{', '.join(literal(value) for value in values)}]"


@functools.cache
def method_macros() -> Any:
    """The macros of `helpers.jinja`, one per kind of client method (loaded once per process)."""
    return jinja_environment().get_template("helpers.jinja").module


def tool_member(tool: ToolSpec, sync: bool = False) -> str:
    """A tool's client method (or, `sync`, its sync twin's) as the template writes it, before black."""
    return str(method_macros().tool_method(tool, sync))


def tool_members(tool: ToolSpec, sync: bool = False) -> list[str]:
    """A tool's client methods, async or (`sync`) sync: its method and, for a task tool, its `start_...` method."""
    members = [tool_member(tool, sync)]
    if tool.start_method:
        members.append(str(method_macros().task_method(tool, sync)))
    return members
