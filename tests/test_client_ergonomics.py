"""A generated client takes what the wire takes: caller code that passes the strings a server's
schema describes, and builds models with snake_case keywords, type-checks under `mypy --strict`;
the strings are sent as given and the fields by their wire names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import mypy_against_goldens
from tests.regen_goldens import GOLDEN


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[str]], str]:
    """The module's callers type-checked by one `mypy --strict` run, not one each: each file's errors
    by its name, and mypy's output."""
    folder = tmp_path_factory.mktemp("callers")
    callers = {
        "formatted": CALLER,
        "gone": GONE,
        "optional": OPTIONAL,
        "aliased": ALIASED,
        "plain_values": PLAIN_VALUES,
    }
    for name, source in callers.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return mypy_against_goldens(*(folder / f"{name}.py" for name in callers))


CALLER = """
from clients.catalog import CatalogClient, DrawOutput
from clients.everything import EverythingClient, GetResourceReferenceInput


async def use(everything: EverythingClient, catalog: CatalogClient) -> str:
    await everything.gzip_file_as_resource(data="https://example.com")  # format: uri
    await catalog.get_user_2(from_="2024-05-01", id_=7)  # format: date
    return ""


def build() -> GetResourceReferenceInput:  # camelCase on the wire, snake_case to construct
    return GetResourceReferenceInput(resource_id=3, resource_type="Text")


def read(drawn: DrawOutput) -> str:
    created: str | None = drawn.created  # format: date-time
    return drawn.id + (created or "")  # format: uuid
"""

SENT = """
from clients.catalog._models.get_user_2 import GetUser2Input
from clients.everything._models.get_resource_reference import GetResourceReferenceInput
from clients.everything._models.gzip_file_as_resource import GzipFileAsResourceInput

print(GzipFileAsResourceInput(data="https://example.com").model_dump(mode="json", by_alias=True, exclude_unset=True))
print(GetUser2Input.model_validate({"from": "2024-05-01", "id": 7}).model_dump(mode="json", by_alias=True, exclude_unset=True))
print(GetResourceReferenceInput(resource_id=3, resource_type="Text").model_dump(mode="json", by_alias=True))
"""


@pytest.mark.generated_mypy
def test_formatted_string_parameters_take_the_string_the_wire_takes(checked: tuple[dict[str, list[str]], str]) -> None:
    errors, output = checked[0]["formatted.py"], checked[1]
    assert errors == [], output
    path = str(GOLDEN)

    sent = subprocess.run(
        [sys.executable, "-c", SENT], capture_output=True, text=True, env={"PYTHONPATH": path}, timeout=60
    )
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.splitlines() == [
        "{'data': 'https://example.com'}",  # verbatim: AnyUrl would have sent 'https://example.com/'
        "{'from': '2024-05-01', 'id': 7}",
        "{'resourceId': 3.0, 'resourceType': 'Text'}",
    ]


GONE = """
from clients.weather import GoneInput
from clients.weather import models
from clients.weather.models import GoneOutput


def build() -> models.GoneInputAddress:
    return models.GetForecastInput.model_validate({"city": "Oslo"})
"""


@pytest.mark.generated_mypy
def test_a_model_the_package_does_not_have_is_a_type_error(checked: tuple[dict[str, list[str]], str]) -> None:
    """The package and its `models` load a model on first use (a module `__getattr__`), which a type
    checker must not see: it would type every name as `object` and pass code naming a model a
    regenerated package no longer has (a `$defs` key renamed upstream)."""
    errors, output = checked[0]["gone.py"], checked[1]
    assert errors == [
        'Module "clients.weather" has no attribute "GoneInput"  [attr-defined]',
        'Module "clients.weather.models" has no attribute "GoneOutput"  [attr-defined]',
        'Name "models.GoneInputAddress" is not defined  [name-defined]',
    ], output


OPTIONAL = """
from clients.everything import GzipFileAsResourceInput
from clients.weather import GetForecastInput


def forecast() -> GetForecastInput:  # `days` and `units` are optional and have a description or title
    return GetForecastInput(city="Oslo")


def gzip() -> GzipFileAsResourceInput:
    return GzipFileAsResourceInput(data="https://example.com", output_type="resource")
"""


@pytest.mark.generated_mypy
def test_a_caller_may_leave_out_a_models_optional_fields(checked: tuple[dict[str, list[str]], str]) -> None:
    """mypy takes a field's default from `Field`'s `default=` keyword alone: an optional field written
    `Field(None, description=...)` was one every caller had to give (pdf-reader-mcp's
    `ReadPdfInputSource(path=...)` failed for want of `url`)."""
    errors, output = checked[0]["optional.py"], checked[1]
    assert errors == [], output


ALIASED = """
from clients.catalog import ApiGetUserInput, GetUser2Input


def user() -> GetUser2Input:  # `from`, `class`, `$meta`: wire names no keyword can spell
    return GetUser2Input(id=1, from_="2026-01-01", class_="a", field_meta={"k": "v"}, model_config_="c")


def api_user() -> ApiGetUserInput:  # `user-id`
    return ApiGetUserInput(user_id="u", per_page=2)
"""


@pytest.mark.generated_mypy
def test_a_model_whose_wire_names_are_no_keywords_is_built_by_its_attribute_names(
    checked: tuple[dict[str, list[str]], str],
) -> None:
    """Type checkers take `Field(alias=...)` as the keyword a model is built with, so a model holding
    `from`, `class` or `user-id` could not be built by keywords at all (`GetUser2Input(from_=...)`
    failed `mypy --strict`, while pydantic accepts it); the wire names are read and written as before."""
    errors, output = checked[0]["aliased.py"], checked[1]
    assert errors == [], output
    ran = subprocess.run(
        [sys.executable, "-c", ALIASED + "\nimport json\n"
         "print(json.dumps([user().model_dump(mode='json', by_alias=True, exclude_unset=True),"
         " api_user().model_dump(mode='json', by_alias=True, exclude_unset=True),"
         " GetUser2Input.model_validate({'id': 2, 'from': 'x', 'class': 'b'}).class_]))"],
        capture_output=True, text=True, cwd=GOLDEN, check=False,
    )  # fmt: skip
    assert json.loads(ran.stdout) == [
        {"id": 1, "from": "2026-01-01", "class": "a", "$meta": {"k": "v"}, "model_config": "c"},
        {"user-id": "u", "perPage": 2},
        "b",
    ], ran.stderr


PLAIN_VALUES = """
from clients.shapes import PagesInput, PagesInputSource, PagesOutput


def source() -> PagesInputSource:  # constrained array items and union members, as the wire has them
    return PagesInputSource(path="a.pdf", pages=[1, 2], range="1-3")


def whole() -> PagesInput:
    return PagesInput(source=PagesInputSource(path="b.pdf", range=4))


def first_size(result: PagesOutput) -> int:
    return result.sizes[0]
"""


@pytest.mark.generated_mypy
def test_a_constrained_plain_value_inside_a_model_is_typed_as_its_value(
    checked: tuple[dict[str, list[str]], str],
) -> None:
    """datamodel-code-generator makes a root model class for a constrained array item or union member
    (`pages: list[PagesInputSourcePage]`): pydantic takes `pages=[1, 2]`, mypy did not, and a result's
    `sizes[0]` was a class to read `.root` off (pdf-reader-mcp's `ReadPdfInputSource(pages=[1])`).
    By naming rules 6 such a value is `Annotated[int, Field(ge=1)]`, checked alike at run time."""
    errors, output = checked[0]["plain_values.py"], checked[1]
    assert errors == [], output
    ran = subprocess.run(
        [sys.executable, "-c", PLAIN_VALUES + "\nimport json, pydantic\n"
         "print(json.dumps([source().model_dump(mode='json', exclude_unset=True), first_size("
         "PagesOutput.model_validate({'sizes': [7]}))]))\n"
         "for bad in ({'path': 'c', 'pages': [0]}, {'path': 'c', 'range': 'x'}, {'path': 'c', 'range': 0}):\n"
         "    try:\n        PagesInputSource.model_validate(bad)\n    except pydantic.ValidationError:\n"
         "        print('refused')\n"],
        capture_output=True, text=True, cwd=GOLDEN, check=False,
    )  # fmt: skip
    lines = ran.stdout.splitlines()
    assert json.loads(lines[0]) == [{"path": "a.pdf", "pages": [1, 2], "range": "1-3"}, 7], ran.stderr
    assert lines[1:] == ["refused"] * 3, ran.stderr


def test_openapi_string_formats_are_sent_and_read_as_the_string_itself(tmp_path: Path) -> None:
    """The MCP tools parser of datamodel-code-generator reads OpenAPI's formats too: `password` was
    `SecretStr`, which a dump writes as `**********`, so the server got asterisks for a password,
    and `binary` was `bytes`, which could not carry text that is not UTF-8 and read a result as bytes."""
    from codegen.generate import generate_package
    from codegen.snapshot import parse_snapshot

    secret = {"type": "string", "format": "password"}
    blob = {"type": "string", "format": "binary"}
    nested = {"type": "object", "properties": {"secret": secret, "blob": blob}}
    document = {
        "format": 1, "server": "fm", "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
        "tools": [{
            "name": "login",
            "inputSchema": {"type": "object", "properties": {"password": secret, "cred": nested}, "required": ["password"]},
            "outputSchema": {"type": "object", "properties": {"token": secret, "data": blob}},
        }],
    }  # fmt: skip
    generate_package(parse_snapshot(json.dumps(document), "fm"), tmp_path / "out")
    script = (
        "from out.fm._models.login import LoginInput, LoginOutput\n"
        "sent = LoginInput(password='hunter2', cred={'secret': 's3', 'blob': 'x\\u00e9'})\n"
        "print(sent.model_dump(mode='json', by_alias=True, exclude_unset=True))\n"
        "print(LoginOutput.model_validate({'token': 'tok', 'data': '\\u00e9t\\u00e9'}))\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "{'cred': {'blob': 'x\u00e9', 'secret': 's3'}, 'password': 'hunter2'}",
        "data='\u00e9t\u00e9' token='tok'",
    ]
