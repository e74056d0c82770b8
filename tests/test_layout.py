"""The code's layout holds what docs/development.md promises: each stage's `command.py` is its CLI
alone, so no other stage reaches into it; what two commands share lives in a module of its own
(`generate/pipeline.py`, `generate/hub_build.py`, `options.py`)."""

from __future__ import annotations

import ast
from pathlib import Path

from codegen.schemas import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES
from tests.conftest import REPO

CODEGEN = REPO / "codegen"
STAGES = sorted(path.name for path in CODEGEN.iterdir() if (path / "command.py").is_file())


def _imported_modules(path: Path) -> set[str]:
    """Every absolute module a file imports, at its top or inside a function."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


def _cross_stage_command_imports() -> set[tuple[str, str]]:
    """(importing stage, stage whose `command` module it imports), over every module of `codegen/`."""
    found: set[tuple[str, str]] = set()
    for path in CODEGEN.rglob("*.py"):
        parts = path.relative_to(CODEGEN).parts
        stage = parts[0] if len(parts) > 1 and parts[0] in STAGES else None
        if stage is None:
            continue
        for module in _imported_modules(path):
            for other in STAGES:
                if other != stage and module == f"codegen.{other}.command":
                    found.add((stage, other))
    return found


def test_the_layout_has_the_stages_the_docs_name() -> None:
    assert {"auth", "drift", "generate", "snapshot", "sync", "view", "watch"} <= set(STAGES)


def test_no_stage_imports_another_stages_command_module() -> None:
    found = sorted(_cross_stage_command_imports())
    assert not found, (
        f"{found}: a stage imports another stage's CLI module; move what they share into a module of its own"
    )


SCHEMA_WORDS = frozenset({*SCHEMA_MAPS, *SCHEMA_LISTS, *SCHEMA_VALUES, "$ref"})
"""Keywords whose values hold schemas: a function that recurses and names one walks schemas."""
SCHEMA_NAMES = frozenset(
    {"SCHEMA_MAPS", "SCHEMA_LISTS", "SCHEMA_VALUES", "APPLIED_MAPS", "APPLIED_VALUES", "DEFINITIONS", "applied"}
)
"""schemas.py's sets of those keywords and its step; a module's own alias (`_SCHEMA_MAPS`) counts too."""

READERS = {
    "drift/normalize.py": {
        "run": "expands references with a stack of them and canonicalises bottom-up; schemas.applied is its step",
        "_reference": "the normaliser's reference expansion (with run)",
        "strip_text": "reads the normal form as a validator does, through schemas.applied",
        "_canonicalize": "merges normalised schemas keyword by keyword (allOf), with merge",
        "_flatten_all_of": "merges normalised schemas keyword by keyword (allOf), with merge",
        "_merge_key": "merges normalised schemas keyword by keyword (allOf), with merge",
    },
    "drift/schema.py": {
        "compare": "compares an old and a new schema side by side, each keyword by its rule",
        "_object": "the comparison of properties (with compare)",
        "_items": "the comparison of items (with compare)",
        "_any_of": "the comparison of union branches (with compare)",
    },
    "generate/code_mode.py": {
        "annotation": "reads a schema's meaning into a Python type for the stubs",
        "_base": "the stubs' type of a schema's `type` (with annotation)",
        "_kind": "the stubs' type of one JSON type (with annotation)",
        "_object": "the stubs' TypedDict of an object (with annotation)",
        "_tuple": "the stubs' tuple or list of a tuple's items (with annotation)",
        "_pattern_values": "the stubs' value type of an object's patternProperties (with annotation)",
    },
    "generate/method_specs.py": {"_may_be_null": "decides whether a schema admits null, through its combinators"},
    "generate/plain_models.py": {
        "model": "writes an object schema's class, as datamodel-code-generator would (with annotation)",
        "annotation": "reads a plain schema's meaning into its field's type, or refuses it",
        "item": "the type of an array's items or an open object's values (with annotation)",
        "union": "the type of a union of plain members, or one member beside null (with annotation)",
    },
    "generate/modelgen.py": {
        "_fits": "checks a default against its schema, as a validator would",
        "_object_fits": "checks an object default against its schema (with _fits)",
    },
}
"""Functions outside schemas.py that recurse through schemas by their meaning (a validator, a type, a
comparison), not to visit every subschema; a new walk over every subschema belongs in schemas.py."""


def _recursive_schema_functions(path: Path) -> set[str]:
    """The functions of a module that take part in a cycle of calls within it and name a keyword that
    holds schemas (or the sets and step of them in schemas.py)."""
    functions: dict[str, list[ast.AST]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.setdefault(node.name, []).append(node)
    calls = {
        name: {
            call.func.id if isinstance(call.func, ast.Name) else call.func.attr
            for definition in definitions
            for call in ast.walk(definition)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name | ast.Attribute)
        }
        & functions.keys()
        for name, definitions in functions.items()
    }

    def reaches_itself(name: str) -> bool:
        seen: set[str] = set()
        stack = list(calls[name])
        while stack:
            callee = stack.pop()
            if callee == name:
                return True
            if callee not in seen:
                seen.add(callee)
                stack.extend(calls[callee])
        return False

    def names_schema_keywords(definitions: list[ast.AST]) -> bool:
        return any(
            (isinstance(node, ast.Constant) and node.value in SCHEMA_WORDS)
            or (isinstance(node, ast.Name) and node.id.lstrip("_") in SCHEMA_NAMES)
            or (isinstance(node, ast.Attribute) and node.attr.lstrip("_") in SCHEMA_NAMES)
            for definition in definitions
            for node in ast.walk(definition)
        )

    return {
        name for name, definitions in functions.items() if reaches_itself(name) and names_schema_keywords(definitions)
    }


def test_every_walk_over_every_subschema_is_schemas_walk() -> None:
    """One walker (`codegen/schemas.py`: `walk`, `subschemas`, `rebuilt`, `applied`) knows which
    keywords hold schemas, so a new keyword is added in one place. The shipped runtime
    (`codegen/runtime/`) keeps its own, as it imports nothing of mcp-stubgen; `READERS` are the
    functions that recurse through a schema's meaning instead, each with why."""
    found = {
        str(path.relative_to(CODEGEN)): functions
        for path in sorted(CODEGEN.rglob("*.py"))
        if path.name != "schemas.py" and path.parent.name != "runtime"
        if (functions := _recursive_schema_functions(path))
    }
    assert found == {module: set(functions) for module, functions in READERS.items()}
