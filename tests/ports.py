"""Loopback ports for the tests' servers: each test process takes a block of its own, held by a file
lock, so two test runs on one machine (two worktrees, or `-n 0` beside `-n 2`) never start servers
on the same port. The xdist worker's number chose the block before: every run's gw0 shared one, a
server of one run failed to bind its port while the other run's server, already there, answered the
first run's test (an HTTP 503 test got a healthy server's catalog)."""

from __future__ import annotations

import fcntl
import itertools
import os
import socket
import tempfile
from typing import IO

PORTS_PER_PROCESS = 400
FIRST_TEST_PORT = 20000
LAST_TEST_PORT = 32767
"""Test servers listen below Linux's ephemeral range (32768-60999): a port the kernel handed out
with bind(0) could be handed to another process's server, or to an outgoing connection, between
the probe and the server's own bind, and a test would then talk to a stranger."""
BLOCKS = (LAST_TEST_PORT + 1 - FIRST_TEST_PORT) // PORTS_PER_PROCESS
LOCKS = os.path.join(tempfile.gettempdir(), "mcp-stubgen-test-ports")

_next_port = itertools.count()
_held: tuple[int, IO[bytes]] | None = None
"""This process's block (its first port) and the open lock file that holds it until the process ends."""


def port_block() -> range:
    """The ports this process hands out: the first block no other live test process holds."""
    global _held
    if _held is None or _held[1].closed:
        os.makedirs(LOCKS, exist_ok=True)
        for block in range(BLOCKS):
            lock = open(os.path.join(LOCKS, f"{block}.lock"), "wb")  # noqa: SIM115 (held while the process lives)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                lock.close()
                continue
            _held = (FIRST_TEST_PORT + block * PORTS_PER_PROCESS, lock)
            break
        else:
            raise RuntimeError(f"all {BLOCKS} loopback port blocks are held by other test processes (locks in {LOCKS})")
    return range(_held[0], _held[0] + PORTS_PER_PROCESS)


def free_port() -> int:
    """A loopback port of this process's own block, not yet reused within the run, that binds now."""
    block = port_block()
    for _ in block:
        port = block[next(_next_port) % len(block)]
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free loopback port in {block.start}-{block.stop - 1}")
