"""Building tools' models, method specs and client methods in batches over the cores, cached by content.

A tool's part of the package depends on that tool alone, so tools are built in batches spread over
the cores (`parallel.map_batches`), and each is cached as one entry (`_entry`): creating a file was
the costliest step of storing a piece, and a tool's pieces are always wanted together. Workers also
format each tool's client methods, which depend on its spec alone; the renderer
(`codegen.generate.render`) finds them in the cache and formats the rest of the client.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import NamedTuple

from codegen.errors import StubgenError
from codegen.generate.cache import Cache, cache_key, compact_json
from codegen.generate.contract import contract
from codegen.generate.guard import Findings, check_tool_schemas, past_budget, shown
from codegen.generate.method_specs import Untypable, tool_spec
from codegen.generate.model_batches import grouped_sources
from codegen.generate.model_reader import ModelClass, ReadModels, read_models, untyped_reason
from codegen.generate.modelgen import TOO_DEEP, ModelJob, load_datamodel, model_source, one_line, untyped_source
from codegen.generate.package_plan import ToolPlan
from codegen.generate.parallel import map_batches
from codegen.generate.piecewise_black import black_batch, formatted_without_black, members_entry, members_key
from codegen.generate.spec import Parameter, ToolSpec
from codegen.generate.templating import method_macros, tool_members
from codegen.identifiers import OUTPUT_ALONE_RULES
from codegen.runtime._hub_catalog import file_stem
from codegen.snapshot import JSON

__all__ = ["ToolParts", "load_builders", "load_method_builders", "tool_key", "tool_models", "tool_parts", "tool_specs"]

MODELS_WORTH_FORKING = 20_000
"""Tool definitions (bytes of compact JSON) whose models are made in-process below this: forked
workers cost about 0.1 s of CPU more (pages copied on write, more and smaller datamodel-code-generator
calls), about what making 10-20 KB of tools' models costs (17 small tools, 11 KB: 0.08 s of CPU
in-process, 0.17 s of CPU and more wall over two workers)."""


class ToolParts(NamedTuple):
    """One tool as built: what `build_package` assembles the package from."""

    source: str
    """The tool's models module (`modelgen.model_source`, or `untyped_source`)."""
    classes: tuple[str, ...]
    imported: dict[str, str]
    """The names the models module imports, name -> module."""
    spec: ToolSpec
    contract: str
    """What the runtime checks calls against (`contract.contract`)."""


def tool_parts(server: str, tools: Sequence[ToolPlan], cache: Cache, strict: bool = False) -> list[ToolParts]:
    """Each tool's parts, from the cache or built in batches over the cores; the first failing tool
    (in catalog order) is the `StubgenError` raised. Each tool's formatted client methods are held in
    `cache` for the renderer (`piecewise_black.cached_members`).

    Under `strict`, a tool to build whose schema is past the work budget (`guard.past_budget`, which
    would make it untyped) is refused before any tool's models are made: making a large catalog's
    models takes minutes."""
    keys = [tool_key(tool) for tool in tools]
    entries = [_read_entry(cache.get(key)) for key in keys]
    missing = [index for index, entry in enumerate(entries) if entry is None]
    jobs = [_ToolJob(server, tools[index], keys[index]) for index in missing]
    for job in jobs if strict else ():
        reason = past_budget(job.tool.tool)
        if reason is not None:
            raise StubgenError(f"server {server!r}: tool {shown(job.tool.tool['name'])}: {reason}")
    small = sum(job.tool.size for job in jobs) < MODELS_WORTH_FORKING
    build = functools.partial(_build_tools, cache.folder)
    outcomes = map_batches(build, jobs, load_builders if jobs else None, small)
    for index, outcome in zip(missing, outcomes, strict=True):
        if isinstance(outcome, _Refused):
            raise StubgenError(outcome.message)
        cache.remember(keys[index], outcome)
        entries[index] = _read_entry(outcome)
    parts: list[ToolParts] = []
    for entry in entries:
        assert entry is not None, "every tool was found in the cache or built"
        tool, members = entry
        cache.hold(members_key(tool.spec), members)
        parts.append(tool)
    return parts


def tool_key(tool: ToolPlan) -> str:
    """Where a tool's entry is cached: by everything its models, spec and methods are made from."""
    keywords = [compact_json(dict(tool.keywords))] if tool.keywords else []
    rules = str(tool.naming_rules)
    return cache_key("tool", tool.stem, tool.content, tool.named.python, tool.start_method or "", rules, *keywords)


def load_builders() -> None:
    """Load what building a tool loads (datamodel-code-generator, the method templates) in this process
    once, before workers are forked from it."""
    load_datamodel()
    method_macros()


def load_method_builders() -> None:
    """What building a tool the plain path writes (`plain_models`) loads up front: the method
    templates. A warm worker given a changed tool loads this at once, and datamodel-code-generator
    only for a schema `guard.plainly_valid` cannot vouch for or a tool the plain path leaves to it
    (a tenth of real catalogs' tools): loading all of it was a fifth of the CPU of a 1,000-tool
    generate with one tool changed, and its schema model alone 0.3 s of it."""
    method_macros()


@dataclass(frozen=True)
class _ToolJob:
    """What a worker needs to build one tool: its plan and the cache key its entry is stored under."""

    server: str
    tool: ToolPlan
    key: str


class _Refused(NamedTuple):
    """A tool no package can be built with: the one-line message `tool_parts` raises."""

    message: str


def _build_tools(folder: Path | None, jobs: Sequence[_ToolJob]) -> list[str | _Refused]:
    """Build a batch of tools (in a worker): models, spec, contract and formatted client methods, stored
    in the cache folder as one entry per tool (`_entry`; by the workers, in parallel, rather than one
    file at a time by the parent). A refused tool is its one-line message."""
    built = _typed_tools(jobs)
    typed = [outcome for outcome in built if not isinstance(outcome, _Refused)]
    members = iter(_formatted_members([tool.spec for _, tool in typed]))
    store = Cache(folder)
    outcomes: list[str | _Refused] = []
    for outcome in built:
        if isinstance(outcome, _Refused):
            outcomes.append(outcome)
            continue
        job, tool = outcome
        entry = _entry(tool, contract(job.tool.tool, tool.spec), next(members))
        store.put(job.key, entry)
        outcomes.append(entry)
    return outcomes


def _typed_tools(jobs: Sequence[_ToolJob]) -> list[tuple[_ToolJob, _Typed] | _Refused]:
    """Each job's models module and method spec (`typed_or_untyped`), its schemas checked first and
    its models made in groups (`_grouped`); a refused tool is its one-line message."""
    checked: list[Findings | StubgenError] = []
    for job in jobs:
        try:
            checked.append(check_tool_schemas(job.server, job.tool.tool))
        except StubgenError as error:
            checked.append(error)
    built: list[tuple[_ToolJob, _Typed] | _Refused] = []
    for job, findings, (source, read) in zip(jobs, checked, _grouped(jobs, checked), strict=True):
        if isinstance(findings, StubgenError):
            built.append(_Refused(str(findings)))
            continue
        try:
            built.append((job, typed_or_untyped(job.server, job.tool, source, findings, read)))
        except StubgenError as error:
            built.append(_Refused(str(error)))
    return built


def tool_specs(server: str, tools: Sequence[ToolPlan], cache: Cache) -> list[ToolSpec | None]:
    """Each tool's method spec as `generate` makes it, None for a tool it refuses (and says why): from
    the tool's cache entry when one was made, else built as `tool_parts` builds it (models written by
    `plain_models` where it can, datamodel-code-generator run only for the rest), without formatting
    its methods or storing anything. Whether a method takes typed arguments and returns a typed
    result is the generator's decision alone; drift and code mode read it here."""
    keys = [tool_key(tool) for tool in tools]
    specs: list[ToolSpec | None] = []
    missing: list[int] = []
    for index, key in enumerate(keys):
        entry = _read_entry(cache.get(key))
        specs.append(entry[0].spec if entry is not None else None)
        if entry is None:
            missing.append(index)
    built = _typed_tools([_ToolJob(server, tools[index], keys[index]) for index in missing])
    for index, outcome in zip(missing, built, strict=True):
        specs[index] = None if isinstance(outcome, _Refused) else outcome[1].spec
    return specs


def tool_models(server: str, tool: ToolPlan, cache: Cache) -> dict[str, ModelClass]:
    """The classes of the models module `generate` makes for a tool, as `tool_specs` finds or builds
    it: none for the untyped method or a refused tool, and by naming rules 13 the arguments' alone
    where the output schema gives no type. Drift names the classes a caller's code names by them."""
    key = tool_key(tool)
    entry = _read_entry(cache.get(key))
    if entry is not None:
        spec, classes = entry[0].spec, read_models(entry[0].source)[0]
    else:
        [outcome] = _typed_tools([_ToolJob(server, tool, key)])
        if isinstance(outcome, _Refused):
            return {}
        spec, classes = outcome[1].spec, outcome[1].models
    return {} if spec.input_kind == "untyped" else classes


def _formatted_members(specs: Sequence[ToolSpec]) -> list[str]:
    """Each tool's client methods and their sync twins as black writes them (`members_entry`), those
    black would not leave alone formatted in one black call for the batch."""
    methods = [[*tool_members(spec), *tool_members(spec, sync=True)] for spec in specs]
    pieces = [method for tool in methods for method in tool]
    known = [formatted_without_black("member", piece) for piece in pieces]
    blacked = iter(black_batch("member", [piece for piece, text in zip(pieces, known, strict=True) if text is None]))
    done = iter([text if text is not None else next(blacked) for text in known])
    return [members_entry(spec, [next(done) for _ in tool]) for spec, tool in zip(specs, methods, strict=True)]


def _grouped(
    jobs: Sequence[_ToolJob], checked: Sequence[Findings | StubgenError]
) -> list[tuple[str | None, ReadModels | None]]:
    """Each job's models module, made with others in one datamodel-code-generator call
    (`model_batches`, with what it defines when that was read there already); None for one to make
    alone (`typed_or_untyped`), as an untypable tool's is."""
    sources: list[tuple[str | None, ReadModels | None]] = [(None, None) for _ in jobs]
    wanted = [
        index
        for index, (job, findings) in enumerate(zip(jobs, checked, strict=True))
        if isinstance(findings, Findings) and findings.untypable is None and _takes_object(job.tool.tool)
    ]
    made = grouped_sources(
        [ModelJob(jobs[index].tool.tool, jobs[index].tool.stem, jobs[index].tool.naming_rules) for index in wanted]
    )
    for index, grouped in zip(wanted, made, strict=True):
        if grouped is not None:
            sources[index] = grouped
    return sources


def _takes_object(tool: JSON) -> bool:
    """Whether the input schema's `type` allows an object: arguments are always one."""
    kind = tool["inputSchema"].get("type", "object")
    return "object" in (kind if isinstance(kind, list) else [kind])


class _Typed(NamedTuple):
    """A tool's models module, read back, and its method's spec."""

    source: str
    models: dict[str, ModelClass]
    imported: dict[str, str]
    spec: ToolSpec


def typed_or_untyped(
    server: str, tool: ToolPlan, source: str | None, findings: Findings, read: ReadModels | None = None
) -> _Typed:
    """A tool's models module and method spec; a schema the checks found untypable (`findings`) or
    that no models can be generated from (or no method typed from) gets the untyped module
    (`untyped_source`), so one such tool never blocks its server. By naming rules 13 a tool whose input
    schema is typed keeps its typed arguments when its output schema alone cannot be typed, its method
    returning `ToolResult` (`OUTPUT_ALONE_RULES`). `build_package` turns either into an error under
    `strict`. `read` is what `source` defines and imports, when that is known already."""
    typed = _typed(server, tool, source, findings.untypable, read)
    if isinstance(typed, _Typed):
        return typed
    reason = typed
    if tool.naming_rules >= OUTPUT_ALONE_RULES and findings.input_typable and "outputSchema" in tool.tool:
        arguments_alone = replace(tool, tool={key: value for key, value in tool.tool.items() if key != "outputSchema"})
        output_reason = reason if reason.startswith("/outputSchema") else f"/outputSchema: {reason}"
        typed = _typed(server, arguments_alone, None, None, None, (output_reason, findings.left_to_server))
        if isinstance(typed, _Typed):
            return typed
        reason = typed  # the arguments' own reason: it is why the method takes `arguments`
    source = untyped_source(ModelJob(tool.tool, tool.stem, tool.naming_rules), reason)
    models, imported = read_models(source)
    spec = tool_spec(tool, file_stem(tool.named.python), models, reason, findings.left_to_server)
    return _Typed(source, models, imported, spec)


def _typed(
    server: str,
    tool: ToolPlan,
    source: str | None,
    untypable: str | None,
    read: ReadModels | None,
    output: tuple[str, tuple[str, ...]] | None = None,
) -> _Typed | str:
    """The typed models module and method spec, or why there are none (a JSON pointer into the tool's
    schemas, then what). `output`: why the tool's output schema, left out of `tool`, gave no type,
    and which of its schemas are left to the server."""
    try:
        if untypable is not None:
            raise Untypable(untypable)
        if not _takes_object(tool.tool):
            kind = tool.tool["inputSchema"].get("type", "object")
            raise Untypable(f"/inputSchema/type: arguments are sent as an object, and the schema says {kind!r}")
        if source is None:
            source, read = model_source(server, ModelJob(tool.tool, tool.stem, tool.naming_rules)), None
        models, imported = read if read is not None else read_models(source)
        untyped_output, left = output or (None, ())
        stem = file_stem(tool.named.python)
        spec = tool_spec(tool, stem, models, untyped_reason(source), left, untyped_output)
        return _Typed(source, models, imported, spec)
    except Untypable as error:
        return error.message
    except StubgenError as error:  # datamodel-code-generator refused the schema; modelgen's message names the tool
        return error.message.removeprefix(f"server {server!r}: tool {tool.tool['name']!r}: ")
    except Exception as error:  # datamodel-code-generator failing on a schema it accepted
        if _nested_past_python(error):
            return f"cannot generate models: {TOO_DEEP}"
        return f"datamodel-code-generator failed ({type(error).__name__}: {one_line(str(error))})"


def _nested_past_python(error: Exception) -> bool:
    """Whether reading the models back failed for their nesting alone: Python's parser refuses more
    than 200 nested brackets, and runs out of stack on a little less. Which of those, or
    datamodel-code-generator's own `RecursionError` (`modelgen.TOO_DEEP`), comes first depends on how
    deep the stack already is where it runs, so each is said in the same words: the package must
    not depend on it (a fresh clone's test run wrote one, a developer's the other)."""
    if isinstance(error, RecursionError):
        return True
    return isinstance(error, SyntaxError) and (error.msg or "").startswith("too many nested parentheses")


def _entry(tool: _Typed, contract: str, members: str) -> str:
    """A tool's cache entry: a line of JSON with what its models module tells the client (its classes,
    its imports, the method's spec) and its contract, so a cached run never parses the module nor
    walks a schema, and the module's length; a line with its formatted methods (`members_entry`: JSON
    writes no raw line break); then the module itself."""
    document = {
        "classes": tuple(tool.models),
        "imported": tool.imported,
        "spec": asdict(tool.spec),
        "contract": contract,
        "source_length": len(tool.source),
    }
    return f"{json.dumps(document, ensure_ascii=False)}\n{members}\n{tool.source}"


def _read_entry(text: str | None) -> tuple[ToolParts, str] | None:
    """A tool's parts and its formatted methods' entry from `_entry`'s text; None for no entry, or one
    that cannot be read or is cut short (damaged on disk): the tool is then built again."""
    if text is None:
        return None
    try:
        head, members, source = text.split("\n", 2)
        document = json.loads(head)
        if document["source_length"] != len(source):
            return None
        spec = document["spec"]
        parameters = tuple(Parameter(**parameter) for parameter in spec.pop("parameters"))
        left = tuple(spec.pop("left_to_server"))
        parts = ToolParts(
            source=source,
            classes=tuple(document["classes"]),
            imported=document["imported"],
            spec=ToolSpec(**spec, parameters=parameters, left_to_server=left),
            contract=document["contract"],
        )
    except (ValueError, KeyError, TypeError):
        return None
    return parts, members
