"""The tests' own loopback ports: two test runs on one machine never hand out the same one."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO
from tests.ports import free_port, port_block


def test_a_second_test_run_on_the_machine_gets_ports_of_its_own() -> None:
    """Another run's process, as the same xdist worker (every run has a gw0), while this one holds
    its block: its servers' ports must be none of this process's, or its server would fail to bind
    and its test talk to this run's server."""
    mine = free_port()
    theirs = subprocess.run(
        [sys.executable, "-c", "from tests.ports import free_port; print(free_port())"],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert mine in port_block()
    assert int(theirs.stdout) not in port_block()
