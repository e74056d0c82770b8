"""The shortlist on data nobody here wrote (issue 25): `python benchmarks/bfcl_shortlist.py`.

BFCL v4's `multiple` and `live_multiple` question sets (Berkeley Function Calling Leaderboard,
Apache-2.0, read from the `bfcl-eval` package: `pip install --no-deps bfcl-eval==2026.3.23`, since
its own dependencies pin an old datamodel-code-generator). Every function of both sets is pooled
into one catalog of hub tools; each question is a query, and its answer's function is the tool to
find. Prints hit@1, hit@5 and hit@10 per split, the median time per query and the index build.

`multiple` is where the ranking was developed (in-sample); `live_multiple` is held out.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codegen.runtime._hub_catalog import HubTool, SearchIndex, qualified_name  # noqa: E402

SPLITS = ("multiple", "live_multiple")
"""Development split first, held-out split second."""
INSTALL = "pip install --no-deps bfcl-eval==2026.3.23"
SERVER = "bfcl"


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    """The qualified name of the tool the question's answer calls."""


def data_dir() -> Path:
    """`bfcl_eval/data` of the installed package, found without importing it (its imports need its dependencies)."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"bfcl_shortlist: the bfcl-eval package is not installed; run `{INSTALL}`")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load() -> tuple[list[HubTool], dict[str, list[Question]]]:
    """The pooled catalog (each function name once, the first definition seen) and each split's questions."""
    data = data_dir()
    functions: dict[str, dict[str, Any]] = {}
    questions: dict[str, list[Question]] = {}
    for split in SPLITS:
        entries = _lines(data / f"BFCL_v4_{split}.json")
        answers = {
            entry["id"]: entry["ground_truth"] for entry in _lines(data / "possible_answer" / f"BFCL_v4_{split}.json")
        }
        questions[split] = []
        for entry in entries:
            for function in entry["function"]:
                functions.setdefault(function["name"], function)
            text = " ".join(turn["content"] for turn in entry["question"][0] if turn["role"] == "user")
            (answer,) = {name for call in answers[entry["id"]] for name in call}
            questions[split].append(Question(text, qualified_name(SERVER, answer)))
    tools = [
        HubTool(qualified_name(SERVER, name), SERVER, SERVER, name, function.get("description"), function["parameters"])
        for name, function in functions.items()
    ]
    return tools, questions


@dataclass(frozen=True)
class Score:
    questions: int
    hits: dict[int, float]
    """k -> the share of questions whose tool is among the first k."""
    median_seconds: float


def score(index: SearchIndex, questions: list[Question], ks: tuple[int, ...] = (1, 5, 10)) -> Score:
    found = {k: 0 for k in ks}
    times = []
    for question in questions:
        started = time.perf_counter()
        ranked = [tool.qualified_name for tool in index.search(question.text, max(ks))]
        times.append(time.perf_counter() - started)
        for k in ks:
            found[k] += question.answer in ranked[:k]
    return Score(len(questions), {k: hits / len(questions) for k, hits in found.items()}, statistics.median(times))


LABELS = {"multiple": "multiple (in-sample)", "live_multiple": "live_multiple (held out)"}


def table(splits: tuple[str, ...] = SPLITS) -> list[str]:
    """The BFCL rows: the index build, then hit@1, hit@5, hit@10 and the median query time per split
    (with `all` when both splits are asked for), each split labelled in-sample or held out."""
    tools, questions = load()
    started, started_cpu = time.perf_counter(), time.process_time()
    index = SearchIndex(tools)
    build, build_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    lines = [
        f"BFCL v4, {len(tools)} functions pooled into one catalog; "
        f"index build {build * 1000:.1f} ms wall, {build_cpu * 1000:.1f} ms CPU",
        "| split | questions | hit@1 | hit@5 | hit@10 | median per query |",
        "|---|---|---|---|---|---|",
    ]
    rows = [(split, questions[split]) for split in splits]
    if len(splits) > 1:
        rows.append(("all", [question for split in splits for question in questions[split]]))
    for name, asked in rows:
        result = score(index, asked)
        hits = " | ".join(f"{result.hits[k]:.3f}" for k in (1, 5, 10))
        lines.append(
            f"| {LABELS.get(name, name)} | {result.questions} | {hits} | {result.median_seconds * 1000:.2f} ms |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--split",
        choices=SPLITS,
        help="Only this split: `--split multiple` while developing, so the held-out figures stay unseen.",
    )
    options = parser.parse_args()
    print("\n".join(table((options.split,) if options.split else SPLITS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
