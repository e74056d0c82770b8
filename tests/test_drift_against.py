"""`drift --against REF` on a temporary git repository: committed snapshots against their version at
a ref, read with `git show`, with no server started (the configured command does not even exist)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from codegen.snapshot import Snapshot, write_snapshot
from tests.conftest import write_config
from tests.drift_helpers import obj, snap, tool

S = {"type": "string"}
BASE = snap((tool("keep", obj({"x": S})), tool("gone", obj({"x": S}))))
CONFIG = """
[tool.mcp-stubgen]
snapshots = "mcp/snapshots"

[tool.mcp-stubgen.servers.demo]
command = "/nonexistent/server-that-must-not-start"

[tool.mcp-stubgen.servers.extra]
command = "/nonexistent/server-that-must-not-start"
"""


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    result = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return result.stdout


def save(repo: Path, server: str, snapshot: Snapshot) -> Path:
    path = repo / "mcp" / "snapshots" / f"{server}.json"
    write_snapshot(path, replace(snapshot, server=server))
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose `main` has the demo server's snapshot, checked out on a branch."""
    git(tmp_path, "init", "-q", "-b", "main")
    write_config(tmp_path, CONFIG)
    save(tmp_path, "demo", BASE)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    git(tmp_path, "tag", "v1")
    git(tmp_path, "checkout", "-q", "-b", "feature")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_breaking_change_against_a_branch_fails_without_starting_a_server(run_cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    save(repo, "demo", snap((tool("keep", obj({"x": S})),)))  # uncommitted: the working tree is compared
    result = run_cli("drift", "demo", "--against", "main")
    assert result.exit_code == 1, result.stderr
    assert "tool-removed  demo: tool gone" in result.stdout
    assert "error" not in result.stderr

    git(repo, "commit", "-q", "-am", "drop gone")  # committed on the branch: the same against main, a tag, a commit
    commit = git(repo, "rev-parse", "main").strip()
    for ref in ("main", "v1", commit, "HEAD~1"):
        report = json.loads(run_cli("drift", "demo", "--against", ref, "--format", "json").stdout)
        assert [(finding["rule"], finding["name"]) for finding in report["findings"]] == [("tool-removed", "gone")]
    assert run_cli("drift", "demo", "--against", "HEAD").stdout == "no drift (0 breaking, 0 dangerous, 0 safe)\n"


def test_sarif_points_at_the_working_tree_file(run_cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    path = save(repo, "demo", snap((tool("keep", obj({"x": S, "y": S})), tool("gone", obj({"x": S})))))
    result = run_cli("drift", "demo", "--against", "main", "--format", "sarif", "--fail-on", "any")
    assert result.exit_code == 1
    (finding,) = json.loads(result.stdout)["runs"][0]["results"]
    location = finding["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "mcp/snapshots/demo.json"
    assert path.read_text().splitlines()[location["region"]["startLine"] - 1].strip() == '"y": {'


def test_sarif_paths_are_relative_to_the_repository_from_any_folder(  # type: ignore[no-untyped-def]
    run_cli, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save(repo, "demo", snap((tool("keep", obj({"x": S})),)))
    (repo / "docs").mkdir()
    monkeypatch.chdir(repo / "docs")  # the config is found upwards; code scanning wants repository paths
    result = run_cli("drift", "--against", "main", "--format", "sarif")
    (finding,) = json.loads(result.stdout)["runs"][0]["results"]
    assert finding["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "mcp/snapshots/demo.json"
    annotation = run_cli("drift", "--against", "main", "--format", "github").stdout
    assert annotation.startswith(
        "::error file=mcp/snapshots/demo.json,line=1,title=tool-removed%3A demo%3A tool gone::"
    )


def test_a_server_new_since_the_ref_is_reported_as_added(run_cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    save(repo, "extra", snap((tool("fresh"),)))
    result = run_cli("drift", "--against", "main", "--fail-on", "any")
    assert result.exit_code == 1
    assert "tool-added-destructive  extra: tool fresh" in result.stdout
    assert "note: extra: main has no mcp/snapshots/extra.json (a new server); its entries are added" in result.stderr
    assert "error" not in result.stderr
    assert run_cli("drift", "--against", "main").exit_code == 0


def test_a_deleted_snapshot_is_every_entry_removed(run_cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    (repo / "mcp" / "snapshots" / "demo.json").unlink()
    result = run_cli("drift", "demo", "--against", "main")
    assert result.exit_code == 1
    assert "2 breaking" in result.stdout
    assert "mcp/snapshots/demo.json was deleted since main" in result.stderr


def test_unknown_ref_is_one_clear_error(run_cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("drift", "--against", "no-such-branch")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --against no-such-branch: unknown git ref; fetch it first")
    assert result.stderr.count("\n") == 1
    assert run_cli("drift", "--against", "--help-me").stderr.startswith("error: --against --help-me: not a git ref")


def test_the_fetch_an_unknown_ref_advises_makes_it_known_in_a_shallow_clone(  # type: ignore[no-untyped-def]
    run_cli, repo: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI clone holds one commit of one branch and no tags. The advice was `git fetch --depth=1
    origin origin/main` for `--against origin/main`, which git refuses ("couldn't find remote ref"),
    and the same for `HEAD~1`; each advised command must fetch what the ref names."""
    save(repo, "demo", snap((tool("keep", obj({"x": S})),)))
    git(repo, "commit", "-q", "-am", "drop gone")
    # ref, which of the advised commands fits it (a plain name may be a tag or a branch), the ref it makes known
    cases = (("origin/main", 0, "origin/main"), ("main", 1, "origin/main"), ("v1", 0, "v1"), ("HEAD~1", 0, "HEAD~1"))
    for ref, which, known in cases:
        clone = tmp_path_factory.mktemp("ci") / "clone"
        git(repo, "clone", "-q", "--depth=1", "--single-branch", "--no-tags", repo.as_uri(), str(clone))
        monkeypatch.chdir(clone)
        refused = run_cli("drift", "demo", "--against", ref)
        assert refused.exit_code == 2, refused.stderr
        advice = re.findall(r"`(git fetch [^`]*)`", refused.stderr)[which]
        git(clone, *advice.split()[1:])
        result = run_cli("drift", "demo", "--against", known, "--format", "json")
        assert result.exit_code == 1, (ref, advice, result.stderr)
        assert [finding["name"] for finding in json.loads(result.stdout)["findings"]] == ["gone"]


def test_head_before_the_first_commit_holds_no_snapshot(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-commit hook (`drift --against HEAD`) on a repository's first commit: HEAD names no
    commit yet, and the hook failed with "unknown git ref ... fetch it first", blocking the commit.
    Every snapshot is new there; another unknown ref is still an error."""
    git(tmp_path, "init", "-q", "-b", "main")
    write_config(tmp_path, CONFIG)
    save(tmp_path, "demo", BASE)
    git(tmp_path, "add", ".")
    monkeypatch.chdir(tmp_path)
    result = run_cli("drift", "demo", "--against", "HEAD")
    assert result.exit_code == 0, result.stderr
    assert "note: demo: HEAD has no mcp/snapshots/demo.json (a new server); its entries are added" in result.stderr
    assert "tool-added" in result.stdout
    assert run_cli("drift", "demo", "--against", "main").exit_code == 2


def test_outside_a_git_repository_is_one_clear_error(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # never find a repository above the test folder
    write_config(tmp_path, CONFIG)
    save(tmp_path, "demo", BASE)
    monkeypatch.chdir(tmp_path)
    result = run_cli("drift", "--against", "main")
    assert result.exit_code == 2
    assert result.stderr == "error: --against main: mcp/snapshots is not inside a git repository\n"


def test_a_snapshot_linked_in_from_outside_the_repository_says_it_is_a_link(  # type: ignore[no-untyped-def]
    run_cli, repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A snapshot folder several projects share, linked in: the line said the configured path, which is
    inside the repository, was outside it. A link within the repository is read at the ref as usual."""
    shared = tmp_path_factory.mktemp("shared") / "demo.json"
    linked = repo / "mcp" / "snapshots" / "demo.json"
    linked.replace(shared)
    linked.symlink_to(shared)
    result = run_cli("drift", "demo", "--against", "main")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: --against main: mcp/snapshots/demo.json is a link to {shared.resolve()}, outside the git "
        "repository ., so git has no version of it\n"  # the repository is the working directory
    )

    inside = repo / "shared" / "demo.json"
    inside.parent.mkdir()
    shared.replace(inside)
    git(repo, "add", "shared/demo.json")
    git(repo, "commit", "-q", "-m", "shared inside")
    linked.unlink()
    linked.symlink_to(Path("..", "..", "shared", "demo.json"))
    assert run_cli("drift", "demo", "--against", "HEAD").exit_code == 0


def test_a_damaged_snapshot_at_the_ref_names_ref_and_file(run_cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    (repo / "mcp" / "snapshots" / "demo.json").write_text("{not json", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "damage")
    save(repo, "demo", BASE)
    result = run_cli("drift", "demo", "--against", "HEAD")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: HEAD:mcp/snapshots/demo.json: not a JSON snapshot")
    assert "not checked (see the errors above): demo" in result.stdout


def test_against_does_not_combine_with_files_or_update(run_cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    path = str(save(repo, "demo", BASE))
    both = run_cli("drift", path, path, "--against", "main")
    assert both.exit_code == 2 and "--against works on configured servers" in both.stderr
    update = run_cli("drift", "--against", "main", "--update")
    assert update.exit_code == 2 and "--update re-snapshots live servers" in update.stderr


def test_a_change_that_moves_the_snapshots_folder_compares_each_snapshot_with_its_old_place(
    run_cli, repo: Path
) -> None:  # type: ignore[no-untyped-def]
    """Found by a second outside check: the ref's snapshot was looked for at today's folder, so a change
    that moved the folder called the server new (every tool added) and hid a tool it removed."""
    write_config(repo, CONFIG.replace('"mcp/snapshots"', '"clients/snapshots"'))
    moved = repo / "clients" / "snapshots" / "demo.json"
    write_snapshot(moved, replace(snap((tool("keep", obj({"x": S})),)), server="demo"))
    git(repo, "rm", "-q", "-r", "mcp")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "move the snapshots and drop a tool")
    result = run_cli("drift", "demo", "--against", "main")
    assert result.exit_code == 1, result.stderr
    assert "tool-removed  demo: tool gone" in result.stdout
    assert "tool-added" not in result.stdout
    assert "note: demo: compared with mcp/snapshots/demo.json at main, before the snapshots moved" in result.stderr
