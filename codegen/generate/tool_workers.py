"""Building tools' models and method specs in batches over the cores, each piece cached by content.

A tool's part of the package depends on that tool alone, so tools are built in batches spread over
the cores (`parallel.map_batches`). Workers build specs, never text: the renderer formats the client
(`codegen.generate.render`) from the finished `PackageSpec` it is handed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

from codegen.errors import StubgenError
from codegen.generate.cache import Cache, cache_key
from codegen.generate.contract import contract
from codegen.generate.guard import check_tool_schemas
from codegen.generate.method_specs import Untypable, tool_spec
from codegen.generate.model_batches import grouped_sources
from codegen.generate.model_reader import ModelClass, ReadModels, read_models, untyped_reason
from codegen.generate.modelgen import ModelJob, load_datamodel, model_source, one_line, untyped_source
from codegen.generate.package_plan import ToolPlan
from codegen.generate.parallel import map_batches
from codegen.generate.spec import Parameter, ToolSpec
from codegen.snapshot import JSON

__all__ = ["ToolParts", "tool_parts"]

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


def tool_parts(server: str, tools: Sequence[ToolPlan], cache: Cache) -> list[ToolParts]:
    """Each tool's parts, from the cache or built in batches over the cores; the first failing tool
    (in catalog order) is the `StubgenError` raised."""
    source_keys = [cache_key("models", tool.stem, tool.content) for tool in tools]
    spec_keys = [
        cache_key("tool-spec", tool.content, tool.named.python, tool.stem, tool.start_method or "") for tool in tools
    ]
    sources = [cache.get(key) for key in source_keys]
    specs = [cache.get(key) for key in spec_keys]
    missing = [index for index, spec in enumerate(specs) if spec is None or sources[index] is None]
    jobs = [_ToolJob(server, tools[index], sources[index], source_keys[index], spec_keys[index]) for index in missing]
    making = sum(job.tool.size for job in jobs if job.source is None)
    small = making < MODELS_WORTH_FORKING
    build = functools.partial(_build_tools, cache.folder)
    outcomes = map_batches(build, jobs, load_datamodel if making else None, small)
    for index, outcome in zip(missing, outcomes, strict=True):
        if isinstance(outcome, str):
            raise StubgenError(outcome)
        sources[index], specs[index] = outcome.source, outcome.spec
        cache.remember(source_keys[index], outcome.source)
        cache.remember(spec_keys[index], outcome.spec)
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


def _build_tools(folder: Path | None, jobs: Sequence[_ToolJob]) -> list[_Built | str]:
    """Build a batch of tools (in a worker): models, spec and contract, each text stored in the cache
    folder (in parallel, by the workers, rather than one file at a time by the parent). A failure is
    its one-line message."""
    checked: list[str | StubgenError | None] = []
    for job in jobs:
        try:  # a cached module passed the checks when it was made
            checked.append(None if job.source is not None else check_tool_schemas(job.server, job.tool.tool))
        except StubgenError as error:
            checked.append(error)
    store = Cache(folder)
    outcomes: list[_Built | str] = []
    for job, untypable, (source, read) in zip(jobs, checked, _grouped(jobs, checked), strict=True):
        if isinstance(untypable, StubgenError):
            outcomes.append(str(untypable))
            continue
        try:
            typed = typed_or_untyped(job.server, job.tool, source, untypable, read)
        except StubgenError as error:
            outcomes.append(str(error))
            continue
        parts = _dump_parts(tuple(typed.models), typed.imported, typed.spec, contract(job.tool.tool, typed.spec))
        store.put(job.source_key, typed.source)
        store.put(job.spec_key, parts)
        outcomes.append(_Built(typed.source, parts))
    return outcomes


def _grouped(
    jobs: Sequence[_ToolJob], checked: Sequence[str | StubgenError | None]
) -> list[tuple[str | None, ReadModels | None]]:
    """Each job's models module: the cached one, or made with others in one datamodel-code-generator
    call (`model_batches`, with what it defines when that was read there already); None for one to
    make alone (`typed_or_untyped`), as an untypable tool's is."""
    sources: list[tuple[str | None, ReadModels | None]] = [(job.source, None) for job in jobs]
    wanted = [
        index
        for index, (job, untypable) in enumerate(zip(jobs, checked, strict=True))
        if job.source is None and untypable is None and _takes_object(job.tool.tool)
    ]
    made = grouped_sources([ModelJob(jobs[index].tool.tool, jobs[index].tool.stem) for index in wanted])
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
    server: str, tool: ToolPlan, source: str | None, untypable: str | None = None, read: ReadModels | None = None
) -> _Typed:
    """A tool's models module and method spec; a schema the checks found untypable (`untypable`, the
    reason) or that no models can be generated from (or no method typed from) gets the untyped module
    (`untyped_source`), so one such tool never blocks its server. `build_package` turns that into an
    error under `strict`. `read` is what `source` defines and imports, when that is known already."""
    try:
        if untypable is not None:
            raise Untypable(untypable)
        if not _takes_object(tool.tool):
            kind = tool.tool["inputSchema"].get("type", "object")
            raise Untypable(f"/inputSchema/type: arguments are sent as an object, and the schema says {kind!r}")
        if source is None:
            source, read = model_source(server, ModelJob(tool.tool, tool.stem)), None
        models, imported = read if read is not None else read_models(source)
        return _Typed(source, models, imported, tool_spec(tool, tool.named.python, models, untyped_reason(source)))
    except Untypable as error:
        reason = error.message
    except StubgenError as error:  # datamodel-code-generator refused the schema; modelgen's message names the tool
        reason = error.message.removeprefix(f"server {server!r}: tool {tool.tool['name']!r}: ")
    except Exception as error:  # datamodel-code-generator failing on a schema it accepted
        reason = f"datamodel-code-generator failed ({type(error).__name__}: {one_line(str(error))})"
    source = untyped_source(ModelJob(tool.tool, tool.stem), reason)
    models, imported = read_models(source)
    return _Typed(source, models, imported, tool_spec(tool, tool.named.python, models, reason))


def _dump_parts(classes: tuple[str, ...], imported: Mapping[str, str], spec: ToolSpec, contract: str) -> str:
    """What a tool's models module tells the client (its classes, its imports, the method's spec) and
    its contract, for the cache: reading it back skips parsing the module, the slowest step of a
    cached run, and the parent never walks a schema for the contract (the workers made it)."""
    document = {"classes": classes, "imported": imported, "spec": asdict(spec), "contract": contract}
    return json.dumps(document, ensure_ascii=False)


def _load_parts(source: str | None, text: str | None) -> ToolParts:
    assert source is not None and text is not None, "every tool was found in the cache or built"
    document = json.loads(text)
    spec = document["spec"]
    parameters = tuple(Parameter(**parameter) for parameter in spec.pop("parameters"))
    return ToolParts(
        source=source,
        classes=tuple(document["classes"]),
        imported=document["imported"],
        spec=ToolSpec(**spec, parameters=parameters),
        contract=document["contract"],
    )
