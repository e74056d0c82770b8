"""Drift's severities against code that calls the package: `python benchmarks/drift_callers.py OLD NEW ...`.

For each pair of snapshots (OLD.json NEW.json, or `--pairs FILE` with one pair a line), the package is
generated from OLD, and a caller script is written from it mechanically: every method of the client
(tools, resources, templates, prompts, task starters) called with every keyword, each a value of its
annotated type (input models built field by field), its result assigned to a variable of its
annotated type and every field of a typed result read into one of the field's type. The script must
pass `mypy --strict` against OLD's package. The package is then regenerated in place from NEW
carrying OLD's names (`keep_names`, as `sync` writes the snapshot that replaces a committed one), and
the same script is type-checked again and its calls sent through the new client's pre-call checks
(the models' pydantic validation and the input schema; nothing is sent). Each method the new package
breaks, by mypy or at run time where the old one took the call, is matched with drift's findings on
its tool, resource, template or prompt: a break with no breaking or dangerous finding there is a
miss; a breaking finding on an entity whose calls still work is listed for review (a break code can
rely on that types do not show: a bound, a MIME type, a server that checks formats).
"""

from __future__ import annotations

import argparse
import asyncio
import enum
import importlib
import inspect
import json
import keyword
import os
import re
import subprocess
import sys
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from codegen.drift import apply_severities, compare_snapshots  # noqa: E402
from codegen.drift.findings import Finding, Severity  # noqa: E402
from codegen.identifiers import keep_names, plan_names  # noqa: E402
from codegen.snapshot.format import Snapshot, load_snapshot, write_snapshot  # noqa: E402

FOLDER = "clients"
"""The output folder's name, and so the import path's first part: `clients.<package>`."""

INPUT_RULES = ("in-", "argument-", "prompt-arg-", "template-variables")
OUTPUT_RULES = ("out-",)
"""Findings that judge only what a call sends, or only what it reads back; every other rule on an
entity (removed, renamed, retargeted, a model's class names) covers both."""

UNRELATED_RULES = (
    "annotation-",
    "text-",
    "ui-",
    "description-changed",
    "schema-text-changed",
    "title-changed",
    "instructions-changed",
    "prompt-description-changed",
    "protocol-version-changed",
    "server-info-changed",
    "capability-listchanged-removed",
    "capability-extension-",
    "client-capabilities-changed",
    "ignore-unused",
)
"""Findings about what a model or a host reads (text, hints, apps), not about the shape of a call:
none of them explains a break."""

FINDING_KINDS = {
    "tools": "tool",
    "resources": "resource",
    "resourceTemplates": "template",
    "prompts": "prompt",
    "taskStarters": "tool",
}
"""A name plan's kinds as drift's findings name them."""

MAX_DEPTH = 4
"""How deep the script builds nested input models and reads nested result fields."""


class _Script:
    """The caller script under construction: its imports, and each method's function."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.imports: set[str] = {"from typing import Any, Literal"}
        self.counter = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def name_of(self, cls: type) -> str:
        """How the script names a class: by the package's `models` module when it lists the class (where a
        user imports it), else by the package itself, else by its module."""
        root = f"{FOLDER}.{self.package}"
        models = importlib.import_module(f"{root}.models")
        if cls.__name__ in getattr(models, "__all__", ()):
            self.imports.add(f"from {root} import models")
            return f"models.{cls.__name__}"
        package = importlib.import_module(root)
        if getattr(package, cls.__name__, None) is cls:
            self.imports.add(f"import {root}")
            return f"{root}.{cls.__name__}"
        self.imports.add(f"import {cls.__module__}")
        return f"{cls.__module__}.{cls.__qualname__}"

    def annotation(self, hint: Any) -> str:
        """`hint` as source text."""
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint is type(None) or hint is None:
            return "None"
        if hint is Any:
            return "Any"
        if origin is typing.Annotated:
            return self.annotation(args[0])
        if origin is typing.Literal:
            return "Literal[" + ", ".join(repr(arg) for arg in args) + "]"
        if origin in (typing.Union, types.UnionType):
            return " | ".join(self.annotation(arg) for arg in args)
        if origin is not None:
            base = {list: "list", dict: "dict", set: "set", tuple: "tuple", frozenset: "frozenset"}.get(origin)
            if base is None:
                self.imports.add(f"import {origin.__module__}")
                base = f"{origin.__module__}.{origin.__qualname__}"
            inner = ", ".join("..." if arg is Ellipsis else self.annotation(arg) for arg in args)
            return f"{base}[{inner}]" if args else base
        if isinstance(hint, type):
            if hint.__module__ == "builtins":
                return hint.__name__
            return self.name_of(hint)
        raise TypeError(f"no source for the annotation {hint!r}")

    def value(self, hint: Any, depth: int = 0) -> str:
        """Source of a value of type `hint`."""
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint is type(None) or hint is None:
            return "None"
        if hint is Any or hint is object:
            return '"x"'
        if origin is typing.Annotated:
            return self.value(args[0], depth)
        if origin is typing.Literal:
            return repr(args[0])
        if origin in (typing.Union, types.UnionType):
            members = [arg for arg in args if arg is not type(None) and getattr(arg, "__name__", "") != "NotGiven"]
            return self.value(members[0] if members else type(None), depth)
        if origin in (list, set, frozenset) or (origin is not None and origin.__name__ in ("Sequence", "Iterable")):
            item = self.value(args[0], depth + 1) if args else '"x"'
            return {set: f"{{{item}}}", frozenset: f"frozenset({{{item}}})"}.get(origin, f"[{item}]")
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return f"({self.value(args[0], depth + 1)},)"
            return "(" + "".join(self.value(arg, depth + 1) + ", " for arg in args) + ")"
        if origin is dict or (origin is not None and origin.__name__ == "Mapping"):
            if not args or depth >= MAX_DEPTH:
                return "{}"
            return f"{{{self.value(args[0], depth + 1)}: {self.value(args[1], depth + 1)}}}"
        if hint is str:
            return '"x"'
        if hint is bool:
            return "True"
        if hint is int:
            return "1"
        if hint is float:
            return "1.0"
        if hint is bytes:
            return 'b"x"'
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return f"{self.name_of(hint)}.{next(iter(hint)).name}"
        if isinstance(hint, type) and hasattr(hint, "model_fields"):
            return self.model(hint, depth)
        raise TypeError(f"no value for the annotation {hint!r}")

    def model(self, cls: Any, depth: int) -> str:
        """A model built with every field that can be given by keyword (required ones always)."""
        name = self.name_of(cls)
        fields = cls.model_fields
        if getattr(cls, "__pydantic_root_model__", False):
            return f"{name}({self.value(fields['root'].annotation, depth + 1)})"
        given = []
        for attribute, info in fields.items():
            keyword_name = info.alias if info.alias and "alias" in info._attributes_set else attribute
            if not keyword_name.isidentifier() or keyword.iskeyword(keyword_name):
                continue
            if depth >= MAX_DEPTH and not info.is_required():
                continue
            given.append(f"{keyword_name}={self.value(info.annotation, depth + 1)}")
        return f"{name}({', '.join(given)})"

    def reads(self, expression: str, hint: Any, depth: int, indent: str) -> Iterator[str]:
        """Lines that read `expression` (of type `hint`) into a variable of that type, and its fields."""
        variable = self.fresh()
        yield f"{indent}{variable}: {self.annotation(hint)} = {expression}"
        yield from self.inside(variable, hint, depth, indent)

    def inside(self, variable: str, hint: Any, depth: int, indent: str) -> Iterator[str]:
        if depth >= MAX_DEPTH:
            return
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Annotated:
            yield from self.inside(variable, args[0], depth, indent)
        elif origin in (typing.Union, types.UnionType):
            members = [arg for arg in args if arg is not type(None)]
            if len(members) == 1 and len(args) == 2:
                body = list(self.inside(variable, members[0], depth, indent + "    "))
                if body:
                    yield f"{indent}if {variable} is not None:"
                    yield from body
        elif origin is list and args:
            item = self.fresh()
            body = list(self.reads(item, args[0], depth + 1, indent + "    "))
            yield f"{indent}for {item} in {variable}:"
            yield from body
        elif isinstance(hint, type) and hasattr(hint, "model_fields"):
            for attribute, info in hint.model_fields.items():
                yield from self.reads(f"{variable}.{attribute}", info.annotation, depth + 1, indent)
        elif isinstance(hint, type) and hint.__name__ == "ToolResult":
            yield from self.reads(f"{variable}.text", str, depth + 1, indent)


def _hints(method: Any, namespace: dict[str, Any]) -> dict[str, Any]:
    return typing.get_type_hints(method, globalns=namespace)


def write_caller(work: Path, package: str, snapshot: Path) -> None:
    """Write `work/caller.py` and `work/caller.json` (each function's line span and entity) from the
    package generated in `work/clients/<package>`."""
    sys.path.insert(0, str(work))
    client_module = importlib.import_module(f"{FOLDER}.{package}.client")
    models = importlib.import_module(f"{FOLDER}.{package}.models")
    client_class = next(
        value
        for name, value in vars(client_module).items()
        if isinstance(value, type)
        and name.endswith("Client")
        and not name.endswith("SyncClient")
        and value.__module__ == client_module.__name__
    )
    namespace = dict(vars(client_module))
    namespace.update({name: getattr(models, name) for name in getattr(models, "__all__", ())})
    runtime = importlib.import_module(f"{FOLDER}._mcp_runtime._runtime")
    namespace.update(vars(runtime))
    import collections.abc
    from contextlib import AbstractAsyncContextManager, AbstractContextManager

    import mcp.types

    namespace.update(vars(mcp.types))
    namespace.update(Mapping=collections.abc.Mapping, Sequence=collections.abc.Sequence)
    namespace.update(
        AbstractContextManager=AbstractContextManager, AbstractAsyncContextManager=AbstractAsyncContextManager
    )
    script = _Script(package)
    client_name = script.name_of(client_class)
    targets = plan_names(load_snapshot(snapshot)).targets()
    functions: list[tuple[str, str, str, list[str]]] = []
    problems: dict[str, str] = {}
    for python, (kind, wire) in sorted(targets.items()):
        method = getattr(client_class, python, None)
        if method is None:
            problems[python] = "the client has no such method"
            continue
        try:
            hints = _hints(method, namespace)
            signature = inspect.signature(method)
            arguments, required = [], []
            for parameter in signature.parameters.values():
                if parameter.name in ("self", "call_options", "extra"):
                    continue
                given = script.value(hints[parameter.name])
                if parameter.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
                    given = f"{parameter.name}={given}"
                arguments.append(given)
                if parameter.default is inspect.Parameter.empty:
                    required.append(given)
            call = f"await client.{python}({', '.join(arguments)})"
            body = list(script.reads(call, hints["return"], 0, "    "))
            if "extra" in signature.parameters:  # a call of its own: a keyword mypy refuses hides the others' types
                body.append(f"    await client.{python}({', '.join([*required, 'extra={}'])})")
        except (TypeError, KeyError, NameError) as error:
            problems[python] = f"{type(error).__name__}: {error}"
            continue
        functions.append((python, FINDING_KINDS[kind], wire, body))
    lines = [
        f'"""Calls every method of the `{package}` package as its types say (written by benchmarks/drift_callers.py)."""',
        "",
        "from __future__ import annotations",
        "",
        *sorted(script.imports),
        "",
    ]
    spans: dict[str, dict[str, Any]] = {}
    for python, kind, wire, body in functions:
        lines += ["", f"async def call_{python}(client: {client_name}) -> None:"]
        start = len(lines) + 1
        lines += body
        spans[f"call_{python}"] = {"kind": kind, "name": wire, "method": python, "lines": [start, len(lines)]}
    (work / "caller.py").write_text("\n".join(lines) + "\n")
    (work / "caller.json").write_text(json.dumps({"spans": spans, "problems": problems}, indent=1))


class _Sent(Exception):
    """The call passed every check the client makes before sending."""


def run_calls(work: Path, package: str) -> None:
    """Print, as JSON, each caller function's outcome against the package now in `work/clients`:
    `null` when the client would send the call, else the error its pre-call checks raised."""
    sys.path.insert(0, str(work))
    runtime = importlib.import_module(f"{FOLDER}._mcp_runtime._runtime")

    async def send(
        self: Any, tool: str, terms: Any, arguments: Any, extra: Any = runtime.NOT_GIVEN, call_options: Any = None
    ) -> Any:
        self._payload(tool, terms, arguments, extra)
        raise _Sent

    async def refuse(*_: Any, **__: Any) -> Any:
        raise _Sent

    runtime.GeneratedClient._send = send
    for name in ("_read", "_read_template", "_get_prompt", "_start_task"):
        if hasattr(runtime.GeneratedClient, name):
            setattr(runtime.GeneratedClient, name, refuse)
    caller = importlib.import_module("caller")
    client_module = importlib.import_module(f"{FOLDER}.{package}.client")
    spans = json.loads((work / "caller.json").read_text())["spans"]
    outcomes: dict[str, str | None] = {}
    for function in spans:
        annotation = inspect.signature(getattr(caller, function)).parameters["client"].annotation
        client_class = getattr(client_module, annotation.rsplit(".", 1)[-1])
        client = object.__new__(client_class)
        try:
            asyncio.run(getattr(caller, function)(client))
            outcomes[function] = "returned without calling"
        except _Sent:
            outcomes[function] = None
        except Exception as error:
            outcomes[function] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    print(json.dumps(outcomes))


@dataclass
class PairResult:
    label: str
    methods: int = 0
    mypy_old: list[str] = field(default_factory=list)
    breaks: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Entity (`kind name`) -> what broke its calls: (side, the mypy error or run-time refusal), the side
    `input` for what the call sends, `output` for what it reads back."""
    old_refused: int = 0
    """Calls the old package's own checks refused (a value of the annotated type the schema refuses:
    a pattern, a bound), which say nothing at run time."""
    findings: list[Finding] = field(default_factory=list)
    misses: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    safe_only: dict[str, list[str]] = field(default_factory=dict)
    unseen_breaking: list[Finding] = field(default_factory=list)
    """Breaking findings no break of the caller speaks of (same entity, side and property, or the
    whole call broken)."""
    unwritten: dict[str, str] = field(default_factory=dict)
    compared: list[Finding] = field(default_factory=list)
    """Drift's findings as the rules rate them, before a project's severities."""
    located: dict[str, list[tuple[str, str, str | None]]] = field(default_factory=dict)
    """Entity -> each break's side, error and property."""

    def counts(self) -> dict[str, int]:
        return {severity.value: sum(finding.severity is severity for finding in self.findings) for severity in Severity}


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def _generate(python: str, work: Path, snapshot: Path) -> None:
    done = _run([python, "-m", "codegen.cli", "generate", "-q", "--no-cache", "--out", FOLDER, str(snapshot)], work)
    if done.returncode != 0:
        raise RuntimeError(f"generate {snapshot.name} failed: {done.stderr.strip()}")


def _mypy(work: Path) -> list[tuple[int, str]]:
    """mypy's errors in the caller; the cache is `MYPY_CACHE_DIR` (the tests' shared one), else one
    beside the pairs' folders."""
    cache = os.environ.get("MYPY_CACHE_DIR") or str(work.parent / "mypy-cache")
    done = _run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", os.devnull, "--cache-dir", cache, "caller.py"], work
    )
    errors = []
    for line in done.stdout.splitlines():
        matched = re.match(r"caller\.py:(\d+): error: (.*)", line)
        if matched:
            errors.append((int(matched.group(1)), matched.group(2)))
    return errors


def _script_step(python: str, step: str, work: Path, package: str, *more: str) -> str:
    done = _run([python, __file__, f"--{step}", str(work), package, *more], REPO)
    if done.returncode != 0:
        raise RuntimeError(f"{step} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout


def observe_pair(
    old_path: Path, new_path: Path, work: Path, label: str | None = None, python: str = sys.executable
) -> PairResult:
    """Generate, write the caller, regenerate, type-check and run, for one pair: what broke, and drift's
    findings, not yet matched (`rated`). `python` runs the generate and the caller's steps (the
    tests pass their server of forks)."""
    result = PairResult(label or f"{old_path.stem} -> {new_path.stem}")
    work.mkdir(parents=True, exist_ok=True)
    old = load_snapshot(old_path)
    new: Snapshot = keep_names(old, replace(load_snapshot(new_path), server=old.server), None)
    write_snapshot(work / "old.json", old)
    write_snapshot(work / "new.json", new)
    _generate(python, work, work / "old.json")
    package = next(path.name for path in (work / FOLDER).iterdir() if path.name != "_mcp_runtime")
    _script_step(python, "write-caller", work, package, str(work / "old.json"))
    caller = json.loads((work / "caller.json").read_text())
    spans, result.unwritten = caller["spans"], caller["problems"]
    result.methods = len(spans)
    result.mypy_old = [f"{line}: {text}" for line, text in _mypy(work)]
    before = json.loads(_script_step(python, "run-calls", work, package))
    _generate(python, work, work / "new.json")
    after = json.loads(_script_step(python, "run-calls", work, package))
    errors = _mypy(work)
    old_lines = {int(entry.split(":")[0]) for entry in result.mypy_old}
    source = (work / "caller.py").read_text().splitlines()
    for function, span in spans.items():
        entity = f"{span['kind']} {span['name']}"
        first, last = span["lines"]
        broken = []
        for line, text in errors:
            if first <= line <= last and line not in old_lines:
                side = _side(source[line - 1], text)
                broken.append((side, text, _property(source[line - 1], side, text)))
        if before.get(function) is None and after.get(function) is not None:
            refusal = f"at run time: {after[function]}"
            broken.append(("input", refusal, _property(source[first - 1], "input", refusal)))
        result.old_refused += before.get(function) is not None
        if broken:
            result.located[entity] = broken
            result.breaks[entity] = [(side, text) for side, text, _ in broken]
    (work / "outcomes.json").write_text(json.dumps({"before": before, "after": after, "mypy": errors}, indent=1))
    result.compared = compare_snapshots(old, new)
    return result


def rated(observed: PairResult, severities: Mapping[str, Severity] | None = None) -> PairResult:
    """The observed pair's breaks matched with its findings, each rated as a project's
    `[tool.mcp-stubgen.drift.severity]` (`severities`) rates it: one observation serves every rating."""
    result = replace(observed, misses={}, safe_only={})
    result.findings = apply_severities(result.compared, severities or {})
    by_entity: dict[str, list[Finding]] = {}
    for finding in result.findings:
        for name in {finding.name, finding.old_name} - {None}:
            by_entity.setdefault(f"{finding.kind} {name}", []).append(finding)
    for entity, broken in result.located.items():
        found = by_entity.get(entity, [])
        missed = [
            (side, text) for side, text, name in broken if not any(_covers(finding, side, name) for finding in found)
        ]
        if missed:
            result.misses[entity] = missed
            result.safe_only[entity] = [f"{finding.rule} ({finding.severity})" for finding in found]
    result.unseen_breaking = [
        finding
        for finding in result.findings
        if finding.severity is Severity.BREAKING
        and finding.kind != "server"
        and not any(
            _covers(finding, side, name)
            for entity in {f"{finding.kind} {finding.name}", f"{finding.kind} {finding.old_name}"}
            for side, _, name in result.located.get(entity, [])
        )
    ]
    return result


def _side(line: str, error: str) -> str:
    """`input` for an error in what a call sends (its keywords, the models built for them), `output`
    for one in what it reads back (the result's type, its fields)."""
    if "await client." in line and not error.startswith("Incompatible types in assignment"):
        return "input"
    return "output"


def _property(line: str, side: str, error: str) -> str | None:
    """The argument or result field a break is about, where mypy's message (an argument) or the
    caller's line (a field read, `v3: int = v2.count`) names one; None for the whole call."""
    if side == "input":
        named = re.match(
            r'(?:at run time: .*?argument |(?:Unexpected keyword argument|Missing named argument|Argument) ")(\w+)',
            error,
        )
        return named.group(1) if named else None
    read = re.fullmatch(r"\s*v\d+: .* = v\d+\.(\w+)", line)
    return read.group(1) if read else None


def _folded(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _covers(finding: Finding, side: str, name: str | None) -> bool:
    """Whether a breaking or dangerous `finding` speaks of the `side` of a call that broke and of the
    property `name` it broke at: a finding on a whole schema or entity speaks of every property (and is
    the only one that speaks of `extra=`), and a whole call broken (`name` None: the method or a model
    class gone) of every finding on its side."""
    if finding.severity is Severity.SAFE or finding.rule.startswith(UNRELATED_RULES):
        return False
    if finding.rule.startswith(OUTPUT_RULES if side == "input" else INPUT_RULES):
        return False
    segments = finding.path.split("/")
    if "properties" not in segments or name is None:
        return True
    return name != "extra" and _folded(name) in {_folded(part) for part in segments}


def _report(results: list[PairResult]) -> None:
    print("| pair | methods | broken entities | findings b/d/s | misses | breaking, calls still work | old refused |")
    print("|---|---|---|---|---|---|---|")
    for result in results:
        counts = result.counts()
        rules: dict[str, int] = {}
        for finding in result.unseen_breaking:
            rules[finding.rule] = rules.get(finding.rule, 0) + 1
        unseen = ", ".join(f"{rule} {count}" for rule, count in sorted(rules.items())) or "none"
        print(
            f"| {result.label} | {result.methods} | {len(result.breaks)} | "
            f"{counts['breaking']}/{counts['dangerous']}/{counts['safe']} | {len(result.misses)} | {unseen} | {result.old_refused} |"
        )
    for result in results:
        for line in result.mypy_old:
            print(f"{result.label}: the caller fails mypy against the OLD package: {line}", file=sys.stderr)
        for method, problem in result.unwritten.items():
            print(f"{result.label}: no call written for {method}: {problem}", file=sys.stderr)
        for entity, broken in result.misses.items():
            print(
                f"{result.label}: MISS {entity}: {broken} (findings: {result.safe_only.get(entity, [])})",
                file=sys.stderr,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshots", nargs="*", type=Path, help="OLD NEW [OLD NEW ...]")
    parser.add_argument("--pairs", type=Path, help="a file of `OLD.json NEW.json` lines")
    parser.add_argument("--work", type=Path, default=Path("/tmp/drift_callers"), help="scratch folder")
    parser.add_argument("--write-caller", nargs=3, metavar=("WORK", "PACKAGE", "SNAPSHOT"), help=argparse.SUPPRESS)
    parser.add_argument("--run-calls", nargs=2, metavar=("WORK", "PACKAGE"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.write_caller:
        work, package, snapshot = options.write_caller
        write_caller(Path(work).resolve(), package, Path(snapshot))
        return
    if options.run_calls:
        work, package = options.run_calls
        run_calls(Path(work).resolve(), package)
        return
    paths = list(options.snapshots)
    if options.pairs:
        for line in options.pairs.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                paths += [options.pairs.parent / part for part in line.split()]
    if len(paths) % 2:
        parser.error("snapshots come in pairs: OLD NEW")
    results = []
    for index in range(0, len(paths), 2):
        old_path, new_path = paths[index], paths[index + 1]
        label = f"{old_path.stem} -> {new_path.stem}"
        results.append(rated(observe_pair(old_path, new_path, options.work.resolve() / f"{index // 2:03d}", label)))
    _report(results)


if __name__ == "__main__":
    main()
