"""One random catalog through the generator, classified: generated, clean error, crash or injection.

Shared by the property test and `tests/fuzz/fuzz_generate.py`, so both hold the generator to the
same contract: a package whose every file compiles and that imports without running a payload, or a
`StubgenError` of one line naming the server. Anything else is a crash, with a short signature
(exception type and where it was raised) so that thousands of runs group into a few distinct bugs.
"""

from __future__ import annotations

import os
import shutil
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codegen.errors import StubgenError
from codegen.generate import render_snapshot
from codegen.generate.publish import publish
from codegen.snapshot import JSON
from tests.hostile.corpus import MARKER, Outcome, import_all
from tests.hostile.strategies import snapshot_of

Kind = Literal["generated", "error", "crash", "injection"]


@dataclass(frozen=True)
class Verdict:
    kind: Kind
    signature: str
    """What groups equal failures: exception type and location, or the rule broken."""
    detail: str = ""
    package: Path | None = None


def generate_one(document: JSON, out: Path, package: str) -> Verdict:
    """Generate the catalog into `out/<package>` (the folder is renamed so any server id fits), with
    `out` as the working directory so a payload run at generation time leaves the marker there."""
    here = Path.cwd()
    os.chdir(out)
    try:
        return _generate(document, out, package)
    finally:
        os.chdir(here)
        if (out / MARKER).exists():
            (out / MARKER).unlink()


def _generate(document: JSON, out: Path, package: str) -> Verdict:
    try:
        files = render_snapshot(snapshot_of(document))
    except StubgenError as error:
        message = str(error)
        if (out / MARKER).exists():
            return Verdict("injection", "injection while generating")
        if any(char in message for char in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
            return Verdict("crash", "StubgenError of more than one line", message[:500])
        if not message.startswith("server "):
            return Verdict("crash", "StubgenError not naming the server", message[:500])
        return Verdict("error", "", message)
    except Exception as error:
        return Verdict("crash", _signature(error), f"{type(error).__name__}: {str(error)[:500]}")
    if (out / MARKER).exists():
        return Verdict("injection", "injection while generating")
    target = out / package
    publish(files, target)
    for name, data in files.items():
        if name.endswith(".py"):
            try:
                compile(data, str(target / name), "exec")
            except (SyntaxError, ValueError) as error:
                shutil.rmtree(target)
                return Verdict("crash", f"{name} does not compile", str(error)[:500])
    return Verdict("generated", "", package=target)


def _signature(error: BaseException) -> str:
    """The exception type and the innermost frame in our code (or else the innermost frame at all)."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if "/codegen/" in frame.filename or "/tests/" in frame.filename]
    frame = (ours or frames)[-1] if frames else None
    where = f" at {Path(frame.filename).name}:{frame.lineno} ({frame.name})" if frame else ""
    return f"{type(error).__name__}{where}"


def import_packages(packages: Sequence[Path], out: Path) -> dict[str, Verdict]:
    """Import every package (and each name in its `__all__`) in one fresh interpreter; a failing
    package is a crash, and the marker file, if it appears, an injection of the whole batch."""
    outcome = Outcome()
    import_all(packages, out, outcome)
    verdicts: dict[str, Verdict] = {}
    for line in outcome.crashes:
        package, _, problem = line.partition(": ")
        kind = problem.partition(":")[0]
        verdicts[package if package in {path.name for path in packages} else "*"] = Verdict(
            "crash", f"import fails with {kind}", line[:500]
        )
    if outcome.injections:
        verdicts["*"] = Verdict("injection", "injection while importing", outcome.injections[0])
    return verdicts
