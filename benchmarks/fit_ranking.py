"""Learning to rank on the development split (issue 25): `python benchmarks/fit_ranking.py`.

Tried, and not shipped: it did not pay (`benchmarks/README.md` has the figures). This script keeps the
experiment reproducible. A linear model reorders the shortlist's first five tools (so hit@5 and
beyond cannot change) from `FEATURES`: the lexical ranking's score and place, BM25 per field, how
much of the query a tool covers, and the tool's shape against the query's values. It is fitted on
BFCL v4's development split (`bfcl_shortlist.py --split dev`: 1,560 questions over their own 1,011
functions, none a `live_multiple` question; `live_multiple` is read only to leave its questions out)
as a listwise softmax (the chance each of the five is the answer) with an L2 penalty on standardised
features, by L-BFGS in plain Python (no numpy: the same floats on every run), then scaled back to
the raw features and rounded to four significant digits, as a runtime would ship them.

It prints, for each penalty, the development split's hit@1 under 5-fold cross-validation (folds by
question) beside the lexical ranking's, and `multiple`'s hit@1 with the model fitted on all of the
development split. The rule set before looking: ship the smallest penalty whose `multiple` hit@1 does
not fall below the lexical ranking's (`multiple` is the other development set); with none, nothing
ships, and it says so.
"""

from __future__ import annotations

import argparse
import math
import operator
import re
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bfcl_shortlist import Question, load, load_dev  # noqa: E402
from codegen.runtime._hub_catalog import _B, _K1, HubTool, Scored, SearchIndex, _fields, _idf, terms  # noqa: E402

PENALTIES = (0.001, 0.003, 0.01, 0.03, 0.1)
FOLDS = 5
ITERATIONS = 300
MEMORY = 8
TOLERANCE = 1e-9


RERANKED = 5
"""How many of the lexical ranking's first tools the model reorders: which tool comes first, never which five."""
FIELDS = ("name", "description", "summary", "parameter", "parameter_text")
"""The index's fields read apart (BFCL's functions have no titles, so a title's weight could not be fitted)."""
FEATURES = (
    "relative_score", "log_score", "reciprocal_rank", "log_rank",
    *(f"bm25_{name}" for name in FIELDS),
    "weighted_coverage", "coverage", "coverage_in_name", "name_covered", "name_all_covered", "idf_coverage",
    "rare_coverage", "max_idf_in_name", "log_parameters", "log_required", "log_description_length",
    "number_and_numeric_parameter", "number_and_no_numeric_parameter", "coverage_in_parameter_names",
    "name_in_sequence", "name_first_word", "named", "coverage_in_summary", "enum_value_given",
    "required_named", "coverage_in_description",
)  # fmt: skip
NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")
NUMERIC_TYPES = frozenset({"integer", "number", "float", "int", "double", "long"})


@dataclass(frozen=True)
class Profile:
    """What the model reads of one tool beside the index: its terms per field, its parameters' shape."""

    fields: dict[str, Counter[str]]
    anywhere: frozenset[str]
    name: tuple[str, ...]
    parameters: int
    required: tuple[frozenset[str], ...]
    """The terms of each required parameter's name."""
    numeric: bool
    """Whether a top-level parameter takes a number."""
    enums: tuple[frozenset[str], ...]
    """The terms of each top-level string enum value."""

    @classmethod
    def of(cls, tool: HubTool) -> Profile:
        fields = {name: Counter(terms(text)) for name, text in _fields(tool).items()}
        schema = tool.input_schema if isinstance(tool.input_schema, Mapping) else {}
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        values = [value for value in properties.values() if isinstance(value, Mapping)]
        enums = [item for value in values if isinstance(value.get("enum"), list) for item in value["enum"]]
        return cls(
            fields=fields,
            anywhere=frozenset(term for counts in fields.values() for term in counts),
            name=tuple(terms(tool.tool)),
            parameters=len(properties),
            required=tuple(
                frozenset(found)
                for name in (required if isinstance(required, list) else ())
                if (found := terms(str(name)))
            ),
            numeric=any(value.get("type") in NUMERIC_TYPES for value in values),
            enums=tuple(frozenset(found) for item in enums if isinstance(item, str) and (found := terms(item))),
        )


def _contains(found: Sequence[str], part: Sequence[str]) -> bool:
    """Whether `part` occurs in `found` as consecutive terms."""
    return any(list(found[start : start + len(part)]) == list(part) for start in range(len(found) - len(part) + 1))


class Features:
    """`FEATURES` of the lexical ranking's first tools for a query, over one catalog's index."""

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self.profiles = [Profile.of(tool) for tool in index.tools]
        count = len(self.profiles) or 1
        self.field_average = {
            name: math.fsum(sum(profile.fields[name].values()) for profile in self.profiles) / count or 1.0
            for name in FIELDS
        }

    def rows(self, query: str, scored: Scored, ranked: Sequence[int]) -> list[list[float]]:
        """One row of `FEATURES` per tool of `ranked` (the lexical ranking's first tools, in its order)."""
        postings, scores, weights, count = self.index.postings, scored.scores, scored.weights, len(self.profiles)
        top = scores[ranked[0]] if ranked else 1.0
        asked = list(dict.fromkeys(scored.found))
        asked_set = set(asked)
        share = 1.0 / (len(asked_set) or 1)
        idf = {term: _idf(count, len(postings.get(term, ()))) for term in asked}
        idf_total = sum(idf.values()) or 1.0
        rare = {term for term in asked if idf[term] > math.log(1 + count / 20)}
        has_number = NUMBER.search(query) is not None
        total = sum(weights.values()) or 1.0
        rows = []
        for place, position in enumerate(ranked):
            profile = self.profiles[position]
            score = scores[position]
            row = [score / top if top else 0.0, math.log1p(score), 1.0 / (1 + place), math.log(1 + place)]
            for field_name in FIELDS:
                counts = profile.fields[field_name]
                norm = _K1 * (1 - _B + _B * sum(counts.values()) / self.field_average[field_name])
                row.append(
                    sum(
                        weight * _idf(count, len(postings[term])) * counts[term] * (_K1 + 1) / (counts[term] + norm)
                        for term, weight in weights.items()
                        if term in counts
                    )
                )
            name = set(profile.name)
            in_name = asked_set & name
            covered = asked_set & profile.anywhere
            row += [
                scored.matched.get(position, 0.0) / total,
                len(covered) * share,
                len(in_name) * share,
                len(in_name) / (len(name) or 1),
                float(bool(name) and name <= asked_set),
                sum(idf[term] for term in covered) / idf_total,
                len(rare & profile.anywhere) / (len(rare) or 1),
                max((idf[term] for term in in_name), default=0.0),
                math.log1p(profile.parameters),
                math.log1p(len(profile.required)),
                math.log1p(sum(profile.fields["description"].values())),
                float(has_number and profile.numeric),
                float(has_number and not profile.numeric),
                len(asked_set & set(profile.fields["parameter"])) * share,
                float(len(profile.name) > 1 and _contains(scored.found, profile.name)),
                float(bool(profile.name) and profile.name[0] in asked_set),
                float(position in scored.named),
                len(asked_set & set(profile.fields["summary"])) * share,
                float(any(value <= asked_set for value in profile.enums)),
                sum(1 for names in profile.required if names & asked_set) / (len(profile.required) or 1),
                len(asked_set & set(profile.fields["description"])) * share,
            ]
            rows.append(row)
        return rows


@dataclass(frozen=True)
class Example:
    """One question: the lexical ranking's first tools, their features, and which of them it asks for."""

    group: str
    answers: tuple[str, ...]
    """Every tool the question's answer calls (one question of a parallel set asks for several)."""
    names: tuple[str, ...]
    rows: tuple[tuple[float, ...], ...]
    named: tuple[bool, ...]


def examples(tools_and_questions: tuple[list[HubTool], dict[str, list[Question]]]) -> list[Example]:
    """One example per distinct question text of each group, in the data's order."""
    tools, questions = tools_and_questions
    index = SearchIndex(tools)
    features = Features(index)
    made = []
    for group, asked in questions.items():
        answers: dict[str, list[str]] = {}
        for question in asked:
            answers.setdefault(question.text, []).append(question.answer)
        for text, wanted in answers.items():
            scored = index.scored(text)
            head = index.lexical(scored, RERANKED)
            rows = features.rows(text, scored, head)
            names = tuple(index.tools[position].qualified_name for position in head)
            named = tuple(position in scored.named for position in head)
            made.append(Example(group, tuple(wanted), names, tuple(map(tuple, rows)), named))
    return made


def ranked(example: Example, weights: Sequence[float]) -> list[str]:
    """The example's tools in the model's order, as the runtime orders them."""
    learned = [sum(map(operator.mul, weights, row)) for row in example.rows]
    order = sorted(range(len(example.names)), key=lambda i: (not example.named[i], -learned[i], i))
    return [example.names[i] for i in order]


def hits_at_one(chosen: Sequence[Example], weights: Sequence[float] | None) -> dict[str, tuple[int, int]]:
    """By group: how many (question, tool) pairs have the tool first, and how many pairs there are."""
    found: dict[str, tuple[int, int]] = {}
    for example in chosen:
        first = (ranked(example, weights) if weights is not None else list(example.names))[:1]
        hit, total = found.get(example.group, (0, 0))
        found[example.group] = (hit + sum(answer in first for answer in example.answers), total + len(example.answers))
    return found


def _standardisation(chosen: Sequence[Example]) -> tuple[list[float], list[float]]:
    rows = [row for example in chosen for row in example.rows]
    means = [math.fsum(column) / len(rows) for column in zip(*rows, strict=True)]
    spreads = [
        math.sqrt(math.fsum((value - mean) ** 2 for value in column) / len(rows))
        for column, mean in zip(zip(*rows, strict=True), means, strict=True)
    ]
    return means, spreads


def _loss(
    lists: Sequence[tuple[list[list[float]], list[int]]], penalty: float
) -> Callable[[list[float]], tuple[float, list[float]]]:
    """The mean listwise softmax loss over questions and its gradient, with the L2 penalty."""

    def loss(weights: list[float]) -> tuple[float, list[float]]:
        total = 0.5 * penalty * math.fsum(weight * weight for weight in weights)
        gradient = [penalty * weight for weight in weights]
        share = 1.0 / len(lists)
        for rows, answers in lists:
            scores = [sum(map(operator.mul, weights, row)) for row in rows]
            top = max(scores)
            exponentials = [math.exp(score - top) for score in scores]
            normaliser = sum(exponentials)
            log_normaliser = top + math.log(normaliser)
            target = 1.0 / len(answers)
            total -= share * target * math.fsum(scores[answer] - log_normaliser for answer in answers)
            for i, row in enumerate(rows):
                residual = exponentials[i] / normaliser - (target if i in answers else 0.0)
                for j, value in enumerate(row):
                    gradient[j] += share * residual * value
        return total, gradient

    return loss


def _dot(first: Sequence[float], second: Sequence[float]) -> float:
    return math.fsum(map(operator.mul, first, second))


def _minimised(loss: Callable[[list[float]], tuple[float, list[float]]], size: int) -> list[float]:
    """L-BFGS with a backtracking line search, from zero."""
    weights = [0.0] * size
    value, gradient = loss(weights)
    steps: list[tuple[list[float], list[float]]] = []
    for _ in range(ITERATIONS):
        direction = gradient[:]
        alphas = []
        for step, change in reversed(steps):
            rho = 1.0 / _dot(change, step)
            alpha = rho * _dot(step, direction)
            alphas.append((rho, alpha))
            direction = [d - alpha * c for d, c in zip(direction, change, strict=True)]
        scale = (
            _dot(steps[-1][0], steps[-1][1]) / _dot(steps[-1][1], steps[-1][1])
            if steps
            else 1.0 / max(1e-12, math.sqrt(_dot(gradient, gradient)))
        )
        direction = [scale * d for d in direction]
        for (step, change), (rho, alpha) in zip(steps, reversed(alphas), strict=True):
            beta = rho * _dot(change, direction)
            direction = [d + s * (alpha - beta) for d, s in zip(direction, step, strict=True)]
        direction = [-d for d in direction]
        slope = _dot(gradient, direction)
        if slope >= 0:
            direction, slope, steps = [-g for g in gradient], -_dot(gradient, gradient), []
        length = 1.0
        while True:
            candidate = [w + length * d for w, d in zip(weights, direction, strict=True)]
            new_value, new_gradient = loss(candidate)
            if new_value <= value + 1e-4 * length * slope or length < 1e-10:
                break
            length /= 2
        step = [new - old for new, old in zip(candidate, weights, strict=True)]
        change = [new - old for new, old in zip(new_gradient, gradient, strict=True)]
        if _dot(step, change) > 1e-12:
            steps = [*steps, (step, change)][-MEMORY:]
        converged = abs(value - new_value) < TOLERANCE * max(1.0, abs(value))
        weights, value, gradient = candidate, new_value, new_gradient
        if converged:
            break
    return weights


def fit(chosen: Sequence[Example], penalty: float) -> list[float]:
    """The model's weights on the raw features, rounded to four significant digits."""
    means, spreads = _standardisation(chosen)
    lists = []
    for example in chosen:
        answers = [i for i, name in enumerate(example.names) if name in example.answers]
        if answers and len(answers) < len(example.names):  # a question with nothing to choose teaches nothing
            rows = [
                [
                    (value - mean) / spread if spread else 0.0
                    for value, mean, spread in zip(row, means, spreads, strict=True)
                ]
                for row in example.rows
            ]
            lists.append((rows, answers))
    weights = _minimised(_loss(lists, penalty), len(means))
    return [float(f"{weight / spread:.4g}") if spread else 0.0 for weight, spread in zip(weights, spreads, strict=True)]


def as_table(weights: Sequence[float]) -> dict[str, float]:
    return dict(zip(FEATURES, weights, strict=True))


def cross_validated(chosen: Sequence[Example], penalty: float) -> dict[str, tuple[int, int]]:
    """Hits at one by group, each fold's questions ranked by a model fitted on the other folds."""
    found: dict[str, tuple[int, int]] = {}
    for fold in range(FOLDS):
        training = [example for i, example in enumerate(chosen) if i % FOLDS != fold]
        testing = [example for i, example in enumerate(chosen) if i % FOLDS == fold]
        for group, (hit, total) in hits_at_one(testing, fit(training, penalty)).items():
            before = found.get(group, (0, 0))
            found[group] = (before[0] + hit, before[1] + total)
    return found


def _row(label: str, found: Mapping[str, tuple[int, int]]) -> str:
    cells = " | ".join(f"{hit / total:.3f} ({hit}/{total})" for hit, total in found.values())
    return f"| {label} | {cells} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args()
    development = examples(load_dev())
    tools, questions = load()
    in_sample = examples((tools, {"multiple": questions["multiple"]}))
    lexical = hits_at_one(development, None)
    lexical_multiple = hits_at_one(in_sample, None)
    print(f"| model | {' | '.join(f'{group} hit@1, {FOLDS}-fold' for group in lexical)} | multiple hit@1 |")
    print("|---|" + "---|" * (len(lexical) + 1))
    print(_row("lexical ranking", {**lexical, **lexical_multiple}))
    chosen = None
    for penalty in PENALTIES:
        weights = fit(development, penalty)
        multiple = hits_at_one(in_sample, weights)
        print(_row(f"penalty {penalty}", {**cross_validated(development, penalty), **multiple}))
        if chosen is None and multiple["multiple"][0] >= lexical_multiple["multiple"][0]:
            chosen = penalty, weights
    if chosen is None:
        print("no penalty keeps multiple's hit@1: nothing to ship")
        return 0
    print(f"chosen penalty {chosen[0]} (the smallest that keeps multiple's hit@1); its weights:")
    print(as_table(chosen[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
