"""The runtime's JSON Schema check: each schema compiled once into a predicate of closures, with
`jsonschema` giving the verdict and the message whenever the predicate says no (or cannot be made).

Copied verbatim into the output folder's `_mcp_runtime/` with the rest of the runtime; it imports only
the standard library, and `jsonschema` where it is used.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

Check = Callable[[Any], bool]

_DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_ANNOTATIONS = frozenset(
    {"$schema", "$comment", "$defs", "definitions", "title", "description", "default", "examples", "format",
     "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "contentSchema",
     "minContains", "maxContains", "then", "else"}
)  # fmt: skip
"""Keywords that never fail an instance by themselves (or are read by the keyword they belong to)."""

_OBJECT_KEYWORDS = frozenset({"type", "properties", "required"})
"""The keywords `_Compiler._object` checks together, for a schema whose `type` is `object`."""

_NOT_COMPILED = frozenset({"$dynamicRef", "$dynamicAnchor", "$anchor", "$id", "$recursiveRef", "$vocabulary"})
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
    "number": _is_number,
    "integer": lambda value: (
        (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())
    ),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}


class _Compiler:
    """Turns one JSON Schema (2020-12) into a predicate made of closures: `keyword_<name>` compiles
    the keyword `<name>` (`$ref` is `keyword_ref`); a keyword without one is an annotation."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.references: dict[str, Check] = {}

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return lambda value: True
        if schema is False:
            return lambda value: False
        if not isinstance(schema, dict):
            raise _NotCompiled("a schema that is neither an object nor a boolean")
        checks: list[Check] = []
        fused: frozenset[str] = frozenset()
        if schema.get("type") == "object" and ("properties" in schema or "required" in schema):
            checks.append(self._object(schema.get("properties", {}), schema.get("required", ())))
            fused = _OBJECT_KEYWORDS
        for keyword, argument in schema.items():
            if keyword in _NOT_COMPILED_KEYWORDS or (keyword in _NOT_COMPILED and schema is not self.root):
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
            for name in required:  # noqa: SIM110 - a loop costs half of all() over a generator
                if name not in value:
                    return False
            return True

        return object_fits

    def keyword_ref(self, reference: Any, schema: Any) -> Check:
        if not isinstance(reference, str) or not (reference == "#" or reference.startswith("#/")):
            raise _NotCompiled("a reference by anchor or outside the schema")
        if reference not in self.references:
            self.references[reference] = lambda value: False  # a cycle sees the final check through the dict
            self.references[reference] = self.compile(self._target(reference))
        references = self.references
        return lambda value: references[reference](value)

    def _target(self, reference: str) -> Any:
        node = self.root
        for part in unquote(reference[1:]).split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _NotCompiled(f"the reference {reference!r} points at nothing")
        return node

    def keyword_type(self, names: Any, schema: Any) -> Check:
        tests = tuple(_TYPES[name] for name in ([names] if isinstance(names, str) else names))
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
            raise _NotCompiled("a fractional multipleOf")  # float arithmetic is jsonschema's to get right
        return lambda value: not _is_number(value) or (isinstance(value, int) and value % divisor == 0)

    def _size(self, limit: Any, kind: type[str | list[Any] | dict[str, Any]], at_least: bool) -> Check:
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
        search = _regex(pattern).search
        return lambda value: not isinstance(value, str) or search(value) is not None

    def keyword_uniqueItems(self, unique: Any, schema: Any) -> Check:
        if unique is not True:
            return lambda value: True
        return lambda value: not isinstance(value, list) or len({_json_key(item) for item in value}) == len(value)

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
            or all(all(other in value for other in needed) for name, needed in pairs if name in value)
        )

    def keyword_dependentSchemas(self, dependencies: Any, schema: Any) -> Check:
        pairs = tuple((name, self.compile(inner)) for name, inner in dependencies.items())
        return lambda value: not isinstance(value, dict) or all(check(value) for name, check in pairs if name in value)

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
        checks = tuple((_regex(pattern).search, self.compile(inner)) for pattern, inner in patterns.items())
        return lambda value: (
            not isinstance(value, dict)
            or all(check(item) for name, item in value.items() for search, check in checks if search(name))
        )

    def keyword_additionalProperties(self, extra: Any, schema: Any) -> Check:
        declared = frozenset(schema.get("properties", {}))
        searches = tuple(_regex(pattern).search for pattern in schema.get("patternProperties", {}))
        check = self.compile(extra)

        def additional_fit(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for name, item in value.items():
                if name in declared or any(search(name) for search in searches):
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
            not isinstance(value, list) or all(check(item) for check, item in zip(checks, value, strict=False))
        )

    def keyword_items(self, items: Any, schema: Any) -> Check:
        start = len(schema.get("prefixItems", ()))
        check = self.compile(items)
        return lambda value: not isinstance(value, list) or all(check(item) for item in value[start:])

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
        for check in checks:  # noqa: SIM110 - a loop costs half of all() over a generator
            if not check(value):
                return False
        return True

    return every_fits


def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error:
        raise _NotCompiled(f"a pattern Python cannot compile: {pattern!r}") from None


class SchemaCheck:
    """One schema's check: the compiled predicate when there is one, `jsonschema` for the verdict
    whenever the predicate says no (or does not exist) and for the message."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.fast: Check | None = None
        dialect = schema.get("$schema", _DIALECT_2020_12) if isinstance(schema, dict) else _DIALECT_2020_12
        if dialect.rstrip("#") == _DIALECT_2020_12:
            try:
                self.fast = _Compiler(schema).compile(schema)
            except (_NotCompiled, KeyError, TypeError, AttributeError):
                self.fast = None  # an odd schema: jsonschema knows how to treat it
        self._validator: Any = None

    def problem(self, value: Any) -> Any:
        """None when the value fits the schema, else `jsonschema`'s best error (or a crash's message)."""
        if self.fast is not None and self.fast(value):
            return None
        return self.verdict(value)

    def verdict(self, value: Any) -> Any:
        """`jsonschema`'s best error for a value the fast check refused or could not check (None if it fits)."""
        jsonschema: Any = importlib.import_module("jsonschema")  # untyped, and loaded only when needed
        if self._validator is None:
            self._validator = offline_validator(self.schema)
        try:
            return jsonschema.exceptions.best_match(self._validator.iter_errors(value))
        except Exception as error:  # a schema jsonschema cannot apply (a bad pattern, an unknown type)
            return None if self.fast is None else error


def offline_validator(schema: Any) -> Any:
    """A `jsonschema` validator for the schema's dialect (2020-12 when it names none) that resolves
    references within the schema only: `jsonschema`'s default fetches any URL a `$ref` names."""
    jsonschema: Any = importlib.import_module("jsonschema")  # untyped, and loaded only when needed
    registry = importlib.import_module("referencing").Registry()  # the dialects' metaschemas are added to it
    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(
        schema, registry=registry
    )
