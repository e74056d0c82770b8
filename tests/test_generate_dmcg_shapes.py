"""Shapes from datamodel-code-generator's own test schemas that main generated into packages failing
`mypy --strict`, or refused (issue 12): each is a tool of one server, generated once, imported and
type-checked with one `mypy --strict` run (benchmarks/dmcg_schemas.py runs all 490 of them)."""

from __future__ import annotations

import contextlib
import importlib
import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.generate import generate_package
from tests.drift_helpers import snap, tool

STRING_MAP = {"type": "object", "propertyNames": {"enum": ["a", "b"]}, "additionalProperties": {"type": "string"}}
"""property_names_enum: a map whose names an enum lists."""

CONST_FLOATS = {"oneOf": [{"const": 0.5}, {"const": 1.0}]}
"""oneof_const_enum_float: no object fits, so no arguments can."""

INTEGER_OR_LIST = {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}}]}
"""complex_any_of."""

OBJECT_OR_ARRAY = {
    "type": ["object", "array"],
    "items": {"$ref": "#"},
    "properties": {"name": {"type": "string"}},
}
"""combined_array: arguments can only be its object side."""

SELF_AT_ROOT = {"$ref": "#", "type": "object", "properties": {"name": {"type": "string"}}}
"""root_ref_self_with_keywords: datamodel-code-generator types it `None`."""

OVERRIDE = {
    "$defs": {"Base": {"type": "object", "properties": {"items": {"type": "string"}}}},
    "type": "object",
    "properties": {
        "override": {
            "allOf": [{"$ref": "#/$defs/Base"}, {"type": "object", "properties": {"items": {"type": "array"}}}]
        }
    },
}
"""schema_validators_parser_branch_runtime: a subclass gave `items` a type its base's `items` cannot hold."""

NAMESPACED = {
    "type": "object",
    "properties": {"user": {"$ref": "#/definitions/v2/User"}},
    "definitions": {"v2": {"User": {"type": "object", "properties": {"id": {"type": "integer"}}}}},
}
"""definitions_v2_namespace: a definition under a namespace of definitions."""

TOOLS = {
    "string_map": (STRING_MAP, STRING_MAP),
    "const_floats": (CONST_FLOATS, CONST_FLOATS),
    "integer_or_list": (INTEGER_OR_LIST, INTEGER_OR_LIST),
    "object_or_array": (OBJECT_OR_ARRAY, None),
    "self_at_root": (SELF_AT_ROOT, None),
    "override": (OVERRIDE, OVERRIDE),
    "namespaced": (NAMESPACED, NAMESPACED),
}


pytestmark = pytest.mark.generated_mypy  # every test reads the module's one mypy run


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The package's folder, the warnings `generate` printed, and `mypy --strict`'s output on the package."""
    out = tmp_path_factory.mktemp("dmcg") / "dmcgclients"
    tools = tuple(tool(name, inputs, outputs) for name, (inputs, outputs) in TOOLS.items())
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        generate_package(snap(tools), out)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", "-p", out.name],
        cwd=out.parent,
        capture_output=True,
        text=True,
    )
    return out, stderr.getvalue(), checked.stdout + checked.stderr


def test_every_shape_passes_mypy_strict(generated: tuple[Path, str, str]) -> None:
    _, _, mypy = generated
    assert "Success: no issues found" in mypy, mypy


def test_a_map_keyed_by_an_enum_is_passed_and_returned_as_that_dict(generated: tuple[Path, str, str]) -> None:
    client = (generated[0] / "demo" / "client.py").read_text()
    assert (
        'arguments: dict[Literal["a", "b"], str],\n        call_options: CallOptions | None = None,\n    ) -> dict[Literal["a", "b"], str]:'
        in client
    )


def test_an_input_no_object_fits_gets_an_untyped_method(generated: tuple[Path, str, str]) -> None:
    folder, warnings, _ = generated
    untyped = {line.split("'")[3] for line in warnings.splitlines() if line.startswith("warning: ")}
    assert untyped == {"const_floats", "integer_or_list", "self_at_root"}
    assert (
        "warning: server 'demo': tool 'const_floats': /inputSchema: arguments are sent as an object, and no object "
        "fits the type of the schema's root (float); its method takes `arguments: dict[str, Any]` "
        "(`generate --strict` makes this an error)"
    ) in warnings.splitlines()
    client = (folder / "demo" / "client.py").read_text()
    method = client.split("    async def const_floats(", 1)[1].split("    async def ", 1)[0]
    assert (
        "arguments: dict[str, Any],\n        call_options: CallOptions | None = None,\n    ) -> ToolResult:" in method
    )


def test_an_input_that_may_be_an_object_or_an_array_takes_the_object(generated: tuple[Path, str, str]) -> None:
    with imported(generated[0]) as demo:
        assert demo.ObjectOrArrayInputVariant(name="x").name == "x"
    client = (generated[0] / "demo" / "client.py").read_text()
    assert (
        "arguments: ObjectOrArrayInputVariant,\n        call_options: CallOptions | None = None,\n    ) -> ToolResult:"
        in client
    )


def test_an_override_of_another_type_is_one_class_of_its_own(generated: tuple[Path, str, str]) -> None:
    with imported(generated[0]) as demo:
        override = demo.models.OverrideInput(override={"items": [1]}).override
        assert override.items == [1]
        assert type(override).__mro__[1].__name__ == "BaseModel"


def test_a_namespaced_definition_is_generated_and_checked(generated: tuple[Path, str, str]) -> None:
    """Main refused it; the contract the client checks calls against keeps the namespaced definition."""
    with imported(generated[0]) as demo:
        assert demo.models.NamespacedInput(user={"id": 3}).user.id == 3
        module = importlib.import_module("dmcgclients.demo._models.namespaced")

        contract = importlib.import_module("dmcgclients._mcp_runtime._runtime").ToolContract.of(module._CONTRACT)
        assert contract.problem("input", {"user": {"id": 3}}) is None
        assert "'x' is not of type 'integer'" in contract.problem("input", {"user": {"id": "x"}})


class imported:
    """The generated `demo` package, imported from the output folder `folder` and forgotten afterwards."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __enter__(self) -> Any:
        sys.path.insert(0, str(self.folder.parent))
        demo = importlib.import_module(f"{self.folder.name}.demo")
        importlib.import_module(f"{self.folder.name}.demo.models")
        return demo

    def __exit__(self, *_: object) -> None:
        sys.path.remove(str(self.folder.parent))
        for name in [name for name in sys.modules if name.split(".")[0] == self.folder.name]:
            del sys.modules[name]
