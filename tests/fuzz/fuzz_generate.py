"""Fuzz the generator with thousands of random hostile catalogs and count what happens to them.

    python tests/fuzz/fuzz_generate.py --count 5000 --seed 1

Catalogs come from the property test's strategies (`tests/hostile/strategies.py`), drawn by
hypothesis with a fixed seed, so a run is reproducible. Each is classified:

- generated:   the package compiles and imports in a fresh interpreter without running a payload;
- clean error: `StubgenError`, one line, naming the server;
- crash:       any other exception, an error of more than one line, a file that does not compile,
               or a package that fails to import;
- injection:   the marker file a payload would create appeared, while generating or importing.

Crashes are grouped by signature (exception type and where it was raised); the first few are shrunk
to a small catalog and printed as JSON. Exit status 1 when there is any crash or injection.
Not a timing test: it runs for minutes; the suite runs it with `--count 10` as a smoke test.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hypothesis import HealthCheck, Phase, given, seed, settings

from codegen.generate.runtime_folder import publish_runtime
from codegen.snapshot import JSON
from tests.hostile.corpus import MARKER, extension_keywords
from tests.hostile.strategies import catalogs
from tests.hostile.verdict import Verdict, generate_one, import_packages

IMPORT_BATCH = 100
"""Generated packages imported per fresh interpreter: one start-up for many packages."""


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, tuple[Verdict, JSON]] = field(default_factory=dict)
    """The first catalog seen for each crash or injection signature."""
    by_signature: Counter[str] = field(default_factory=Counter)
    with_extensions: int = 0
    """Catalogs carrying at least one of datamodel-code-generator's extension keywords: the run
    says how many, so a run that tried none of them cannot pass for one that did."""

    def add(self, verdict: Verdict, document: JSON) -> None:
        self.counts[verdict.kind] += 1
        self.with_extensions += _has_extension_keyword(document, frozenset(extension_keywords()))
        if verdict.kind in ("crash", "injection"):
            self.by_signature[verdict.signature] += 1
            self.examples.setdefault(verdict.signature, (verdict, document))


def _has_extension_keyword(value: Any, keywords: frozenset[str]) -> bool:
    if isinstance(value, dict):
        return any(key in keywords for key in value) or any(
            _has_extension_keyword(inner, keywords) for inner in value.values()
        )
    if isinstance(value, list):
        return any(_has_extension_keyword(inner, keywords) for inner in value)
    return False


def judge(document: JSON, out: Path, package: str) -> Verdict:
    """One catalog, generated and (when it generates) imported in this process: only for shrinking,
    where a fresh interpreter per attempt would cost a second each."""
    verdict = generate_one(document, out, package)
    if verdict.kind != "generated" or verdict.package is None:
        return verdict
    publish_runtime(out)
    sys.path[:0] = [str(out.parent), str(out)]  # the output folder's packages, and the payload module
    here = Path.cwd()
    os.chdir(out)
    try:
        module = importlib.import_module(f"{out.name}.{package}")
        importlib.import_module(f"{out.name}.{package}.client")
        for member in module.__all__:
            getattr(module, member)
    except BaseException as error:  # whatever the import raises is the finding
        verdict = Verdict("crash", f"import fails with {type(error).__name__}", str(error)[:500])
    finally:
        os.chdir(here)
        del sys.path[:2]
        for name in [name for name in sys.modules if name.split(".")[0] == out.name]:
            del sys.modules[name]
        shutil.rmtree(out / package)
    if (out / MARKER).exists():
        (out / MARKER).unlink()
        return Verdict("injection", "injection while importing")
    return verdict


def run(count: int, seed_value: int, work: Path, progress: bool) -> Tally:
    tally = Tally()
    pending: list[tuple[Path, JSON]] = []
    started = time.monotonic()
    number = 0

    def flush() -> None:
        batch = work / "batch"
        failures = import_packages([path for path, _ in pending], batch) if pending else {}
        for path, document in pending:
            if "*" in failures:  # a failure not tied to one package: import each alone to place it
                tally.add(judge_import(path, document, batch), document)
            else:
                tally.add(failures.get(path.name, Verdict("generated", "")), document)
        pending.clear()
        shutil.rmtree(batch, ignore_errors=True)
        batch.mkdir()

    def judge_import(path: Path, document: JSON, batch: Path) -> Verdict:
        alone = import_packages([path], batch)
        return alone.get(path.name) or alone.get("*") or Verdict("generated", "")

    (work / "batch").mkdir()

    @seed(seed_value)
    @settings(
        max_examples=count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(catalogs())
    def fuzz(document: JSON) -> None:
        nonlocal number
        number += 1
        verdict = generate_one(document, work / "batch", f"pkg{number}")
        if verdict.kind == "generated" and verdict.package is not None:
            pending.append((verdict.package, document))
            if len(pending) >= IMPORT_BATCH:
                flush()
        else:
            tally.add(verdict, document)
        if progress and number % 500 == 0:
            print(f"  {number} catalogs, {time.monotonic() - started:.0f} s: {dict(tally.counts)}", file=sys.stderr)

    fuzz()
    flush()
    return tally


def minimize(document: JSON, still_fails: Callable[[JSON], bool], budget: int) -> JSON:
    """Greedy shrinking: take the first simpler catalog that still fails the same way, until none does."""
    current = document
    while budget > 0:
        for candidate in _simpler(current):
            budget -= 1
            if still_fails(candidate):
                current = candidate
                break
            if budget <= 0:
                break
        else:
            break
    return current


def _simpler(value: Any) -> Iterator[Any]:
    """Every value one step simpler: an entry or item dropped, a part replaced by a simpler one."""
    if isinstance(value, dict):
        for key in value:
            yield {name: inner for name, inner in value.items() if name != key}
        for key, inner in value.items():
            for smaller in _simpler(inner):
                yield {**value, key: smaller}
        for key in value:
            if isinstance(key, str) and len(key) > 1:
                for shorter in (key[: len(key) // 2], "a"):
                    if shorter not in value:
                        yield {(shorter if name == key else name): inner for name, inner in value.items()}
    elif isinstance(value, list):
        for index in range(len(value)):
            yield value[:index] + value[index + 1 :]
        for index, inner in enumerate(value):
            for smaller in _simpler(inner):
                yield [*value[:index], smaller, *value[index + 1 :]]
    elif isinstance(value, str) and value not in ("", "a"):
        yield ""
        yield "a"
        if len(value) > 2:
            yield value[: len(value) // 2]
            yield value[len(value) // 2 :]
    elif isinstance(value, int | float) and not isinstance(value, bool) and value != 0:
        yield 0


def report(tally: Tally, work: Path, show: int, budget: int) -> None:
    counts = tally.counts
    total = sum(counts.values())
    print(f"catalogs:    {total}")
    print(f"generated:   {counts['generated']}")
    print(f"clean error: {counts['error']}")
    print(f"crash:       {counts['crash']}")
    print(f"injection:   {counts['injection']}")
    print(f"with extension keywords: {tally.with_extensions}")
    for number, (signature, hits) in enumerate(tally.by_signature.most_common()):
        verdict, document = tally.examples[signature]
        print(f"\n{verdict.kind} x{hits}: {signature}\n  {verdict.detail[:300]!r}", flush=True)
        if number < show:
            small = minimize(document, _same_failure(work / "shrink", signature), budget)
            print("  minimized catalog:\n  " + json.dumps(small, ensure_ascii=True, sort_keys=True))


def _same_failure(folder: Path, signature: str) -> Callable[[JSON], bool]:
    """Whether a catalog still fails with this signature (each attempt under a package name of its own)."""
    folder.mkdir(exist_ok=True)
    attempts = iter(range(1_000_000_000))
    return lambda candidate: judge(candidate, folder, f"shrink{next(attempts)}").signature == signature


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=1000, help="catalogs to generate (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed (default 0)")
    parser.add_argument("--show", type=int, default=3, help="crash signatures to shrink and print (default 3)")
    parser.add_argument("--shrink-budget", type=int, default=300, help="attempts per shrunk example")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    options = parser.parse_args(argv)
    warnings.filterwarnings("ignore")  # hypothesis warns about the repr of a 10,000-character name
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="stubgen-fuzz-") as folder:
        work = Path(folder)
        tally = run(options.count, options.seed, work, progress=not options.quiet)
        print(f"command:     python tests/fuzz/fuzz_generate.py --count {options.count} --seed {options.seed}")
        print(f"time:        {time.monotonic() - started:.0f} s")
        report(tally, work, options.show, options.shrink_budget)
    return 1 if tally.counts["crash"] or tally.counts["injection"] else 0


if __name__ == "__main__":
    sys.exit(main())
