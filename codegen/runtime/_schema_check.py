"""The runtime's JSON Schema check: each schema compiled once into a predicate of closures, with
`jsonschema` giving the verdict and the message whenever the predicate says no (or cannot be made).
Both run within a step budget (`_Budget`), so no schema and value make a check take exponential time.

Copied verbatim into the output folder's `_mcp_runtime/` with the rest of the runtime; it imports only
the standard library, and `jsonschema` and `pydantic_core` (for patterns) where they are used.
So it reads schemas itself, not through mcp-stubgen's walker (`codegen/schemas.py`), which is not shipped.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from fractions import Fraction
from typing import Any, Final, TypeVar
from urllib.parse import unquote

Check = Callable[[Any], bool]
T = TypeVar("T")

_DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_ANNOTATIONS = frozenset(
    {"$schema", "$comment", "$defs", "definitions", "title", "description", "default", "examples", "format",
     "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "contentSchema",
     "minContains", "maxContains", "then", "else"}
)  # fmt: skip
"""Keywords that never fail an instance by themselves (or are read by the keyword they belong to)."""

_OBJECT_KEYWORDS = frozenset({"type", "properties", "required"})
"""The keywords `_Compiler._object` checks together, for a schema whose `type` is `object`."""

_NOT_COMPILED = frozenset(
    {"$dynamicRef", "$dynamicAnchor", "$anchor", "$id", "$recursiveRef", "$vocabulary"}
)
_NOT_COMPILED_KEYWORDS = frozenset({"unevaluatedProperties", "unevaluatedItems"})


class _NotCompiled(Exception):
    """The schema uses something the fast check does not do; `jsonschema` checks it alone."""


def _json_key(value: Any) -> Any:
    """A hashable key equal for equal JSON values: `1` and `1.0` are one number, `true` is not `1`."""
    if value is True or value is False:
        return ("boolean", value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ("array", tuple(_json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((name, _json_key(item)) for name, item in value.items()))
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_NUMBERS = frozenset({int, float})
"""The types of JSON numbers as checked values hold them: the runtime checks JSON it decoded or
built (`_as_json`), so a number is exactly an `int` or a `float`, and `bool` is not one."""


def _number(limit: Any) -> None:
    if not _is_number(limit):
        raise _NotCompiled("a bound that is not a number")


_TYPES: dict[str, Check] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "number": lambda value: (
        type(value) in _NUMBERS or _is_number(value)
    ),  # the exact types first: one test
    "integer": lambda value: (
        type(value) is int
        or (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer())
    ),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}


def _pointed(root: Any, reference: str) -> Any:
    """What a `#` or `#/...` reference points at in `root`; `_NotCompiled` when nothing is there."""
    node = root
    for part in unquote(reference[1:]).split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise _NotCompiled(f"the reference {reference!r} points at nothing")
    return node


MAX_CHECK_STEPS: Final = 50_000
"""Steps one check of one value may take, however small the value. A step is one schema object
applied to one value in the compiled check (with the subschemas in it that have none of their own:
`_Compiler.compile`), about 50 ns; `jsonschema`'s work costs `JSONSCHEMA_STEPS` for each keyword it
applies to a value and each error it passes up, about 15 us (`_counted`). Checking a valid value took
67 of `jsonschema`'s units at most (1,340 steps) in the tests and the JSON-Schema-Test-Suite."""
STEPS_PER_VALUE: Final = 1_000
"""Steps a check may take for each value nested in what it checks (the value itself, each item, each
property's value), where that allows more than `MAX_CHECK_STEPS`: the work stays linear in what was
sent (a valid value took 5 steps per value at most in the compiled check, 2 of `jsonschema`'s units),
and a schema and a value that would take exponential time (alternatives naming each other, which
`jsonschema` works out again wherever it meets them) end in `CheckPastBudget` instead of holding
the event loop."""
JSONSCHEMA_STEPS: Final = 20
"""The steps one keyword `jsonschema` applies to one value (or one error it passes up) costs: it
takes some 300 times as long as a step of the compiled check, so this keeps its share of a budget
within about 35 ms, and 0.7 ms for each value, of work a value can cause."""


MAX_CHECKED_NESTING: Final = 64
"""How many arrays and objects one inside another `jsonschema` is given to follow: it spends some ten
frames of Python's stack on each level of a recursive schema, and ran out at about 110 (a Rust panic
in `rpds`, which no `except Exception` catches). A deeper value that the compiled check does not
pass is refused for its depth."""


class CheckPastBudget(Exception):
    """Checking one value took more steps than its budget (`MAX_CHECK_STEPS`, or `STEPS_PER_VALUE`
    for each value nested in it): no verdict, rather than work without end."""


class _Budget:
    """The steps one check of `value` has left, and the verdicts of references it has worked out."""

    __slots__ = ("grown", "left", "seen", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.left = MAX_CHECK_STEPS
        self.grown = False
        self.seen: dict[tuple[str, int], tuple[Any, bool]] = {}

    def spend_more(self) -> None:
        """Called when the steps run out: once, grow them to `STEPS_PER_VALUE` for each value nested in
        the checked one; then raise `CheckPastBudget`."""
        if not self.grown:
            self.grown = True
            self.left += STEPS_PER_VALUE * _values_in(self.value) - MAX_CHECK_STEPS
            if self.left >= 0:
                return
        allowed = max(MAX_CHECK_STEPS, STEPS_PER_VALUE * _values_in(self.value))
        raise CheckPastBudget(
            f"checking it took more than {allowed:,} steps ({STEPS_PER_VALUE:,} for each value in it, "
            f"{MAX_CHECK_STEPS:,} at least), more work than a check may take"
        )


_BUDGET: ContextVar[_Budget] = ContextVar("_BUDGET")
"""The running check's budget: a context variable, so checks in other threads keep their own."""


def _within_budget(check: Callable[[Any], T], value: Any) -> T:
    """`check(value)` with a fresh `_Budget` for `value` (`CheckPastBudget` when it runs out)."""
    token = _BUDGET.set(_Budget(value))
    try:
        return check(value)
    finally:
        _BUDGET.reset(token)


def _values_in(value: Any) -> int:
    """How many values `value` holds, itself included (each item, each property's value)."""
    count, pending = 0, [value]
    while pending:
        item = pending.pop()
        count += 1
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return count


class _Compiler:
    """Turns one JSON Schema (2020-12) into a predicate made of closures: `keyword_<name>` compiles
    the keyword `<name>` (`$ref` is `keyword_ref`); a keyword without one is an annotation."""

    def __init__(self, root: Any, counted: bool) -> None:
        self.root = root
        self.counted = counted
        """Whether each check spends a step of the running check's `_Budget` (`compile`)."""
        self.references: dict[str, Check] = {}
        self.leaves = 0
        """The schemas without subschemas compiled since the enclosing one began (`compile`)."""

    def compile(self, schema: Any) -> Check:
        """The schema's check; when `counted`, it spends steps of the running check's `_Budget` each
        time it is applied: every schema object a value meets costs one step. One without subschemas
        (a leaf: `{"type": "string"}`) is paid for by the schema it is in, which spends a step for
        each of its leaves besides its own, so leaves cost no call of their own."""
        if schema is True or schema == {}:
            return lambda value: True
        if schema is False:
            return lambda value: False
        if not isinstance(schema, dict):
            raise _NotCompiled("a schema that is neither an object nor a boolean")
        if not self.counted:
            return self._uncounted(schema)
        if "$ref" not in schema and not any(
            keyword in _SCHEMA_MAPS or keyword in SCHEMA_LISTS or keyword in SCHEMA_VALUES
            for keyword in schema
        ):
            self.leaves += 1
            return self._uncounted(schema)
        enclosing, self.leaves = self.leaves, 0
        check = self._uncounted(schema)
        steps, self.leaves = 1 + self.leaves, enclosing

        def counted(value: Any) -> bool:
            budget = _BUDGET.get()
            budget.left -= steps
            if budget.left < 0:
                budget.spend_more()
            return check(value)

        return counted

    def _uncounted(self, schema: dict[str, Any]) -> Check:
        checks: list[Check] = []
        fused: frozenset[str] = frozenset()
        if schema.get("type") == "object" and ("properties" in schema or "required" in schema):
            checks.append(self._object(schema.get("properties", {}), schema.get("required", ())))
            fused = _OBJECT_KEYWORDS
        for keyword, argument in schema.items():
            if keyword in _NOT_COMPILED_KEYWORDS or (
                keyword in _NOT_COMPILED and schema is not self.root
            ):
                raise _NotCompiled(keyword)
            if keyword in _ANNOTATIONS or keyword in _NOT_COMPILED or keyword in fused:
                continue
            method = getattr(self, "keyword_" + keyword.removeprefix("$"), None)
            if method is not None:
                checks.append(method(argument, schema))
        if not checks:
            return lambda value: True
        if len(checks) == 1:
            return checks[0]
        return _every(tuple(checks))

    def _object(self, properties: Any, names: Any) -> Check:
        """`type: object` with its `properties` and `required` in one check: the shape of nearly every
        tool's schema, checked on every call, costs one function call instead of four."""
        checks = tuple((name, self.compile(inner)) for name, inner in properties.items())
        required = tuple(names)

        def object_fits(value: Any) -> bool:
            if not isinstance(value, dict):
                return False
            for name, check in checks:
                if name in value and not check(value[name]):
                    return False
            for name in required:  # a loop costs half of all() over a generator
                if name not in value:
                    return False
            return True

        return object_fits

    def keyword_ref(self, reference: Any, schema: Any) -> Check:
        if not isinstance(reference, str) or not (reference == "#" or reference.startswith("#/")):
            raise _NotCompiled("a reference by anchor or outside the schema")
        if reference not in self.references:
            self.references[reference] = lambda value: (
                False
            )  # a cycle sees the final check through the dict
            self.references[reference] = self.compile(_pointed(self.root, reference))
        references = self.references

        def follow(value: Any) -> bool:
            """The reference's verdict on `value`, worked out once per check: a schema whose
            alternatives each name it again (`anyOf: [{$ref}, {$ref}]`) would otherwise apply it to
            a value once per way down to it, 2**depth times."""
            if not isinstance(value, dict | list):
                return references[reference](value)  # a scalar has no way down
            seen = _BUDGET.get().seen
            key = (reference, id(value))
            known = seen.get(key)
            if known is not None and known[0] is value:  # the value is held, so its id is its own
                return known[1]
            fits = references[reference](value)
            seen[key] = (value, fits)
            return fits

        return follow

    def keyword_type(self, names: Any, schema: Any) -> Check:
        names = [names] if isinstance(names, str) else names
        tests = tuple(_TYPES[name] for name in [*names, *(["null"] if _nullable(schema) else [])])
        if len(tests) == 1:
            return tests[0]
        return lambda value: any(test(value) for test in tests)

    def keyword_enum(self, values: Any, schema: Any) -> Check:
        keys = frozenset(_json_key(value) for value in values)
        return lambda value: _json_key(value) in keys

    def keyword_const(self, constant: Any, schema: Any) -> Check:
        key = _json_key(constant)
        return lambda value: _json_key(value) == key

    def keyword_minimum(self, limit: Any, schema: Any) -> Check:
        _number(limit)
        return lambda value: type(value) not in _NUMBERS or value >= limit

    def keyword_maximum(self, limit: Any, schema: Any) -> Check:
        _number(limit)
        return lambda value: type(value) not in _NUMBERS or value <= limit

    def keyword_exclusiveMinimum(self, limit: Any, schema: Any) -> Check:
        _number(limit)
        return lambda value: type(value) not in _NUMBERS or value > limit

    def keyword_exclusiveMaximum(self, limit: Any, schema: Any) -> Check:
        _number(limit)
        return lambda value: type(value) not in _NUMBERS or value < limit

    def keyword_multipleOf(self, divisor: Any, schema: Any) -> Check:
        if not isinstance(divisor, int) or isinstance(divisor, bool):
            raise _NotCompiled(
                "a fractional multipleOf"
            )  # float arithmetic is jsonschema's to get right
        return lambda value: (
            not _is_number(value) or (isinstance(value, int) and value % divisor == 0)
        )

    def _size(
        self, limit: Any, kind: type[str | list[Any] | dict[str, Any]], at_least: bool
    ) -> Check:
        if at_least:
            return lambda value: not isinstance(value, kind) or len(value) >= limit
        return lambda value: not isinstance(value, kind) or len(value) <= limit

    def keyword_minLength(self, limit: Any, schema: Any) -> Check:
        return self._size(limit, str, True)

    def keyword_maxLength(self, limit: Any, schema: Any) -> Check:
        return self._size(limit, str, False)

    def keyword_minItems(self, limit: Any, schema: Any) -> Check:
        return self._size(limit, list, True)

    def keyword_maxItems(self, limit: Any, schema: Any) -> Check:
        return self._size(limit, list, False)

    def keyword_minProperties(self, limit: Any, schema: Any) -> Check:
        return self._size(limit, dict, True)

    def keyword_maxProperties(self, limit: Any, schema: Any) -> Check:
        return self._size(limit, dict, False)

    def keyword_pattern(self, pattern: Any, schema: Any) -> Check:
        _text(pattern)
        return lambda value: not isinstance(value, str) or _matches(pattern, value) is not False

    def keyword_uniqueItems(self, unique: Any, schema: Any) -> Check:
        if unique is not True:
            return lambda value: True
        return lambda value: (
            not isinstance(value, list) or len({_json_key(item) for item in value}) == len(value)
        )

    def keyword_required(self, names: Any, schema: Any) -> Check:
        required = tuple(names)

        def required_fit(value: Any) -> bool:
            if isinstance(value, dict):
                for name in required:
                    if name not in value:
                        return False
            return True

        return required_fit

    def keyword_dependentRequired(self, dependencies: Any, schema: Any) -> Check:
        pairs = tuple((name, tuple(needed)) for name, needed in dependencies.items())
        return lambda value: (
            not isinstance(value, dict)
            or all(
                all(other in value for other in needed) for name, needed in pairs if name in value
            )
        )

    def keyword_dependentSchemas(self, dependencies: Any, schema: Any) -> Check:
        pairs = tuple((name, self.compile(inner)) for name, inner in dependencies.items())
        return lambda value: (
            not isinstance(value, dict)
            or all(check(value) for name, check in pairs if name in value)
        )

    def keyword_properties(self, properties: Any, schema: Any) -> Check:
        checks = tuple((name, self.compile(inner)) for name, inner in properties.items())

        def properties_fit(value: Any) -> bool:
            if isinstance(value, dict):
                for name, check in checks:
                    if name in value and not check(value[name]):
                        return False
            return True

        return properties_fit

    def keyword_patternProperties(self, patterns: Any, schema: Any) -> Check:
        checks = tuple((pattern, self.compile(inner)) for pattern, inner in patterns.items())
        return lambda value: (
            not isinstance(value, dict)
            or all(
                check(item)
                for name, item in value.items()
                for pattern, check in checks
                if _matches(pattern, name)
            )
        )

    def keyword_additionalProperties(self, extra: Any, schema: Any) -> Check:
        declared = frozenset(schema.get("properties", {}))
        patterns = tuple(schema.get("patternProperties", {}))
        check = self.compile(extra)

        def additional_fit(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for name, item in value.items():
                if name in declared or _matched_by_any(patterns, name):
                    continue
                if not check(item):
                    return False
            return True

        return additional_fit

    def keyword_propertyNames(self, names: Any, schema: Any) -> Check:
        check = self.compile(names)
        return lambda value: not isinstance(value, dict) or all(check(name) for name in value)

    def keyword_prefixItems(self, prefix: Any, schema: Any) -> Check:
        checks = tuple(self.compile(inner) for inner in prefix)
        return lambda value: (
            not isinstance(value, list)
            or all(check(item) for check, item in zip(checks, value, strict=False))
        )

    def keyword_items(self, items: Any, schema: Any) -> Check:
        start = len(schema.get("prefixItems", ()))
        check = self.compile(items)
        return lambda value: (
            not isinstance(value, list) or all(check(item) for item in value[start:])
        )

    def keyword_contains(self, contains: Any, schema: Any) -> Check:
        check = self.compile(contains)
        least, most = schema.get("minContains", 1), schema.get("maxContains")

        def contains_fit(value: Any) -> bool:
            if not isinstance(value, list):
                return True
            matches = sum(1 for item in value if check(item))
            return matches >= least and (most is None or matches <= most)

        return contains_fit

    def keyword_allOf(self, branches: Any, schema: Any) -> Check:
        return _every(tuple(self.compile(branch) for branch in branches))

    def keyword_anyOf(self, branches: Any, schema: Any) -> Check:
        checks = tuple(self.compile(branch) for branch in branches)
        return lambda value: any(check(value) for check in checks)

    def keyword_oneOf(self, branches: Any, schema: Any) -> Check:
        checks = tuple(self.compile(branch) for branch in branches)
        return lambda value: sum(1 for check in checks if check(value)) == 1

    def keyword_not(self, negated: Any, schema: Any) -> Check:
        check = self.compile(negated)
        return lambda value: not check(value)

    def keyword_if(self, condition: Any, schema: Any) -> Check:
        test = self.compile(condition)
        then = self.compile(schema.get("then", True))
        otherwise = self.compile(schema.get("else", True))
        return lambda value: then(value) if test(value) else otherwise(value)


def _every(checks: tuple[Check, ...]) -> Check:
    if len(checks) == 2:  # the commonest case (a type and one bound), without the loop
        first, second = checks
        return lambda value: first(value) and second(value)

    def every_fits(value: Any) -> bool:
        for check in checks:  # a loop costs half of all() over a generator
            if not check(value):
                return False
        return True

    return every_fits


def _text(pattern: Any) -> None:
    if not isinstance(pattern, str):
        raise _NotCompiled("a pattern that is not a string")


PATTERN_TEXT_LIMIT: Final = 100_000
"""The longest string (or property name) checked against a `pattern` (or `patternProperties`) here;
a longer one is left to the server, so no check costs more than one linear pass over this many characters."""


@functools.lru_cache(maxsize=1024)
def _linear_regex(pattern: str) -> Any:
    """A matcher for a server-chosen pattern in pydantic-core's Rust engine, whose time is linear in
    the text (Python's `re` backtracks: `^(a+)+$` takes years on 41 characters, holding the event
    loop), or None for a pattern that engine cannot compile (lookaround, backreferences): the server
    checks that one."""
    from pydantic_core import CoreConfig, SchemaError, SchemaValidator, core_schema

    try:
        return SchemaValidator(
            core_schema.str_schema(pattern=pattern), CoreConfig(regex_engine="rust-regex")
        )
    except SchemaError:
        return None


def _matches(pattern: str, text: str) -> bool | None:
    """Whether `pattern` matches somewhere in `text` (as JSON Schema reads a pattern), or None when it is
    not checked here: a pattern the Rust engine cannot compile, a text past `PATTERN_TEXT_LIMIT`, or
    one that is not valid Unicode (a lone surrogate, which the engine cannot take)."""
    matcher = _linear_regex(pattern)
    if matcher is None or len(text) > PATTERN_TEXT_LIMIT:
        return None
    if matcher.isinstance_python(text):
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return None
    return False


def _nullable(schema: Any) -> bool:
    """OpenAPI's `nullable: true` beside a `type`, which admits `null` too: servers built from OpenAPI
    descriptions and on ajv (Redocly's TypeScript SDK) list it and take a null, and the generated
    types (`int | None`) and `drift` read it so; a JSON Schema validator alone would refuse the null."""
    return isinstance(schema, dict) and schema.get("nullable") is True


def _matched_by_any(patterns: Iterable[str], name: str) -> bool:
    """Whether a property name is one `patternProperties` may cover (one an unchecked pattern may match
    counts: the server judges it), so `additionalProperties` does not apply to it."""
    return any(_matches(pattern, name) is not False for pattern in patterns)


MAX_NODES: Final = 10_000
"""Most schema objects a schema may stand for once its references are followed (a recursive reference
counted once): the one work budget, `generate`'s (through `codegen.schemas`) and the runtime's for the
schemas a live server lists. The largest of datamodel-code-generator's 490 test schemas stands for a
few hundred; a fan-out of references (each definition naming the next one twice) stands for 2**n
objects: 12 definitions took datamodel-code-generator 30 seconds (16: hours), and checking a value
against 17 held the event loop for 20 s, each one more doubling it."""
MAX_REF_DEPTH: Final = 100
"""Most references followed one inside another: well above any real schema's nesting, and low enough
that following them never reaches Python's recursion limit."""

# mcp-stubgen's JSON Schema vocabulary, one list for the runtime and the generator: `codegen.schemas`
# imports these sets (the generator may import the runtime; the runtime imports nothing of it).
DEFINITIONS: Final = ("$defs", "definitions")
"""Keywords whose value maps names to schemas that apply only where a reference names them."""
SCHEMA_MAPS: Final = frozenset(
    {"properties", "patternProperties", *DEFINITIONS, "dependentSchemas", "dependencies"}
)
"""Keywords whose value maps names (never keywords themselves) to schemas."""
SCHEMA_LISTS: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
"""Keywords whose value is a list of schemas (`items` only up to draft 2019-09)."""
SCHEMA_VALUES: Final = frozenset(
    {"items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties",
     "not", "if", "then", "else", "contains", "propertyNames", "contentSchema"}
)  # fmt: skip
"""Keywords whose value is one schema."""
DATA_KEYWORDS: Final = frozenset({"const", "enum", "examples", "default", "example"})
"""Keywords whose value is instance data, where a `$ref` key is just data."""
VALUE_KEYWORDS: Final = frozenset(
    {"$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
     "$comment", "$vocabulary", "type", "format", "pattern", "required", "dependentRequired",
     "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
     "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
     "title", "description", "deprecated", "readOnly", "writeOnly", "contentEncoding", "contentMediaType",
     "nullable"}
)  # fmt: skip
"""Keywords whose value is a name, a number, a flag or a list of names: no schema inside."""
KEYWORDS: Final = SCHEMA_MAPS | SCHEMA_LISTS | SCHEMA_VALUES | DATA_KEYWORDS | VALUE_KEYWORDS
"""JSON Schema's own keywords (drafts 4 to 2020-12, but `$id`) and OpenAPI's `nullable`."""
ID_KEYWORDS: Final = frozenset({"$id", "id"})
"""Keywords naming a schema's base URI (`id` up to draft 4): its references are resolved against it."""
_SCHEMA_MAPS = SCHEMA_MAPS - frozenset(DEFINITIONS)
"""The maps of schemas a validator applies where they are (definitions apply where referenced)."""

SchemaPath = tuple[str | int, ...]
"""A JSON pointer as its parts."""


class PastBudget(Exception):
    """The schema stands for more work than `MAX_NODES` / `MAX_REF_DEPTH` allow; `path` is where it
    went over (the first subschema found to stand for too much, or the reference followed too deep)."""

    def __init__(self, path: SchemaPath, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


def expanded_size(schema: Any) -> int:
    """How many schema objects `schema` stands for once its `#`/`#/...` references are followed
    (`_measure`); raises `PastBudget`."""
    return _measure(schema)[0]


def _measure(schema: Any) -> tuple[int, bool]:
    """How many schema objects `schema` stands for once its `#`/`#/...` references are followed, each
    reference's target counted once per place it is referenced from and a recursive one not again, in
    time linear in the schema, and whether it has references the checks follow; raises `PastBudget`.
    Only what a validator applies counts: definitions count where they are referenced, and an unknown
    keyword is an annotation, so a `$ref` inside one is never followed (JSON Schema 2020-12, 6.5)."""
    sizes: dict[str, int] = {}

    def size(node: Any, path: SchemaPath, following: tuple[str, ...]) -> int:
        if not isinstance(node, dict):
            return 0
        total = 1
        for keyword, value in node.items():
            if keyword in _SCHEMA_MAPS and isinstance(value, dict):
                total += sum(
                    size(inner, (*path, keyword, name), following) for name, inner in value.items()
                )
            elif keyword in SCHEMA_LISTS and isinstance(value, list):
                total += sum(
                    size(inner, (*path, keyword, index), following)
                    for index, inner in enumerate(value)
                )
            elif keyword in SCHEMA_VALUES:
                total += size(value, (*path, keyword), following)
        reference = node.get("$ref")
        if not isinstance(reference, str) or not (reference == "#" or reference.startswith("#/")):
            reference = None  # none, or one the checks never follow
        if reference is not None and reference not in following:
            if reference not in sizes:
                if len(following) >= MAX_REF_DEPTH:
                    raise PastBudget(
                        path, f"follows more than {MAX_REF_DEPTH} references one inside another"
                    )
                try:
                    target = _pointed(schema, reference)
                except _NotCompiled:  # a reference to nothing: the check says so
                    target = None
                sizes[reference] = size(target, _pointer_parts(reference), (*following, reference))
            total += sizes[reference]
        if total > MAX_NODES:
            raise PastBudget(
                path,
                f"stands for more than {MAX_NODES:,} schema objects once its references are followed",
            )
        return total

    try:
        return size(schema, (), ()), bool(sizes)
    except RecursionError:
        raise PastBudget((), "nests schemas too deeply to follow") from None


def _pointer_parts(reference: str) -> SchemaPath:
    """The parts of a `#` or `#/...` reference, a list's index as a number."""
    parts = [
        part.replace("~1", "/").replace("~0", "~") for part in unquote(reference[1:]).split("/")[1:]
    ]
    return tuple(int(part) if part.isdigit() else part for part in parts)


def past_budget(schema: Any) -> str | None:
    """Why checking a value against `schema` could take more work than `generate` allows a schema
    (`expanded_size`), or None: a snapshot's schema is never past it, as `generate` leaves such a
    schema to the server."""
    try:
        expanded_size(schema)
    except PastBudget as error:
        return error.reason
    return None


TOOL_SCHEMAS = ("inputSchema", "outputSchema")
"""The members of a tool's wire form that are JSON Schemas."""


def canonical_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """`tool` (its wire form) with its schemas' sets of names in one order (`sorted_name_sets`) and
    no icon of the server's machine (`without_local_icons`): the form a snapshot stores and a tool's
    fingerprint hashes. The same object when nothing moves."""
    tool = without_local_icons(tool)
    schemas = {key: sorted_name_sets(tool[key]) for key in TOOL_SCHEMAS if key in tool}
    if all(schema is tool[key] for key, schema in schemas.items()):
        return tool
    return {**tool, **schemas}


def without_local_icons(entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` (a tool, resource, template or prompt, or the server's info) without the icons whose
    `src` is a `file:` URL: a path on the machine the server runs on (ebay-mcp names its npx cache
    folder in the user's home), which no other machine can load, would make the snapshot differ
    between machines, and would put that path in a committed file. An `icons` list left empty is
    left out. The same object when no icon goes."""
    icons = entry.get("icons")
    if type(icons) is not list:
        return entry
    kept = [icon for icon in icons if not _is_local_icon(icon)]
    if len(kept) == len(icons):
        return entry
    trimmed = {key: value for key, value in entry.items() if key != "icons"}
    if kept:
        trimmed["icons"] = kept
    return trimmed


def _is_local_icon(icon: Any) -> bool:
    src = icon.get("src") if type(icon) is dict else None
    return type(src) is str and src.lstrip()[:5].lower() == "file:"


def sorted_name_sets(schema: Any) -> Any:
    """`schema` with every list of property names JSON Schema reads as a set sorted: `required`, and
    each list of `dependentRequired` and draft-07 `dependencies`. A server that builds them from a set
    lists them in another order on each start (a Python server's follows its hash seed), and that is
    no change. Only keywords are sorted, where mcp-stubgen's walker (`codegen.schemas.walk`) finds
    schemas: never instance data (`const`, `enum`, `default`...), an unknown keyword's value, or a
    property that is named `required`. Shares what it leaves alone with `schema`, and copies nothing
    when nothing moves: a snapshot of a thousand tools is read through it on every run."""

    def walked(node: Any, definition: bool) -> Any:
        if isinstance(node, list):
            copied: list[Any] | None = None
            for index, item in enumerate(node):
                if isinstance(item, dict | list):
                    new = walked(item, False)
                    if new is not item:
                        copied = list(node) if copied is None else copied
                        copied[index] = new
            return node if copied is None else copied
        if definition and node and not any(key in KEYWORDS or key in ID_KEYWORDS for key in node):
            return entries(node, True)  # a namespace of further definitions
        result = node
        for key, value in node.items():
            new = _sorted_names(key, value) if key in _NAME_KEYWORDS else value
            if key in _SCHEMA_HOLDERS and isinstance(new, dict | list):
                if key in SCHEMA_MAPS and isinstance(new, dict):
                    new = entries(new, key in DEFINITIONS)
                else:
                    new = walked(new, False)
            if new is not value:
                result = dict(node) if result is node else result
                result[key] = new
        return result

    def entries(mapping: dict[str, Any], definition: bool) -> dict[str, Any]:
        result = mapping
        for name, inner in mapping.items():
            if isinstance(inner, dict | list):
                new = walked(inner, definition)
                if new is not inner:
                    result = dict(mapping) if result is mapping else result
                    result[name] = new
        return result

    return walked(schema, False) if isinstance(schema, dict | list) else schema


_NAME_KEYWORDS = frozenset({"required", "dependentRequired", "dependencies"})
_SCHEMA_HOLDERS = SCHEMA_MAPS | SCHEMA_LISTS | SCHEMA_VALUES
"""Keywords whose value holds schemas: in a list, in a map of names, or as one."""


def _sorted_names(keyword: str, value: Any) -> Any:
    """`required`'s list of names sorted, or each list in the map of `dependentRequired` or
    `dependencies`: the value itself when nothing moves or a list holds something but names."""
    if keyword != "required":
        if not isinstance(value, dict):
            return value
        result = value
        for name, names in value.items():
            new = _sorted_names("required", names)
            if new is not names:
                result = dict(value) if result is value else result
                result[name] = new
        return result
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        return value
    ordered = sorted(value)
    return value if ordered == value else ordered


class SchemaCheck:
    """One schema's check: the compiled predicate when there is one, `jsonschema` for the verdict
    whenever the predicate says no (or does not exist) and for the message. A schema `past_budget`
    is applied to nothing: each check says why, at once."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.fast: Check | None = None
        self.refused: ValueError | None = None
        """Why the schema is applied to nothing (`past_budget`), or None."""
        try:
            objects, follows_references = _measure(schema)
        except PastBudget as error:
            self.refused = ValueError(f"the schema {error.reason}")
            return
        dialect = (
            schema.get("$schema", _DIALECT_2020_12)
            if isinstance(schema, dict)
            else _DIALECT_2020_12
        )
        if dialect.rstrip("#") == _DIALECT_2020_12:
            # Without references each schema object meets each value once at most, so a schema
            # of at most `STEPS_PER_VALUE` objects is within any budget: it is checked uncounted.
            counted = follows_references or objects > STEPS_PER_VALUE
            try:
                root = _Compiler(schema, counted).compile(schema)
                self.fast = functools.partial(_within_budget, root) if counted else root
            except (_NotCompiled, KeyError, TypeError, AttributeError):
                self.fast = None  # an odd schema: jsonschema knows how to treat it

    def problem(self, value: Any) -> Any:
        """None when the value fits the schema, else `jsonschema`'s best error (or a crash's message);
        `CheckPastBudget` when either check runs out of steps."""
        try:
            if self.fast is not None and self.fast(value):
                return None
        except (
            RecursionError
        ):  # a `$ref` cycle that never reaches a type (`jsonschema` crashes on it too)
            pass
        return self.verdict(value)

    def verdict(self, value: Any) -> Any:
        """`jsonschema`'s best error for a value the fast check refused or could not check (None if it fits)."""
        if self.refused is not None:
            return self.refused
        jsonschema: Any = importlib.import_module(
            "jsonschema"
        )  # untyped, and loaded only when needed
        try:
            return jsonschema.exceptions.best_match(self.validator.iter_errors(value))
        except CheckPastBudget:
            raise
        except RecursionError as error:  # a `$ref` cycle that never reaches a type
            return error
        # A schema jsonschema cannot apply (a bad pattern, an unknown type).
        except Exception as error:  # noqa: BLE001
            return None if self.fast is None else error

    @functools.cached_property
    def validator(self) -> _BudgetedValidator:
        """The `jsonschema` validator of `verdict`, for every error of a value: a `$ref` to nothing
        in the schema passes the value at its place, which is the server's to judge, and the rest
        is checked (a hub's catalog keeps such a reference as the server listed it)."""
        return offline_validator(self.schema, pass_unresolved=True)


def offline_validator(schema: Any, *, pass_unresolved: bool = False) -> _BudgetedValidator:
    """A `jsonschema` validator for the schema's dialect (2020-12 when it names none) that resolves
    references within the schema only: `jsonschema`'s default fetches any URL a `$ref` names. Its
    patterns run in linear time (`_linear_keywords`), and each `iter_errors` within a step budget.
    A `$ref` to nothing in the schema raises `Unresolvable` when a value reaches it, or with
    `pass_unresolved` passes the value there."""
    jsonschema: Any = importlib.import_module("jsonschema")  # untyped, and loaded only when needed
    registry = importlib.import_module(
        "referencing"
    ).Registry()  # the dialects' metaschemas are added to it
    dialect = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    keywords = _linear_keywords(dialect, pass_unresolved)
    return _BudgetedValidator(keywords(schema, registry=registry))


class _BudgetedValidator:
    """A `jsonschema` validator whose `iter_errors` works within a `_Budget`: `jsonschema` works out
    each alternative again wherever it meets it, so a schema whose alternatives name each other
    costs it 2**depth steps on a deep value that fits none of them."""

    def __init__(self, validator: Any) -> None:
        self.validator = validator

    def iter_errors(self, instance: Any) -> Iterator[Any]:
        """Every error of `instance`, all found on the first `next` (`CheckPastBudget` when the steps
        run out), where `jsonschema`'s own raises what it raises (an unresolvable `$ref`); one error
        for a value nested past `MAX_CHECKED_NESTING`, which `jsonschema` is not given."""
        if _nested_past(instance, MAX_CHECKED_NESTING):
            jsonschema: Any = importlib.import_module("jsonschema")
            yield jsonschema.ValidationError(
                f"it nests arrays and objects more than {MAX_CHECKED_NESTING} levels deep, "
                "deeper than the schema check follows"
            )
            return
        yield from _within_budget(lambda value: list(self.validator.iter_errors(value)), instance)


def _nested_past(value: Any, limit: int) -> bool:
    """Whether `value` holds arrays and objects more than `limit` levels one inside another."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return False


@functools.cache
def _linear_keywords(dialect: Any, pass_unresolved: bool) -> Any:
    """`dialect` with each keyword that applies a server-chosen regular expression (`pattern`,
    `patternProperties`, and `additionalProperties` and 2020-12's `unevaluatedProperties`, which
    skip the names `patternProperties` covers) matching through `_matches`, in linear time. A match
    `_matches` leaves open never makes a refusal. The same messages as `jsonschema`'s own. And `type`
    takes the `null` OpenAPI's `nullable` admits (`_nullable`), as the fast check does. `multipleOf`
    stays exact past a float's range (`multiple_of`). With `pass_unresolved`, a `$ref` to nothing in
    the schema passes only the value at its place (`reference`), where its `Unresolvable` ended the
    whole check."""
    jsonschema: Any = importlib.import_module("jsonschema")
    error = jsonschema.ValidationError
    unresolvable = importlib.import_module("referencing.exceptions").Unresolvable

    def fits(errors: Iterator[Any]) -> bool:
        return next(errors, None) is None

    def pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and _matches(pattern, instance) is False:
            yield error(f"{instance!r} does not match {pattern!r}")

    def pattern_properties(
        validator: Any, patterns: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        if validator.is_type(instance, "object"):
            for pattern, inner in patterns.items():
                for name, item in instance.items():
                    if _matches(pattern, name):
                        yield from validator.descend(item, inner, path=name, schema_path=pattern)

    def additional_properties(
        validator: Any, extra: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        declared, patterns = (
            schema.get("properties", {}),
            tuple(schema.get("patternProperties", {})),
        )
        extras = sorted(
            name
            for name in instance
            if name not in declared and not _matched_by_any(patterns, name)
        )
        if validator.is_type(extra, "object"):
            for name in extras:
                yield from validator.descend(instance[name], extra, path=name)
        elif not extra and extras:
            names, verb = ", ".join(map(repr, extras)), "was" if len(extras) == 1 else "were"
            if patterns:
                verb = "does" if len(extras) == 1 else "do"
                yield error(
                    f"{names} {verb} not match any of the regexes: {', '.join(map(repr, sorted(patterns)))}"
                )
            else:
                yield error(f"Additional properties are not allowed ({names} {verb} unexpected)")

    def evaluated(validator: Any, instance: Any, schema: Any) -> set[str]:
        """The names of `instance` that `schema` evaluates, as `jsonschema`'s
        `find_evaluated_property_keys_by_schema` finds them."""
        if validator.is_type(schema, "boolean"):
            return set()
        names: set[str] = set()
        for keyword in ("$ref", "$dynamicRef"):
            if (reference := schema.get(keyword)) is not None:
                try:
                    resolved = validator._resolver.lookup(reference)
                except unresolvable:
                    if pass_unresolved:  # the value there is the server's to judge (`reference`)
                        continue
                    raise
                scoped = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
                names |= evaluated(scoped, instance, resolved.contents)
        if validator.is_type(properties := schema.get("properties"), "object"):
            names |= properties.keys() & instance.keys()
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            if (inner := schema.get(keyword)) is not None:
                names.update(
                    name for name, item in instance.items() if fits(validator.descend(item, inner))
                )
        names.update(
            name
            for name in instance
            if _matched_by_any(tuple(schema.get("patternProperties", ())), name)
        )
        for name, inner in schema.get("dependentSchemas", {}).items():
            if name in instance:
                names |= evaluated(validator, instance, inner)
        for keyword in ("allOf", "oneOf", "anyOf"):
            for inner in schema.get(keyword, []):
                if fits(validator.descend(instance, inner)):
                    names |= evaluated(validator, instance, inner)
        if "if" in schema:
            if validator.evolve(schema=schema["if"]).is_valid(instance):
                names |= evaluated(validator, instance, schema["if"]) | evaluated(
                    validator, instance, schema.get("then", {})
                )
            else:
                names |= evaluated(validator, instance, schema.get("else", {}))
        return names

    def unevaluated_properties(
        validator: Any, unevaluated: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        seen = evaluated(validator, instance, schema)
        wrong = [
            name
            for name, item in instance.items()
            if name not in seen
            and not fits(validator.descend(item, unevaluated, path=name, schema_path=name))
        ]
        if wrong:
            verb = "was" if len(wrong) == 1 else "were"
            if unevaluated is False:
                names = ", ".join(map(repr, sorted(wrong)))
                yield error(f"Unevaluated properties are not allowed ({names} {verb} unexpected)")
            else:
                names = ", ".join(map(repr, wrong))
                yield error(
                    f"Unevaluated properties are not valid under the given schema ({names} {verb} unevaluated and invalid)"
                )

    def reference(validator: Any, reference: Any, instance: Any, schema: Any) -> Iterator[Any]:
        """`jsonschema`'s own for a reference the schema resolves; one to nothing in it (`#nope`, a
        URL, never fetched) passes the value at that place, which is the server's to judge."""
        try:
            validator._resolver.lookup(reference)
        except unresolvable:
            return
        yield from dialect.VALIDATORS["$ref"](validator, reference, instance, schema)

    def multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
        """`jsonschema`'s own, worked out exactly where it divides into a float that overflows (an
        integer of 400 digits over 0.01, taken as the decimal the schema wrote): its `OverflowError`
        made the check pass the whole value."""
        try:
            yield from list(dialect.VALIDATORS["multipleOf"](validator, divisor, instance, schema))
        except OverflowError:
            if Fraction(instance) % Fraction(repr(divisor)) != 0:
                yield error(f"{instance!r} is not a multiple of {divisor}")

    def type_or_null(validator: Any, names: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if instance is not None or not _nullable(schema):
            yield from dialect.VALIDATORS["type"](validator, names, instance, schema)

    replaced = {
        **({"$ref": reference} if pass_unresolved else {}),
        "multipleOf": multiple_of,
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
        "type": type_or_null,
    }
    if (
        dialect.VALIDATORS.get("unevaluatedProperties")
        is jsonschema._keywords.unevaluatedProperties
    ):
        replaced["unevaluatedProperties"] = (
            unevaluated_properties  # 2019-09's differs; its own is kept
        )
    keywords = {
        **dialect.VALIDATORS,
        **{name: check for name, check in replaced.items() if name in dialect.VALIDATORS},
    }
    return jsonschema.validators.extend(
        dialect, {name: _counted(keyword) for name, keyword in keywords.items()}
    )


def _counted(keyword: Callable[[Any, Any, Any, Any], Any]) -> Callable[[Any, Any, Any, Any], Any]:
    """A `jsonschema` keyword that spends `JSONSCHEMA_STEPS` of the running check's `_Budget` each
    time it is applied, and as many for each error it passes on (`_BudgetedValidator`): an error
    found deep down is passed up through every keyword above it, and under alternatives that name
    each other there are 2**depth of them."""

    def apply(validator: Any, argument: Any, instance: Any, schema: Any) -> Any:
        _spend()
        errors = keyword(validator, argument, instance, schema)
        return None if errors is None else _charged(errors)

    return apply


def _charged(errors: Iterable[Any]) -> Iterator[Any]:
    for error in errors:
        _spend()
        yield error


def _spend() -> None:
    """`JSONSCHEMA_STEPS` of the running check's `_Budget`."""
    budget = _BUDGET.get()
    budget.left -= JSONSCHEMA_STEPS
    if budget.left < 0:
        budget.spend_more()
