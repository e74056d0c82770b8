"""Naming rules 14: a generated client's completion methods (`completion/complete`) and the package's
re-export of `HandshakeTimeoutError`: against real servers over stdio, under `mypy --strict`, with
names chosen to collide, for a server without the capability, and unchanged under rules 13."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.errors import StubgenError
from codegen.generate import generate_package
from codegen.generate.pipeline import render_snapshot
from codegen.snapshot import Snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS, forget_generated, import_generated
from tests.drift_helpers import snap, tool
from tests.regen_goldens import OUTPUT
from tests.servers.completion_server import HOSTILE_ARGUMENT, HOSTILE_PROMPT, TEMPLATE

SERVER = SERVERS / "completion_server.py"
MYPY = [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null"]


def served(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=PYTHON, args=[str(SERVER), *args])


@pytest.fixture(scope="module")
def completing() -> Snapshot:
    """A fresh snapshot (naming rules 14) of the server that declares `completions`."""
    return asyncio.run(snapshot_server(ServerConfig(name="completion", command=PYTHON, args=(str(SERVER),))))


@pytest.fixture
def package(completing: Snapshot, tmp_path: Path) -> Iterator[Any]:
    generate_package(completing, tmp_path / "out")
    try:
        yield import_generated(tmp_path / "out", "completion")
    finally:
        forget_generated(tmp_path / "out")


async def test_completion_methods_send_the_entry_the_name_the_value_and_the_context_over_stdio(package: Any) -> None:
    """The server answers with what it was asked: each method names its prompt (or URI template), the
    argument (variable) and the value, `context` arrives as `context.arguments`, and the answer is a
    `Completion`. Its hostile names pass as text, and its tools `complete_prompt` and
    `complete_template` are the methods `complete_prompt_` and `complete_template_`, still calling them."""
    async with package.CompletionClient.connect(served()) as client:
        got = await client.complete_prompt(prompt="review", argument="language", value="py")
        assert got == package.Completion(("prompt review", "language=py", "null"), 7, True)
        narrowed = await client.complete_prompt(
            prompt="review", argument="style", value="", context={"language": "python"}
        )
        assert narrowed.values == ("prompt review", "style=", '{"language": "python"}')
        hostile = await client.complete_prompt(prompt=HOSTILE_PROMPT, argument=HOSTILE_ARGUMENT, value="v")
        assert hostile.values[:2] == (f"prompt {HOSTILE_PROMPT}", f"{HOSTILE_ARGUMENT}=v")
        variable = await client.complete_template(
            template=TEMPLATE, variable="name", value="re", context={"folder": "docs"}
        )
        assert variable.values == (f"template {TEMPLATE}", "name=re", '{"folder": "docs"}')
        assert (await client.complete_prompt_(q="x")).text == "tool complete_prompt"
        assert (await client.complete_template_(q="x")).text == "tool complete_template"
        with pytest.raises(ValueError) as refused:
            await client.complete_prompt(prompt="review", argument="language", value=3)
        assert str(refused.value) == (
            "server 'completion': completion of prompt 'review': argument 'language' must be text, not int; "
            "nothing was sent"
        )
    with package.CompletionClient.connect_sync(served()) as sync:
        assert sync.complete_template(template=TEMPLATE, variable="folder", value="d").values[:2] == (
            f"template {TEMPLATE}",
            "folder=d",
        )


def test_a_package_of_rules_14_exports_handshake_timeout_error_and_completion(package: Any) -> None:
    from out._mcp_runtime import _runtime  # type: ignore[import-not-found]

    assert package.HandshakeTimeoutError is _runtime.HandshakeTimeoutError
    assert package.Completion is _runtime.Completion
    assert {"Completion", "HandshakeTimeoutError"} <= set(package.__all__)


def test_a_server_without_completions_gets_no_completion_method_and_its_tools_still_step_aside(
    tmp_path: Path,
) -> None:
    """The names are kept from rules 14 whatever the server declares, so a server that comes to declare
    `completions` renames none of its tools; `HandshakeTimeoutError` is exported all the same."""
    snapshot = asyncio.run(
        snapshot_server(ServerConfig(name="completion", command=PYTHON, args=(str(SERVER), "--no-completions")))
    )
    assert "completions" not in snapshot.capabilities
    tree = render_snapshot(snapshot)
    client = tree["client.py"].decode()
    assert "def complete_prompt(" not in client and "def complete_template(" not in client
    assert "async def complete_prompt_(" in client and "Literal" not in client and "overload" not in client
    exports = tree["__init__.py"].decode()
    assert '"HandshakeTimeoutError",' in exports and '"Completion",' not in exports


def test_rules_13_generate_what_they_did(completing: Snapshot) -> None:
    """A package committed under rules 13 keeps its tools' method names and exports; only a snapshot
    of rules 14 has completion methods (and a model named like an export steps aside)."""
    committed = dataclasses.replace(completing, naming_rules=13)
    tree = render_snapshot(committed)
    client = tree["client.py"].decode()
    assert "async def complete_prompt(\n        self,\n        *,\n        q: str" in client
    assert "-> Completion" not in client and "Literal" not in client
    assert "HandshakeTimeoutError" not in tree["__init__.py"].decode()

    merged = {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object"}]}
    named_like_an_export = snap((tool("handshake_timeout", {"type": "object", "properties": {"error": merged}}),))
    models = {
        rules: render_snapshot(dataclasses.replace(named_like_an_export, naming_rules=rules))["models.py"].decode()
        for rules in (13, 14)
    }
    assert '"HandshakeTimeoutError",' in models[13] and "HandshakeTimeoutError2" not in models[13]
    assert '"HandshakeTimeoutError2",' in models[14] and '"HandshakeTimeoutError",' not in models[14]


def test_no_method_name_of_yours_takes_a_completion_method(completing: Snapshot) -> None:
    with pytest.raises(StubgenError) as refused:
        render_snapshot(completing, method_names={"complete_template": "complete_prompt"})
    assert str(refused.value) == (
        "server 'completion': rename of tool 'complete_template' to 'complete_prompt' is not a usable Python name"
    )


CALLER = """\
from {package}.completion import Completion, CompletionClient, CompletionSyncClient


async def good(client: CompletionClient, sync: CompletionSyncClient) -> tuple[str, ...]:
    got: Completion = await client.complete_prompt(prompt="review", argument="style", value="", context={{}})
    more = sync.complete_template(template="files://{{folder}}/{{name}}", variable="name", value="a")
    return got.values + more.values + (str(got.total), str(more.has_more))


async def bad(client: CompletionClient, sync: CompletionSyncClient) -> None:
    await client.complete_prompt(prompt="review", argument="folder", value="")
    await client.complete_template(template="files://{{folder}}/{{name}}", variable="style", value="")
    sync.complete_prompt(prompt="greet", argument="style", value="")
    await client.complete_prompt(prompt="review", argument="style", value="", context={{"language": 3}})
"""


@pytest.mark.generated_mypy
def test_completion_methods_type_check_their_names_under_mypy_strict(completing: Snapshot, tmp_path: Path) -> None:
    """The package passes `mypy --strict` beside a caller; an argument another prompt has, a variable
    of no template, a prompt without arguments and a context value that is not text are each an error."""
    generate_package(completing, tmp_path)
    caller = tmp_path / "caller.py"
    caller.write_text(CALLER.format(package=tmp_path.name), encoding="utf-8")
    checked = subprocess.run(
        [*MYPY, "--explicit-package-bases", "-p", tmp_path.name], cwd=tmp_path.parent, capture_output=True, text=True
    )
    errors = [line for line in checked.stdout.splitlines() if ": error: " in line]
    assert [line.split(":")[1] for line in errors] == ["11", "12", "13", "14"], checked.stdout + checked.stderr
    assert all(line.startswith(f"{tmp_path.name}/caller.py:") for line in errors), checked.stdout


@pytest.mark.real_server
def test_the_golden_everything_client_completes_server_everythings_prompt_and_template(
    everything_server: Path,
) -> None:
    """server-everything's `completable-prompt` narrows `name` by the `department` already chosen (the
    context), and its dynamic text resource completes `resourceId`."""
    from tests.test_client_tasks import HANDLERS

    forget_generated(OUTPUT)
    try:
        everything: Any = import_generated(OUTPUT, "everything")
        server = StdioServerParameters(command=str(everything_server))
        with everything.EverythingClient.connect_sync(server, **HANDLERS) as client:
            departments = client.complete_prompt(prompt="completable-prompt", argument="department", value="S")
            assert departments == everything.Completion(("Sales", "Support"), 2, False)
            leads = client.complete_prompt(
                prompt="completable-prompt", argument="name", value="", context={"department": "Sales"}
            )
            assert leads.values == ("David", "Eve", "Frank")
            ids = client.complete_template(
                template="demo://resource/dynamic/text/{resourceId}", variable="resourceId", value="1"
            )
            assert ids.values == ("1",)
    finally:
        forget_generated(OUTPUT)
