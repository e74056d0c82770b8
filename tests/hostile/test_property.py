"""Property: any catalog drawn from the hostile alphabet (`tests/hostile/strategies.py`) either
generates a package that compiles and imports without running a payload, or is refused with one
`StubgenError` line naming the server. Never another exception, never a traceback.

The corpus test puts each known payload in each position; this one combines them at random, with
random schemas, to find the interactions nobody wrote down. It is derandomized, so CI always runs
the same examples; `tests/fuzz/fuzz_generate.py` runs thousands more with any seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from codegen.snapshot import JSON
from tests.hostile.corpus import run_mypy
from tests.hostile.strategies import catalogs
from tests.hostile.verdict import generate_one, import_packages

EXAMPLES = 30
"""About 5 s of generation, derandomized so CI always draws the same ones; the fuzz script does the rest."""
MYPY_SAMPLE = 3


@pytest.mark.generated_mypy
def test_random_catalogs_generate_importable_packages_or_fail_in_one_line(tmp_path: Path) -> None:
    generated: list[tuple[Path, JSON]] = []
    refused: list[str] = []

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    @given(catalogs())
    def generate_or_refuse(document: JSON) -> None:
        verdict = generate_one(document, tmp_path, f"pkg{len(generated) + len(refused)}")
        assert verdict.kind in ("generated", "error"), f"{verdict.kind}: {verdict.signature}: {verdict.detail}"
        if verdict.package is not None:
            generated.append((verdict.package, document))
        else:
            refused.append(verdict.detail)

    generate_or_refuse()

    # Importing is batched in one fresh interpreter (one start-up for every package), after the draws.
    failures = import_packages([package for package, _ in generated], tmp_path)
    documents = {package.name: document for package, document in generated}
    assert failures == {}, "\n".join(
        f"{verdict.detail}\n  catalog: {json.dumps(documents.get(name), ensure_ascii=True)[:3000]}"
        for name, verdict in failures.items()
    )
    # The alphabet is hostile, not hopeless: most catalogs must generate, or this test proves little.
    assert len(generated) >= EXAMPLES // 2, refused
    # mypy costs seconds whatever it checks, so it gets the packages with the most code in them.
    largest = sorted((package for package, _ in generated), key=_code_size, reverse=True)[:MYPY_SAMPLE]
    assert len(largest) == MYPY_SAMPLE
    assert run_mypy(largest, tmp_path) == ""


def _code_size(package: Path) -> int:
    return sum(len(path.read_bytes()) for path in package.rglob("*.py"))
