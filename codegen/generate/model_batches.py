"""Many tools' models from one datamodel-code-generator call, split back into one module per tool.

A tool whose schemas are plain gets its module from `plain_models` first, byte for byte the same
and without datamodel-code-generator; the others are made here.

datamodel-code-generator costs about a third of a tool's models in fixed cost per call, so tools are
generated in groups and the group's module is cut into the modules each tool would get alone
(`modelgen.model_source`), byte for byte: a tool's module never depends on which tools shared its
call, a cached module is exactly what a cold run writes, and one changed tool is generated alone.

A group's module can be cut only where nothing in it mixes tools, which is checked, not assumed:

- Every class (and alias, and `model_rebuild()` call) a tool gets is named after its model stem
  (`<stem>Input`, `<stem>InputAddress`, ...), and no stem in a group starts another (`Get` beside
  `GetUser` could both want `GetUserInput`), so each name has exactly one owner and no two tools
  can want one name. A name that starts with no stem (an inline `allOf` model is named after its
  property), an import under an alias (a field that shadows an import renames that import for the
  whole module), or anything else between the classes makes the group fall back to one call per
  tool; so does an error, which the call per tool then reports for the tool that has it.
- Each tool's module takes the group's header, its statements in the group's order with the blank
  lines the group has before each, and the group's imports of the names those statements use.

The group's module is parsed once. When `modelgen`'s passes change nothing in it, they change nothing
in any tool's module (`modelgen.rewritten_source`), whose classes all start with its stem already
(`modelgen.finished_source` renames no other, but for a union's members by naming rules 4 and 5,
`member_names`), so each
module black has nothing to do for
(`modelgen.needs_black`) is final as cut and is read off the group's syntax tree
(`model_reader.read_statements`) rather than parsed again, once to be finished and once to be read.
"""

from __future__ import annotations

import ast
import contextlib
import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from codegen.generate.cache import compact_json
from codegen.generate.member_names import member_renames
from codegen.generate.model_reader import ReadModels, read_statements
from codegen.generate.modelgen import (
    ModelJob,
    datamodel_entry,
    finished_source,
    may_inline_roots,
    needs_black,
    parsed,
    rewritten_source,
    run_datamodel,
)
from codegen.generate.plain_models import plain_source
from codegen.snapshot import JSON

GROUP_SIZE = 16
"""Tools per datamodel-code-generator call at most: past a few dozen, its cost per tool grows again."""

_ALWAYS_IMPORTED = frozenset({"to_camel"})
"""Imported into every module, used or not: the alias generator `modelgen.datamodel_options` sets."""

_MIXING = ('"allOf"',)
"""Schema text that makes a class named after something other than the tool, kept out of groups."""


class Made(NamedTuple):
    """One tool's models module made in a group, and what it defines and imports when that was read
    off the group's syntax tree (None: read the module)."""

    source: str
    read: ReadModels | None


def grouped_sources(jobs: Sequence[ModelJob]) -> list[Made | None]:
    """Each tool's models module, as `modelgen.model_source` would write it, made in groups; None for a
    tool no group could make (it is then made alone, where an error names it)."""
    entries = [datamodel_entry(job) for job in jobs]
    made: list[Made | None] = [None] * len(jobs)
    for index, (job, entry) in enumerate(zip(jobs, entries, strict=True)):
        source = plain_source(job, entry)
        if source is not None:
            made[index] = Made(source, None)
    for group in _groups(jobs, entries, [index for index, done in enumerate(made) if done is None]):
        if len(group) < 2:
            continue
        try:
            module = run_datamodel([entries[index] for index in group])
        except Exception:  # one call per tool says which tool, and how
            continue
        if not isinstance(module, str):
            continue
        module = module.rstrip("\n") + "\n"
        parts = split_module(module, [jobs[index].stem for index in group])
        if parts is None:
            continue
        try:
            clean = rewritten_source(module, jobs[group[0]].naming_rules) == module  # any rules: renames or none
        except Exception:
            clean = False
        tree = parsed(module) if clean else None
        renames = {
            rules: tree is not None and bool(member_renames(tree, rules))
            for rules in {jobs[index].naming_rules for index in group}
        }
        for index, (source, body) in zip(group, parts, strict=True):
            rules = jobs[index].naming_rules
            if clean and not needs_black(source) and not renames[rules] and not may_inline_roots(source, rules):
                made[index] = Made(source, read_statements(body))
                continue
            with contextlib.suppress(Exception):  # made alone, the same failure is reported for its tool
                made[index] = Made(finished_source(source, jobs[index].stem, jobs[index].naming_rules), None)
    return made


def _groups(jobs: Sequence[ModelJob], entries: Sequence[JSON], wanted: Sequence[int]) -> list[list[int]]:
    """The `wanted` tools in groups of at most `GROUP_SIZE`, in catalog order, no stem in a group the
    start of another's; a tool whose schemas name a class after something else than the tool, or whose
    stem datamodel-code-generator is given a stand-in for (`ascii_stand_in`), is left alone."""
    groups: list[list[int]] = []
    for index in wanted:
        job, entry = jobs[index], entries[index]
        if not job.stem.isascii() or any(marker in compact_json(entry) for marker in _MIXING):
            continue
        for group in groups:
            if len(group) < GROUP_SIZE and not any(
                jobs[other].stem.startswith(job.stem) or job.stem.startswith(jobs[other].stem) for other in group
            ):
                group.append(index)
                break
        else:
            groups.append([index])
    return groups


class Part(NamedTuple):
    """One tool's module cut from a group's, and its top-level statements as `read_statements` reads
    them: its imports (made for it) and its own statements (the group's nodes)."""

    source: str
    body: list[ast.stmt]


def split_module(module: str, stems: Sequence[str]) -> list[Part] | None:
    """The group's module cut into one module per stem, or None where it cannot be cut safely."""
    try:
        tree = parsed(module)
    except SyntaxError:
        return None
    lines = module.rstrip("\n").split("\n")
    imports: list[ast.Import | ast.ImportFrom] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            break
        imports.append(statement)
    statements = tree.body[len(imports) :]
    if not imports or not statements:
        return None
    if any(alias.asname is not None for statement in imports for alias in statement.names):
        return None  # a field shadowing an import renamed it for every tool of the group
    if any(statement.end_lineno != statement.lineno for statement in imports):
        return None  # a wrapped import might fit on one line with fewer names
    bound = {alias.name.split(".")[0] for statement in imports for alias in statement.names}
    mentions = re.compile(rf"\b(?:{'|'.join(map(re.escape, sorted(bound)))})\b")

    parts: list[list[str]] = [[] for _ in stems]
    owned: list[list[ast.stmt]] = [[] for _ in stems]
    used: list[set[str]] = [set(_ALWAYS_IMPORTED) for _ in stems]
    last: dict[int, ast.stmt] = {}
    """Each tool's latest statement so far."""
    previous: ast.stmt | None = None
    end = imports[-1].lineno
    first_gap = lines[end : statements[0].lineno - 1]
    for statement in statements:
        gap = lines[end : statement.lineno - 1]
        name = _defined_name(statement)
        matches = [number for number, stem in enumerate(stems) if name is not None and name.startswith(stem)]
        if len(matches) != 1 or any(line.strip() for line in gap):
            return None  # a name no tool owns, or a comment between statements
        owner = matches[0]
        if (
            previous is not None
            and last.get(owner) is not previous
            and not _spaced_alike(statement, gap, last.get(owner) or statements[0], first_gap, previous)
        ):
            return None
        previous = last[owner] = statement
        end = statement.end_lineno or statement.lineno
        text = "\n".join(lines[statement.lineno - 1 : end])
        parts[owner].append("\n".join([*gap, text]))
        owned[owner].append(statement)
        named = _mentioned(mentions, text)
        if not named <= used[owner]:  # a statement that names only imports its tool uses already: no walk
            used[owner].update(
                node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and node.id in named
            )
    if any(not part for part in parts):
        return None
    head = lines[: imports[0].lineno - 1]
    return [
        Part(
            "\n".join([*head, *_imports(lines, imports, names), *part]) + "\n", [*_import_nodes(imports, names), *mine]
        )
        for part, mine, names in zip(parts, owned, used, strict=True)
    ]


def _mentioned(mentions: re.Pattern[str], text: str) -> set[str]:
    """The imported names a statement's text mentions as words: every name it uses, and maybe more
    (in its strings). Python reads a name in its NFKC form, so other text is read in that form too."""
    return set(mentions.findall(text if text.isascii() else unicodedata.normalize("NFKC", text)))


def _spaced_alike(
    statement: ast.stmt, gap: list[str], before: ast.stmt, first_gap: list[str], previous: ast.stmt
) -> bool:
    """Whether a statement that follows another tool's has the blank lines before it that it has in
    its own tool's module, where `before` precedes it (its tool's last statement, or for its tool's
    first the imports, which the group's first statement follows with `first_gap`): between two
    classes, and after the imports before a class, the formatter always leaves the same."""
    classes = (statement, before, previous)
    return gap == first_gap and all(isinstance(node, ast.ClassDef) for node in classes)


def _imports(lines: list[str], imports: Sequence[ast.Import | ast.ImportFrom], used: set[str]) -> list[str]:
    """The group's import lines holding only the names `used`, in the group's order and sections (a
    blank line between sections; a section left empty goes, with its blank line)."""
    sections: list[list[str]] = [[]]
    previous = imports[0].lineno
    for statement in imports:
        if any(not line.strip() for line in lines[previous : statement.lineno - 1]):
            sections.append([])
        previous = statement.lineno
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            sections[-1].append(lines[statement.lineno - 1])
            continue
        kept = [alias.name for alias in statement.names if alias.name.split(".")[0] in used]
        if not kept:
            continue
        if isinstance(statement, ast.ImportFrom):
            sections[-1].append(f"from {'.' * statement.level}{statement.module or ''} import {', '.join(kept)}")
        else:
            sections[-1].extend(f"import {name}" for name in kept)
    return "\n\n".join("\n".join(section) for section in sections if section).split("\n")


def _import_nodes(imports: Sequence[ast.Import | ast.ImportFrom], used: set[str]) -> list[ast.stmt]:
    """The `from` imports `_imports` writes for a tool, as the syntax tree its lines parse to (plain
    imports and `__future__` are not read, `read_statements` skips them)."""
    nodes: list[ast.stmt] = []
    for statement in imports:
        if not isinstance(statement, ast.ImportFrom) or statement.module == "__future__":
            continue
        kept = [alias for alias in statement.names if alias.name.split(".")[0] in used]
        if kept:
            nodes.append(ast.ImportFrom(module=statement.module, names=kept, level=statement.level))
    return nodes


def _defined_name(statement: ast.stmt) -> str | None:
    """The name a top-level statement of a models module is about: a class, an alias assigned, or the
    model a `X.model_rebuild()` call rebuilds."""
    if isinstance(statement, ast.ClassDef):
        return statement.name
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id
    if (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Attribute)
        and isinstance(statement.value.func.value, ast.Name)
    ):
        return statement.value.func.value.id
    return None
