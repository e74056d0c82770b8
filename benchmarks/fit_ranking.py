"""The shortlist's learned model (issue 25): `python benchmarks/fit_ranking.py [--check]`.

A linear model puts the shortlist's first five tools in its order (so hit@5 and beyond cannot
change), from the runtime's `_RERANK_FEATURES` (`SearchIndex.features`): the lexical ranking's score
and place, BM25 per field, how much of the query a tool covers, and the tool's shape against the
query's values. This script fits the runtime's `_RERANK_WEIGHTS`, on
BFCL v4's development split (`bfcl_shortlist.py --split dev`: 1,560 questions over their own 1,011
functions, none a `live_multiple` question; `live_multiple` is read only to leave its questions out)
as a listwise softmax (the chance each of the five is the answer) with an L2 penalty on standardised
features, by L-BFGS in plain Python (no numpy: the same floats on every run), then scaled back to
the raw features and rounded to four significant digits, the constants the runtime ships.

It prints, for each penalty, the development split's hit@1 under 5-fold cross-validation (folds by
question) beside the lexical ranking's, and `multiple`'s hit@1 with the model fitted on all of the
development split, then the weights of the smallest penalty whose `multiple` hit@1 does not fall
below the lexical ranking's (`multiple` is the other development set). `--check` refits at the
shipped penalty alone and exits 1 when the weights differ from the shipped ones.
"""

from __future__ import annotations

import argparse
import math
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bfcl_shortlist import Question, load, load_dev  # noqa: E402
from codegen.runtime._hub_catalog import HubTool  # noqa: E402
from codegen.runtime._hub_search import _RERANK_FEATURES, _RERANK_WEIGHTS, _RERANKED, SearchIndex  # noqa: E402

PENALTIES = (0.001, 0.003, 0.01, 0.03, 0.1)
SHIPPED_PENALTY = 0.03
"""The penalty of the shipped `_RERANK_WEIGHTS`: the rule above picked it (`main` prints the table)."""
FOLDS = 5
ITERATIONS = 300
MEMORY = 8
TOLERANCE = 1e-9


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
    made = []
    for group, asked in questions.items():
        answers: dict[str, list[str]] = {}
        for question in asked:
            answers.setdefault(question.text, []).append(question.answer)
        for text, wanted in answers.items():
            scored = index.scored(text)
            head = index.lexical(scored, _RERANKED)
            rows = index.features(text, scored, head)
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
    return dict(zip(_RERANK_FEATURES, weights, strict=True))


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
    parser.add_argument(
        "--check", action="store_true", help="Only refit at the shipped penalty; exit 1 if the weights differ."
    )
    options = parser.parse_args()
    development = examples(load_dev())
    if options.check:
        refitted = as_table(fit(development, SHIPPED_PENALTY))
        if refitted != _RERANK_WEIGHTS:
            print(f"fit_ranking: the development split fits other weights than the shipped ones:\n{refitted!r}")
            return 1
        print("fit_ranking: the shipped weights are what the development split fits")
        return 0
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
    print(f"chosen penalty {chosen[0]} (the smallest that keeps multiple's hit@1); `_RERANK_WEIGHTS`:")
    print(as_table(chosen[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
