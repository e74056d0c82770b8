"""Type-check saved code-mode scripts against code-mode stubs, with the checker at hand.

pydantic-monty's checker (ty, inside its sandbox) is the one `run_code` applies before a script
runs, so it is preferred; mypy is the fallback (`--check-untyped-defs`, top-level `await` allowed,
as a sandboxed script awaits at its top level). Neither is a dependency of mcp-stubgen.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codegen.errors import StubgenError

Checker = Literal["pydantic-monty", "mypy"]
CHECKERS: tuple[Checker, ...] = ("pydantic-monty", "mypy")
INSTALL = "install pydantic-monty (`pip install pydantic-monty`) or mypy (`pip install mypy`)"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem the checker found in a script: where, and its message (the checker's words)."""

    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


def choose_checker(wanted: str = "auto") -> Checker:
    """The checker `wanted` names, or the first installed one; a `StubgenError` saying how to install one."""
    for checker, module in (("pydantic-monty", "pydantic_monty"), ("mypy", "mypy")):
        if wanted in ("auto", checker) and importlib.util.find_spec(module) is not None:
            return checker  # type: ignore[return-value]
    what = "no type checker is installed" if wanted == "auto" else f"{wanted} is not installed"
    raise StubgenError(f"check-scripts: {what}; {INSTALL}")


def script_files(folder: Path) -> list[Path]:
    """The `.py` files under `folder`, sorted; a `StubgenError` when it is not a folder."""
    if folder.exists() and not folder.is_dir():
        raise StubgenError(f"{folder}: a file, not a folder of scripts; give the folder that holds the scripts")
    if not folder.is_dir():
        raise StubgenError(f"{folder}: no such folder of scripts; create it or set `scripts` in [tool.mcp-stubgen]")
    return sorted(path for path in folder.rglob("*.py") if path.is_file() and "__pycache__" not in path.parts)


def check_scripts(scripts: Mapping[str, str], stubs: Mapping[str, str], checker: Checker) -> list[Diagnostic]:
    """Every diagnostic for the scripts (shown path -> source) against the stubs (module -> source), sorted."""
    if not scripts:
        return []
    found = _with_monty(scripts, stubs) if checker == "pydantic-monty" else _with_mypy(scripts, stubs)
    return sorted(found)


def _syntax_error(shown: str, source: str) -> Diagnostic | None:
    """The script's syntax error, as mypy words one; None when it parses (top-level `await` allowed)."""
    try:
        compile(source, shown, "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as error:
        return Diagnostic(shown, error.lineno or 1, error.offset or 1, f"error: {error.msg}  [syntax]")
    return None


def _with_mypy(scripts: Mapping[str, str], stubs: Mapping[str, str]) -> list[Diagnostic]:
    """mypy's diagnostics; a script that does not parse is reported alone and left out of mypy's run,
    whose blocking syntax error would stop it checking every other script."""
    from mypy import api

    found = [error for shown, source in scripts.items() if (error := _syntax_error(shown, source)) is not None]
    parsed = {shown: source for shown, source in scripts.items() if shown not in {error.path for error in found}}
    if not parsed:
        return found
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-scripts-") as folder:
        root = Path(folder)
        for module, source in stubs.items():
            (root / f"{module}.pyi").write_text(source, encoding="utf-8")
        names = {}
        for index, (shown, source) in enumerate(sorted(parsed.items())):
            file = root / f"script_{index}.py"
            file.write_text(source, encoding="utf-8")
            names[file.name] = shown
        arguments = [
            "--check-untyped-defs",
            "--disable-error-code=top-level-await",
            "--show-column-numbers",
            "--no-error-summary",
            "--no-color-output",
            "--hide-error-context",
            "--cache-dir",
            os.devnull,
            "--python-version",
            "3.11",
            *(str(root / name) for name in names),
        ]
        stdout, stderr, status = api.run(arguments)
    if status not in (0, 1):
        raise StubgenError(f"check-scripts: mypy could not run: {(stderr or stdout).strip()[:500]}")
    for line in stdout.splitlines():
        match = re.match(r"^(?:.*[/\\])?(script_\d+\.py):(\d+):(\d+): (error: .*)$", line)
        if match and match[1] in names:
            found.append(Diagnostic(names[match[1]], int(match[2]), int(match[3]), match[4]))
    return found


def _with_monty(scripts: Mapping[str, str], stubs: Mapping[str, str]) -> list[Diagnostic]:
    """Each script fed to a fresh sandbox session that type-checks before it runs; no tool call is
    answered, so a script that passes stops at its first call (or its time limit) without reaching anything."""
    import pydantic_monty as monty

    def unanswered(**_: object) -> None:  # never called: the session is closed at the first call
        raise RuntimeError("check-scripts calls no tool")

    modules = {}
    for module, source in stubs.items():
        functions = re.findall(r"^async def (\w+)\(", source, flags=re.MULTILINE)
        modules[module] = monty.ExternalModule(dict.fromkeys(functions, unanswered), stubs=source)
    found = []
    with monty.Monty() as pool:
        for shown, source in sorted(scripts.items()):
            with pool.checkout(
                external_modules=modules,
                type_check=True,
                type_check_format="concise",
                limits={"max_feed_duration_secs": 1.0},
            ) as session:
                try:
                    step = session.feed_start(source)
                    while isinstance(step, monty.FunctionSnapshot) and step.is_os_function:
                        step = step.resume_auto()  # the sandbox's own steps: fetching the stubs, importing
                except monty.MontyTypingError as error:
                    found += _monty_diagnostics(shown, error.display())
                except monty.MontySyntaxError as error:
                    found.append(Diagnostic(shown, 1, 1, f"error: {error}"))
                except monty.MontyError:
                    continue  # it type-checked, then failed or ran out of time while running: not the checker's business
    return found


def _monty_diagnostics(shown: str, text: str) -> list[Diagnostic]:
    found = []
    for line in text.splitlines():
        match = re.match(r"^[^:\s]+:(\d+):(\d+): (.*)$", line)
        if match:
            found.append(Diagnostic(shown, int(match[1]), int(match[2]), match[3]))
    return found or [Diagnostic(shown, 1, 1, text.strip())]


def read_scripts(files: Sequence[Path], shown: Mapping[Path, str]) -> dict[str, str]:
    """Each script's source by its shown path; an unreadable one is a `StubgenError` naming it."""
    sources = {}
    for file in files:
        try:
            sources[shown[file]] = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise StubgenError(f"{shown[file]}: cannot read the script ({error})") from None
    return sources
