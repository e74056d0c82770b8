"""The runtime contract of a tool: what the generated client checks a call and its result against
(the tool's schemas without annotations, and its parameters' Python names), as compact JSON."""

from __future__ import annotations

import json
from typing import Any

from codegen.generate.spec import ToolSpec
from codegen.schemas import (
    ANNOTATIONS,
    DATA_KEYWORDS,
    ID_KEYWORDS,
    KEYWORDS,
    Document,
    Path,
    rebuilt,
)
from codegen.snapshot import JSON

__all__ = ["ANY_ARGUMENTS", "contract", "skips_sdk_output_check"]


def contract(tool: JSON, spec: ToolSpec) -> str:
    """What the runtime checks a call against: the tool's schemas as the snapshot holds them, and each
    keyword parameter's Python name by wire name (for its messages), as compact ASCII JSON.

    An untyped tool's references to nothing or outside its schema are left out (`without_unresolved`):
    the runtime never fetches one nor fails on one, and the server judges that value. Its schema left
    to the server (`ToolSpec.left_to_server`: invalid, or past the work budget) is left out whole: the
    runtime could not apply it. When its output schema is either, `skip_sdk_output_check` tells the
    runtime to skip the SDK's check of the result, which would fail (or be refused) on every result.
    A typed tool's output schema that gave no type (`ToolSpec.untyped_output`) is treated so too."""
    keywords = spec.parameters if spec.input_kind == "keywords" else ()

    def rules(key: str, left: Any) -> Any:
        schema = tool[key]
        if not _untyped(spec, key):
            return _for_validation(schema)
        if key in spec.left_to_server:
            return left
        return _for_validation(Document.of(schema).without_unresolved())

    document: JSON = {
        "input": rules("inputSchema", ANY_ARGUMENTS),
        "parameters": {parameter.wire: parameter.python for parameter in keywords},
    }
    if "outputSchema" in tool:
        document["output"] = rules("outputSchema", {})
        if skips_sdk_output_check(tool, spec):
            document["skip_sdk_output_check"] = True
    headers = _mirrored_headers(tool["inputSchema"])
    if headers:
        document["headers"] = headers
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text.replace("'", "\\u0027")  # one kind of quote: the literal is then the one black keeps


def skips_sdk_output_check(tool: JSON, spec: ToolSpec) -> bool:
    """Whether calls skip the MCP SDK's check of the result against the output schema the server
    lists: an untyped output schema that is left to the server or names nothing somewhere, which would
    fail (or be refused) on every result once a listing gave the SDK that schema."""
    output = tool.get("outputSchema")
    if not _untyped(spec, "outputSchema") or not isinstance(output, dict):
        return False
    return "outputSchema" in spec.left_to_server or bool(Document.of(output).unresolved)


def _untyped(spec: ToolSpec, key: str) -> bool:
    """Whether the tool's schema `key` gave no type: any schema of an untyped tool, and the output
    schema of a tool typed without it (`ToolSpec.untyped_output`)."""
    return bool(spec.untyped_reason) or (key == "outputSchema" and spec.untyped_output is not None)


ANY_ARGUMENTS = {"type": "object"}
"""What stands for an input schema left to the server: arguments are always an object."""


def _mirrored_headers(schema: Any) -> list[list[Any]]:
    """Each parameter a 2026-07-28 client mirrors into an `Mcp-Param-*` header (`x-mcp-header`,
    SEP-2243): its path of property names and its header's name, sorted. None for annotations the
    spec calls invalid: discovery drops such a tool, and a listing of it mirrors nothing either."""
    if "x-mcp-header" not in json.dumps(schema):  # importing the SDK takes seconds: only when needed
        return []
    from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map

    if find_invalid_x_mcp_header(schema) is not None:
        return []
    return sorted([list(path), token] for path, token in x_mcp_header_map(schema).items())


_DATA = (DATA_KEYWORDS - ANNOTATIONS) | {"required", "dependentRequired"}
"""Values kept as they are: instance data, and lists of property names."""


def _for_validation(schema: Any) -> Any:
    """The schema's JSON Schema keywords without its annotations (`KEYWORDS`, as the models
    see them); names in maps of schemas, the definitions in a namespace of them (`is_namespace`) and
    values in data keywords are kept."""
    return rebuilt(schema, _rules, skip=_DATA, namespaces=True)


def _rules(_: Path, node: dict[str, Any]) -> dict[str, Any]:
    # Annotations are left out, so the contract's size is its rules' alone (a megabyte description
    # stays in the docstrings); no extension keyword reaches the package; `$id` does, as relative
    # references need it.
    return {
        key: value for key, value in node.items() if key not in ANNOTATIONS and (key in KEYWORDS or key in ID_KEYWORDS)
    }
