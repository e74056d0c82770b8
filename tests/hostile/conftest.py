"""The generated packages the wire sweeps call the fuzz server through (`test_wire_fuzz.py`,
`test_watch_fuzz.py`)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import SERVERS, forget_generated

SERVER = str(SERVERS / "wire_fuzz_server.py")
ERAS = ("legacy", "modern")


@pytest.fixture(scope="module")
def wirefuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """`wirefuzz.legacy_fuzz`, `wirefuzz.modern_fuzz` and `wirefuzz.hub` over both, from live snapshots."""
    folder = tmp_path_factory.mktemp("wirefuzz")
    snapshots = [
        anyio.run(
            snapshot_server, ServerConfig(name=f"{era}_fuzz", command=sys.executable, args=(SERVER, "--era", era))
        )
        for era in ERAS
    ]
    for snapshot in snapshots:
        generate_package(snapshot, folder / "wirefuzz")
    generate_hub([(snapshot, {}) for snapshot in snapshots], folder / "wirefuzz")
    sys.path.insert(0, str(folder))
    try:
        for name in ("legacy_fuzz", "modern_fuzz", "hub"):
            importlib.import_module(f"wirefuzz.{name}")
        yield importlib.import_module("wirefuzz")
    finally:
        sys.path.remove(str(folder))
        forget_generated(folder / "wirefuzz")
