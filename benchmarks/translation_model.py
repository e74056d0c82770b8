"""A translation model for the shortlist (issue 25): `python benchmarks/translation_model.py`.

IBM Model 1 (Berger and Lafferty 1999, "Information retrieval as statistical translation"), trained
by EM on pairs of (a request's terms, the labelled tool's terms) from BFCL v4's development split
alone (`bfcl_shortlist.py --split dev`), gives t(request word | tool word). Two uses, each over a grid
that `benchmarks/README.md` ("A translation model learned from the development split") fixed before
it ran: query expansion (by Bayes, with the tool side's word counts as the prior, each request
word's most probable other tool words join the query) and the translation score fused with the
lexical one. The hub does not ship either (the README says why); this script keeps the measurement:

- by default, `dev` under 5-fold cross-validation (each fold ranked with a model learned without its
  questions; `--folds function`: folds by the answer's function, so no fold's tools were seen in
  training), every setting against main's ranking question by question, gained and lost at one,
  five and ten; `multiple` with the model learned on all of `dev`; whether the setting passes the rule.
- `--held-out SETTING` ranks `live_multiple` with that setting (the model learned on all of `dev`)
  beside main: run once, on the finished method.
- `--table SETTING` prints the expansion table learned on all of `dev` as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bfcl_shortlist import DEV_GROUPS, Question, load, load_dev  # noqa: E402
from codegen.runtime._hub_catalog import HubTool  # noqa: E402
from codegen.runtime._hub_search import Scored, SearchIndex, _schema_text, terms  # noqa: E402

NULL = ""
"""The null word of IBM Model 1: a request word the tool's text does not account for."""
ITERATIONS = 10
MIN_PAIRS = 2
"""A request word must be in this many training pairs to expand."""
FLOOR = 0.02
"""The least P(tool word | request word) an expansion keeps."""
FOLDS = 5
KS = (1, 5, 10)

Pairs = Sequence[tuple[Sequence[str], Sequence[str]]]
"""Training pairs: a request's distinct terms, and its labelled tool's."""
Table = dict[str, list[tuple[str, float]]]
"""Request word -> tool words, best first, each with a probability."""


@dataclass(frozen=True)
class Learned:
    expansions: Table
    """P(w | q) for w other than q, at least `FLOOR`, the best `max(EXPANSIONS)`, three significant digits."""
    translations: Table
    """t(q | w), q itself among the w, the best `max(TRANSLATIONS)`."""


@dataclass(frozen=True)
class Expansion:
    """Each request term adds its best `entries` expansions as query terms of weight `scale` times P(w | q)."""

    entries: int
    scale: float
    unknown_only: bool
    """Only the request's terms no tool of the catalog has expand."""

    @property
    def key(self) -> str:
        return f"expand:{self.entries},{self.scale},{'unknown' if self.unknown_only else 'every'}"

    @property
    def label(self) -> str:
        terms_expanded = "unknown terms" if self.unknown_only else "every term"
        return f"expansion, N {self.entries}, lambda {self.scale}, {terms_expanded}"


@dataclass(frozen=True)
class Fusion:
    """Each tool's score plus `weight` times the first lexical score times its translation score
    over the largest, each request term read through its best `entries` translations."""

    entries: int
    weight: float

    @property
    def key(self) -> str:
        return f"fuse:{self.entries},{self.weight}"

    @property
    def label(self) -> str:
        return f"fused translation score, N {self.entries}, beta {self.weight}"


Setting = Expansion | Fusion
EXPANSIONS = tuple(
    Expansion(entries, scale, unknown_only)
    for entries in (3, 5)
    for scale in (0.25, 0.5, 1.0)
    for unknown_only in (False, True)
)
FUSIONS = tuple(Fusion(entries, weight) for entries in (5, 10) for weight in (0.1, 0.25, 0.5))
GRID: tuple[Setting, ...] = (*EXPANSIONS, *FUSIONS)


def tool_terms(tool: HubTool) -> list[str]:
    """The tool side of a pair: the distinct terms of the tool's name, description and parameter names."""
    names: list[str] = []
    _schema_text(tool.input_schema, names, [], 0)
    return sorted(set(terms(tool.tool)) | set(terms(tool.description or "")) | set(terms(" ".join(names))))


def trained(pairs: Pairs) -> dict[str, dict[str, float]]:
    """IBM Model 1's t(request word | tool word), as tool word -> request word -> probability, by EM from
    a uniform start. Every sum runs over sorted lists, so the floats never depend on hash order."""
    sources = [[NULL, *tool] for _, tool in pairs]
    start = 1.0 / len({word for request, _ in pairs for word in request})
    translation: dict[str, dict[str, float]] = {}
    for (request, _), tool in zip(pairs, sources, strict=True):
        for word in tool:
            row = translation.setdefault(word, {})
            for asked in request:
                row[asked] = start
    for _ in range(ITERATIONS):
        counts: dict[str, dict[str, float]] = {word: {} for word in translation}
        for (request, _), tool in zip(pairs, sources, strict=True):
            for asked in request:
                shares = [translation[word][asked] for word in tool]
                total = math.fsum(shares)
                for word, share in zip(tool, shares, strict=True):
                    row = counts[word]
                    row[asked] = row.get(asked, 0.0) + share / total
        translation = {}
        for word in sorted(counts):
            row = counts[word]
            total = math.fsum(row[asked] for asked in sorted(row))
            translation[word] = {asked: row[asked] / total for asked in sorted(row)}
    return translation


def learned(pairs: Pairs) -> Learned:
    """The model's two tables (`Learned`). P(w | q) is t(q | w) times the number of pairs whose tool
    side has w, over the sum of those for q (the null word left out); only a q in `MIN_PAIRS` pairs expands."""
    translation = trained(pairs)
    tool_pairs: dict[str, int] = {}
    request_pairs: dict[str, int] = {}
    for request, tool in pairs:
        for word in tool:
            tool_pairs[word] = tool_pairs.get(word, 0) + 1
        for word in request:
            request_pairs[word] = request_pairs.get(word, 0) + 1
    by_request: dict[str, list[tuple[str, float]]] = {}
    for word in sorted(translation):
        if word != NULL:
            for asked, probability in translation[word].items():
                by_request.setdefault(asked, []).append((word, probability))
    expansions: Table = {}
    translations: Table = {}
    most = max(entry.entries for entry in EXPANSIONS)
    for asked in sorted(by_request):
        translations[asked] = sorted(by_request[asked], key=lambda entry: (-entry[1], entry[0]))[
            : max(entry.entries for entry in FUSIONS)
        ]
        if request_pairs[asked] < MIN_PAIRS:
            continue
        joint = [(word, probability * tool_pairs[word]) for word, probability in by_request[asked]]
        total = math.fsum(weight for _, weight in joint)
        best = sorted(
            ((word, weight / total) for word, weight in joint if word != asked and weight / total >= FLOOR),
            key=lambda entry: (-entry[1], entry[0]),
        )[:most]
        if best:
            expansions[asked] = [(word, float(f"{probability:.3g}")) for word, probability in best]
    return Learned(expansions, translations)


NOTHING = Learned({}, {})


class TranslatedIndex(SearchIndex):
    """The shortlist with a learned model applied as `setting` says (`None`: main's ranking)."""

    def __init__(self, tools: Iterable[HubTool], about: Mapping[str, str] | None = None) -> None:
        super().__init__(tools, about)
        self.model = NOTHING
        self.setting: Setting | None = None
        self.words = [tool_terms(tool) for tool in self.tools]
        self.holding: dict[str, list[int]] = {}
        for position, words in enumerate(self.words):
            for word in words:
                self.holding.setdefault(word, []).append(position)

    def weighted(self, query: str) -> tuple[list[str], dict[str, float]]:
        found, weights = super().weighted(query)
        setting = self.setting
        if isinstance(setting, Expansion):
            for term in dict.fromkeys(found):
                if setting.unknown_only and term in self.postings:
                    continue
                for word, probability in self.model.expansions.get(term, ())[: setting.entries]:
                    if word in self.postings:
                        weights[word] = max(weights.get(word, 0.0), setting.scale * probability)
        return found, weights

    def scored(self, query: str) -> Scored:
        scored = super().scored(query)
        setting = self.setting
        if not isinstance(setting, Fusion):
            return scored
        translated: dict[int, float] = {}
        for asked in sorted(set(terms(query))):
            for word, probability in self.model.translations.get(asked, ())[: setting.entries]:
                for position in self.holding.get(word, ()):
                    translated[position] = translated.get(position, 0.0) + probability / len(self.words[position])
        if translated:
            best = max(translated.values())
            top = max(scored.scores.values(), default=1.0)
            for position in sorted(translated):
                added = setting.weight * top * translated[position] / best
                scored.scores[position] = scored.scores.get(position, 0.0) + added
        return scored


@dataclass(frozen=True)
class Example:
    group: str
    text: str
    answers: tuple[str, ...]


def examples(questions: Mapping[str, list[Question]]) -> list[Example]:
    """One example per distinct question text of each group, in the data's order (as `fit_ranking.py`)."""
    made = []
    for group, asked in questions.items():
        answers: dict[str, list[str]] = {}
        for question in asked:
            answers.setdefault(question.text, []).append(question.answer)
        made += [Example(group, text, tuple(wanted)) for text, wanted in answers.items()]
    return made


def pairs_of(chosen: Iterable[Example], tools: Mapping[str, HubTool]) -> list[tuple[list[str], list[str]]]:
    return [
        (sorted(set(terms(example.text))), tool_terms(tools[answer]))
        for example in chosen
        for answer in example.answers
    ]


Places = dict[tuple[str, str], int]
"""(question text, answer) -> the answer's place in the ranking (0 first; 99 past the tenth)."""
Moves = dict[int, tuple[int, int, int]]
"""k -> (hits, gained, lost) against main."""


def places(index: SearchIndex, chosen: Iterable[Example]) -> Places:
    found: Places = {}
    for example in chosen:
        ranked = [tool.qualified_name for tool in index.search(example.text, max(KS))]
        for answer in example.answers:
            found[(example.text, answer)] = ranked.index(answer) if answer in ranked else 99
    return found


def compared(before: Places, after: Places, keys: Iterable[tuple[str, str]]) -> Moves:
    result = {}
    for k in KS:
        hits = gained = lost = 0
        for key in keys:
            was, now = before[key] < k, after[key] < k
            hits += now
            gained += now and not was
            lost += was and not now
        result[k] = (hits, gained, lost)
    return result


def folds(development: Sequence[Example], by: str) -> list[int]:
    """Each example's fold: its place mod `FOLDS`, or (`by` "function") its first answer's place among
    the sorted answer names mod `FOLDS`."""
    if by == "question":
        return [i % FOLDS for i in range(len(development))]
    names = sorted({example.answers[0] for example in development})
    place = {name: i for i, name in enumerate(names)}
    return [place[example.answers[0]] % FOLDS for example in development]


def cross_validated(
    index: TranslatedIndex, development: Sequence[Example], models: Sequence[Learned], fold_of: Sequence[int]
) -> Places:
    found: Places = {}
    for fold, model in enumerate(models):
        index.model = model
        found.update(places(index, [example for example, own in zip(development, fold_of, strict=True) if own == fold]))
    return found


def fold_models(development: Sequence[Example], tools: Mapping[str, HubTool], fold_of: Sequence[int]) -> list[Learned]:
    """The model learned without each fold's questions, fold by fold."""
    return [
        learned(pairs_of([example for example, own in zip(development, fold_of, strict=True) if own != fold], tools))
        for fold in range(FOLDS)
    ]


def full_model() -> Learned:
    """The model learned on all of `dev`."""
    tools, questions = load_dev()
    return learned(pairs_of(examples(questions), {tool.qualified_name: tool for tool in tools}))


def cell(result: Moves, total: int) -> str:
    return " / ".join(f"{result[k][0] / total:.3f}" for k in KS)


def moves(result: Moves) -> str:
    return "; ".join(f"@{k} +{result[k][1]} / -{result[k][2]}" for k in KS)


def passes(by_group: Mapping[str, Moves], multiple: Moves, base: Mapping[int, int]) -> bool:
    """The rule: at five a net gain on both groups, at one no more than 2 lost net per group, and
    `multiple` loses neither at one nor at five."""
    for result in by_group.values():
        if result[5][1] - result[5][2] <= 0 or result[1][2] - result[1][1] > 2:
            return False
    return multiple[1][0] >= base[1] and multiple[5][0] >= base[5]


def setting_named(key: str) -> Setting:
    for setting in GRID:
        if setting.key == key:
            return setting
    raise SystemExit(f"translation_model: no setting {key!r}; one of: {', '.join(s.key for s in GRID)}")


def held_out(setting: Setting) -> None:
    tools, questions = load()
    index = TranslatedIndex(tools)
    chosen = examples({"live_multiple": questions["live_multiple"]})
    before = places(index, chosen)
    index.model, index.setting = full_model(), setting
    result = compared(before, places(index, chosen), before)
    print(f"| live_multiple, main | {len(before)} | {cell(compared(before, before, before), len(before))} | |")
    print(f"| live_multiple, {setting.label} | {len(before)} | {cell(result, len(before))} | {moves(result)} |")


def grid(fold_by: str) -> None:
    tools, questions = load_dev()
    development = examples(questions)
    index = TranslatedIndex(tools)
    before = places(index, development)
    keys: dict[str, list[tuple[str, str]]] = {group: [] for group in DEV_GROUPS}
    for example in development:
        keys[example.group] += [(example.text, answer) for answer in example.answers]
    fold_of = folds(development, fold_by)
    models = fold_models(development, {tool.qualified_name: tool for tool in tools}, fold_of)
    reported, reported_questions = load()
    reported_index = TranslatedIndex(reported)
    multiple = examples({"multiple": reported_questions["multiple"]})
    multiple_before = places(reported_index, multiple)
    base = {k: sum(place < k for place in multiple_before.values()) for k in KS}
    reported_index.model = full_model()
    header = (
        "| setting | "
        + " | ".join(f"{group} @1/@5/@10 | gained / lost" for group in DEV_GROUPS)
        + " | multiple | gained / lost | rule |"
    )
    print(f"folds by {fold_by}\n{header}\n" + "|---" * (header.count("|") - 1) + "|")
    unchanged = " | ".join(f"{cell(compared(before, before, keys[g]), len(keys[g]))} | " for g in DEV_GROUPS)
    print(
        f"| main | {unchanged} | {cell(compared(multiple_before, multiple_before, multiple_before), len(multiple_before))} | | |"
    )
    for setting in GRID:
        index.setting = reported_index.setting = setting
        after = cross_validated(index, development, models, fold_of)
        by_group = {group: compared(before, after, keys[group]) for group in DEV_GROUPS}
        multiple_result = compared(multiple_before, places(reported_index, multiple), multiple_before)
        verdict = "passes" if passes(by_group, multiple_result, base) else "fails"
        cells = " | ".join(f"{cell(by_group[g], len(keys[g]))} | {moves(by_group[g])}" for g in DEV_GROUPS)
        print(
            f"| {setting.label} | {cells} | {cell(multiple_result, len(multiple_before))} | {moves(multiple_result)} "
            f"| {verdict} |",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folds", choices=("question", "function"), default="question")
    parser.add_argument("--held-out", metavar="SETTING", help="rank live_multiple with this setting (its key)")
    parser.add_argument("--table", metavar="SETTING", help="print the expansion table learned on all of dev")
    options = parser.parse_args()
    if options.table:
        setting = setting_named(options.table)
        if not isinstance(setting, Expansion):
            raise SystemExit("translation_model: --table takes an expansion setting (expand:...)")
        table = {word: entries[: setting.entries] for word, entries in full_model().expansions.items()}
        print(json.dumps(table, indent=0, sort_keys=True))
    elif options.held_out:
        held_out(setting_named(options.held_out))
    else:
        grid(options.folds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
