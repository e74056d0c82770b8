"""Does a generated client accept exactly what a tool's JSON Schema accepts, and send exactly what it was given?

`python benchmarks/jsts_contract.py SUITE_DIR [--keyword NAME ...] [--show N]`, where SUITE_DIR is the
JSON-Schema-Test-Suite's `tests/draft2020-12` folder (a checkout of json-schema-org/JSON-Schema-Test-Suite).

What it compares against is `jsonschema` (`Draft202012Validator`), which is also the generated
runtime's own fallback (the fast check defers to it whenever it says no): agreement shows that the
fast check and the client's handling of arguments and results add no disagreement of their own,
not that `jsonschema` itself follows the specification everywhere.

Every group of the JSON-Schema-Test-Suite's draft 2020-12 files (`format` left out: it is the
server's to check) becomes tools of generated packages, placed two ways:

- `value`: a tool schema's root is an object, so the group's schema sits under one required
  property, `{"type": "object", "properties": {"value": S}, "required": ["value"]}` (its `$defs`
  hoisted to the root, its other local `$ref`s rewritten to point there); every instance is
  `value=<instance>`.
- `root`: the group's schema is the tool schema itself, its root given `"type": "object"` as tool
  schemas have (a group whose root has another type is left out); every object instance is the
  arguments: declared properties as keyword arguments by their Python names, others through
  `extra`, which a method has wherever its root allows more keys (an instance with undeclared
  keys for a method without `extra` cannot be passed: it counts as refused, and is judged so).

In each placement `in_<n>` takes the schema as its input: each instance is passed to the generated
method against a fake session that records what would be sent. The client agrees when it lets the
call leave exactly when `jsonschema` says the arguments are valid, and the recorded arguments are
byte-identical (`json.dumps`) to what was given (top-level keys in wire-name order, as a client
sends keyword arguments; extras after them as given). `out_<n>` returns the schema: the fake
session replays the arguments as `structuredContent`. The client agrees when it returns a result
exactly when `jsonschema` says it is valid, and the returned model dumps back to the same JSON
value (numbers compared by value, as JSON Schema does: `1` and `1.0` are one number; `true` is not `1`).

Groups with a reference outside their document (a remote `$ref`, the meta-schema) are skipped, as
a generated client never fetches one. What a placement cannot express is counted and printed, not
judged: in `root`, the instances that are not objects and the groups whose root has another type.
The suite is read where it lies; nothing is copied.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import re
import sys
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jsonschema  # noqa: E402
from mcp.types import CallToolResult  # noqa: E402

from codegen.errors import StubgenError  # noqa: E402
from codegen.generate import render_snapshot  # noqa: E402
from codegen.generate.runtime_folder import publish_runtime  # noqa: E402
from codegen.identifiers import CALL_OPTIONS, package_name  # noqa: E402
from codegen.snapshot import Snapshot  # noqa: E402

LEFT_OUT = frozenset({"format"})
"""Keyword files left to the server: `format` is an annotation unless a validator opts in."""

DIRECTIONS = ("input", "output")


def tool_schema(schema: Any) -> dict[str, Any]:
    """The group's schema as the one property of an object, as a tool schema must be.

    Its `$defs` move up to the root, where tool schemas keep them, so `#/$defs/...` references
    mean what they meant; other document-local references are rewritten to point under
    `/properties/value`."""
    wrapper: dict[str, Any] = {"type": "object", "properties": {"value": None}, "required": ["value"]}
    if isinstance(schema, dict) and "$id" not in schema and isinstance(schema.get("$defs"), dict):
        wrapper["$defs"] = {name: _relocate(inner) for name, inner in schema["$defs"].items()}
        schema = {key: value for key, value in schema.items() if key != "$defs"}
    wrapper["properties"]["value"] = _relocate(schema)
    return wrapper


def root_schema(schema: Any) -> dict[str, Any] | None:
    """The group's schema as a tool schema's root, typed `object`; None when its root allows no object."""
    if schema is True:
        return {"type": "object"}
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type", "object")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        return None
    return {**schema, "type": "object"}


PLACEMENTS = {"value": tool_schema, "root": root_schema}


def _relocate(schema: Any) -> Any:
    """The schema with its document-local references (`#...`) pointing where it now sits.

    A schema with its own `$id` is a resource of its own, whose `#...` references are relative to
    it wherever it sits, so it stays as it is."""
    if isinstance(schema, list):
        return [_relocate(item) for item in schema]
    if not isinstance(schema, dict) or "$id" in schema:
        return schema
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("$ref", "$dynamicRef") and isinstance(value, str) and value.startswith("#"):
            moved[key] = _moved_reference(value)
        elif key in ("const", "enum", "default", "examples"):
            moved[key] = value
        else:
            moved[key] = _relocate(value)
    return moved


def _moved_reference(reference: str) -> str:
    fragment = reference[1:]
    if fragment.startswith("/$defs/") or not (fragment == "" or fragment.startswith("/")):
        return reference  # into the hoisted `$defs`, or a plain-name anchor
    return "#/properties/value" + fragment


def refers_outside(schema: Any) -> bool:
    """Whether any reference names a document other than this one (a URI that no `$id` in it has)."""
    ids: set[str] = set()
    references: list[str] = []

    def walk(node: Any, base: str) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, base)
            return
        if not isinstance(node, dict):
            return
        if isinstance(node.get("$id"), str):
            base = urldefrag(urljoin(base, node["$id"])).url
            ids.add(base)
        for key, value in node.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                references.append(urldefrag(urljoin(base, value)).url)
            elif key not in ("const", "enum", "default", "examples"):
                walk(value, base)

    walk(schema, "")
    return any(reference and reference not in ids for reference in references)


@dataclass
class Case:
    keyword: str
    group: int
    description: str
    data: Any
    valid: bool


@dataclass
class Tally:
    total: int = 0
    agree: int = 0
    false_accepts: int = 0
    false_rejects: int = 0
    changed: int = 0
    not_generated: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.total += other.total
        self.agree += other.agree
        self.false_accepts += other.false_accepts
        self.false_rejects += other.false_rejects
        self.changed += other.changed
        self.not_generated += other.not_generated

    @property
    def judged(self) -> int:
        return self.total - self.not_generated


class RecordingSession:
    """Stands in for `mcp.Client`: records the arguments a call would send and replays a result."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.reply: Any = None

    async def call_tool(self, name: str, arguments: Any = None, **_: Any) -> CallToolResult:
        self.sent.append(arguments)
        return CallToolResult(content=[], structured_content=self.reply)


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value, booleans never equal to numbers, objects by keys."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def dumped(value: Any) -> Any:
    """What a caller gets back, as JSON: a model dumped by wire names with only what was set."""
    from mcp.types import CallToolResult
    from pydantic import BaseModel

    raw = getattr(value, "raw", None)  # an untyped tool's ToolResult (the package's own runtime class)
    if isinstance(raw, CallToolResult):  # what it returned is its structuredContent
        return raw.structured_content
    if isinstance(value, BaseModel):
        with warnings.catch_warnings():  # a value the model's types cannot hold comes back as it came, with a warning
            warnings.simplefilter("ignore")
            return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def load_groups(suite: Path, keywords: list[str] | None) -> Iterator[tuple[str, list[tuple[int, Any, list[Any]]], int]]:
    """(keyword, [(group index, schema, tests)], groups skipped for outside references), per file."""
    for path in sorted(suite.glob("*.json")):
        keyword = path.stem
        if keyword in LEFT_OUT or (keywords and keyword not in keywords):
            continue
        groups = []
        skipped = 0
        for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            if refers_outside(group["schema"]):
                skipped += 1
                continue
            groups.append((index, group["schema"], group["tests"]))
        yield keyword, groups, skipped


OUTPUT = "contracts"
"""The output folder under the work folder, imported as a package: its packages share its runtime."""


def generate(work: Path, server: str, tools: list[dict[str, Any]]) -> Any:
    """Generate one package from the tools and import it."""
    snapshot = Snapshot(server=server, protocol_version="2025-06-18", capabilities={"tools": {}}, tools=tuple(tools))
    files = render_snapshot(snapshot)
    folder = work / OUTPUT / package_name(server)
    for relative, content in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    publish_runtime(work / OUTPUT)
    module = importlib.import_module(f"{OUTPUT}.{folder.name}")
    return next(getattr(module, name) for name in module.__all__ if name.endswith("Client"))


def group_tool(direction: str, index: int, schema: dict[str, Any]) -> dict[str, Any]:
    """`in_<n>` takes the schema as input; `out_<n>` takes nothing and returns it."""
    if direction == "input":
        return {"name": f"in_{index}", "inputSchema": schema}
    return {"name": f"out_{index}", "inputSchema": {"type": "object"}, "outputSchema": schema}


def instance_arguments(placement: str, data: Any) -> dict[str, Any] | None:
    """The arguments (or result) an instance stands for in a placement; None when it stands for none."""
    if placement == "value":
        return {"value": data}
    return data if isinstance(data, dict) else None


def as_call(
    client: Any, index: int, schema: dict[str, Any], arguments: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The keyword arguments that send `arguments` through `in_<index>`, and what the wire should
    then carry; None when the method has no way to pass them (an undeclared key and no `extra`).
    Parameter names are the generator's own (`assign_names`), as a caller reads them in the signature."""
    # every method also takes the per-call options last; they are not the tool's arguments
    accepted = set(inspect.signature(getattr(client, f"in_{index}")).parameters) - {CALL_OPTIONS}
    if accepted == {"arguments"}:  # a root union, a map or an untyped tool: one argument, sent whole
        return {"arguments": arguments}, arguments
    package = type(client).__module__.rpartition(".")[0]
    contract = json.loads(importlib.import_module(f"{package}._models.in_{index}")._CONTRACT)
    names: dict[str, str] = contract["parameters"]  # wire name -> Python name, as the generator chose them
    extra_name = next(iter(accepted - set(names.values())), None)
    declared = {name: value for name, value in arguments.items() if name in names}
    extra = {name: value for name, value in arguments.items() if name not in names}
    if extra and extra_name is None:
        return None
    keywords = {names[name]: value for name, value in declared.items()}
    if extra:
        keywords[extra_name] = extra  # type: ignore[index]
    return keywords, {**dict(sorted(declared.items())), **extra}


async def judge(
    client: Any,
    session: RecordingSession,
    index: int,
    case: Case,
    direction: str,
    schema: dict[str, Any],
    arguments: dict[str, Any],
) -> tuple[str, str]:
    """(verdict, detail): verdict is one of agree, false_accepts, false_rejects, changed."""
    session.sent.clear()
    error: Exception | None = None
    if direction == "input":
        call = as_call(client, index, schema, arguments)
        session.reply = None
        wire: dict[str, Any] = {}
        if call is None:  # the signature refuses them: no `extra` where the root is closed
            error = TypeError("the method has no parameter for these arguments")
        else:
            keywords, wire = call
            try:
                await getattr(client, f"in_{index}")(**keywords)
            except Exception as raised:  # any refusal counts as one
                error = raised
        accepted = bool(session.sent)
        changed = accepted and json.dumps(session.sent[0]) != json.dumps(wire)
        detail = f"sent {json.dumps(session.sent[0])[:120]}" if accepted else f"raised {error!r:.160}"
    else:
        session.reply = arguments
        returned: Any = None
        try:
            method = getattr(client, f"out_{index}")
            untyped = "arguments" in inspect.signature(method).parameters  # an untyped tool takes its arguments whole
            returned = dumped(await (method(arguments={}) if untyped else method()))
        except Exception as raised:  # any refusal counts as one
            error = raised
        accepted = error is None
        changed = accepted and not same_json(returned, arguments)
        detail = f"returned {json.dumps(returned, default=repr)[:120]}" if accepted else f"raised {error!r:.160}"
    detail = " ".join(detail.split())
    if accepted and not case.valid:
        return "false_accepts", detail
    if not accepted and case.valid:
        return "false_rejects", detail
    if changed:
        return "changed", detail
    return "agree", detail


async def measure(suite: Path, keywords: list[str] | None, show: int) -> int:
    tallies: dict[tuple[str, str], Tally] = {}
    failed: list[str] = []
    skipped_total = 0
    unjudged = 0
    inexpressible = 0
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        sys.path.insert(0, str(work))
        for keyword, groups, skipped in load_groups(suite, keywords):
            skipped_total += skipped
            for placement, place in PLACEMENTS.items():
                placed = [(index, place(schema), tests) for index, schema, tests in groups]
                left_out = sum(len(tests) for _, schema, tests in placed if schema is None)
                inexpressible += left_out * len(DIRECTIONS)
                placed = [(index, schema, tests) for index, schema, tests in placed if schema is not None]
                for direction in DIRECTIONS:
                    clients = _clients(work, keyword, f"{direction}_{placement}", direction, placed, failed)
                    tally = tallies.setdefault((keyword, f"{direction} ({placement})"), Tally())
                    for index, schema, tests in placed:
                        validator = jsonschema.Draft202012Validator(schema)
                        for test in tests:
                            arguments = instance_arguments(placement, test["data"])
                            if arguments is None:
                                inexpressible += 1
                                continue
                            try:
                                valid = validator.is_valid(arguments)
                            except re.error:  # an ECMA 262 pattern Python cannot compile: no verdict
                                unjudged += 1
                                continue
                            case = Case(keyword, index, test["description"], test["data"], valid)
                            tally.total += 1
                            if index not in clients:
                                tally.not_generated += 1
                                continue
                            client, session = clients[index]
                            verdict, detail = await judge(client, session, index, case, direction, schema, arguments)
                            if verdict == "agree":
                                tally.agree += 1
                                continue
                            setattr(tally, verdict, getattr(tally, verdict) + 1)
                            tally.examples.append(
                                f"{verdict} {direction} ({placement}) {keyword}[{index}] {case.description!r}: "
                                f"{json.dumps(case.data)[:80]} -> {detail}"
                            )
    return report(tallies, failed, skipped_total, unjudged, inexpressible, show)


def _clients(
    work: Path, keyword: str, label: str, direction: str, groups: list[tuple[int, Any, list[Any]]], failed: list[str]
) -> dict[int, tuple[Any, RecordingSession]]:
    """A generated client per group: one package for the file, direction and placement, or one per
    group when that fails (a package fails as a whole when one of its tools does)."""
    server = f"jsts_{keyword}_{label}"
    try:
        client_class = generate(work, server, [group_tool(direction, index, schema) for index, schema, _ in groups])
        return {index: _connected(client_class) for index, _, _ in groups}
    except StubgenError:
        pass
    clients = {}
    for index, schema, _ in groups:
        try:
            client_class = generate(work, f"{server}_{index}", [group_tool(direction, index, schema)])
        except StubgenError as error:
            failed.append(f"{keyword}[{index}] {label}: {error}")
            continue
        clients[index] = _connected(client_class)
    return clients


def _connected(client_class: Any) -> tuple[Any, RecordingSession]:
    session = RecordingSession()
    return client_class(session), session


def report(
    tallies: dict[tuple[str, str], Tally], failed: list[str], skipped: int, unjudged: int, inexpressible: int, show: int
) -> int:
    """One row per keyword and direction that disagrees anywhere, then totals per direction and overall."""
    rows = [("keyword", "direction", "instances", "agree", "false accepts", "false rejects", "changed", "not generated")]  # fmt: skip
    totals: dict[str, Tally] = {}
    examples: list[str] = []
    for (keyword, direction), tally in sorted(tallies.items()):
        totals.setdefault(direction, Tally()).add(tally)
        examples.extend(tally.examples)
        if tally.agree != tally.total:
            rows.append(_row(keyword, direction, tally))
    every = Tally()
    for direction, tally in sorted(totals.items()):
        every.add(tally)
        rows.append(_row("ALL", direction, tally))
    rows.append(_row("ALL", "all", every))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    print(
        f"\nagreement {every.agree / every.judged:.2%} ({every.agree}/{every.judged} instances judged); "
        f"false accepts {every.false_accepts}, false rejects {every.false_rejects}, changed {every.changed}"
    )
    print(f"groups skipped for references outside their document: {skipped}")
    print(f"instances jsonschema cannot judge (a pattern Python's re cannot compile), left out: {unjudged}")
    print(
        f"instances a placement cannot express (in `root`: not an object, or a root of another type), left out: {inexpressible}"
    )
    print(f"tools that failed to generate: {len(failed)} ({every.not_generated} instances not judged)")
    for line in failed[:show]:
        print(f"  {line[:300]}")
    for line in examples[:show]:
        print(f"  {line}")
    return 0


def _row(keyword: str, direction: str, tally: Tally) -> tuple[str, ...]:
    agreement = f"{tally.agree / tally.judged:.1%}" if tally.judged else "-"
    return (
        keyword,
        direction,
        str(tally.total),
        agreement,
        str(tally.false_accepts),
        str(tally.false_rejects),
        str(tally.changed),
        str(tally.not_generated),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, help="the JSON-Schema-Test-Suite's tests/draft2020-12 folder")
    parser.add_argument("--keyword", action="append", help="only this keyword file (repeatable)")
    parser.add_argument("--show", type=int, default=0, help="print this many disagreements")
    arguments = parser.parse_args()
    return asyncio.run(measure(arguments.suite, arguments.keyword, arguments.show))


if __name__ == "__main__":
    sys.exit(main())
