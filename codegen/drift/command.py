"""`mcp-stubgen drift`: compare two snapshot files, or each configured server live with its
committed snapshot, print a report and exit 0 (clean), 1 (findings at or above `--fail-on`) or
2 (could not run)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from codegen.config import ProjectConfig
from codegen.drift.compare import compare_snapshots
from codegen.drift.findings import Finding, Severity, sort_findings
from codegen.drift.policy import DriftPolicy, apply_ignores, parse_policy
from codegen.drift.report import FORMATS, render
from codegen.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, StubgenError
from codegen.options import apply_overrides, config_options, connection_options, load_project, shown_path
from codegen.snapshot import Snapshot, load_snapshot, write_snapshot
from codegen.snapshot.command import warn_missing_methods

FAIL_ON = {"breaking": Severity.BREAKING, "dangerous": Severity.DANGEROUS, "any": Severity.SAFE, "never": None}


def exit_code(findings: Sequence[Finding], fail_on: str) -> int:
    """1 when any finding is at or above the threshold (`never` never fails), else 0."""
    threshold = FAIL_ON[fail_on]
    if threshold is None:
        return EXIT_OK
    return EXIT_FINDINGS if any(finding.severity.rank >= threshold.rank for finding in findings) else EXIT_OK


def _is_file(target: str) -> bool:
    """Server ids cannot contain dots or slashes, so anything that does is a snapshot file."""
    return "." in target or "/" in target or "\\" in target or Path(target).is_file()


@click.command()
@click.argument("targets", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Report format.")
@click.option(
    "--fail-on",
    type=click.Choice(tuple(FAIL_ON)),
    default="breaking",
    show_default=True,
    help="Exit 1 when a finding is at or above this severity.",
)
@click.option("--update", is_flag=True, help="Live mode: write the fresh snapshots after the report.")
@config_options
@connection_options
def drift(
    targets: tuple[str, ...],
    fmt: str,
    fail_on: str,
    update: bool,
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
) -> int:
    """Report how a server's catalog changed, and whether that breaks generated clients.

    \b
    Two files:  mcp-stubgen drift OLD.json NEW.json
    Live:       mcp-stubgen drift [SERVER...]   (re-snapshots in memory; --update writes them)
    """
    files = [target for target in targets if _is_file(target)]
    if files:
        if len(targets) != 2 or len(files) != 2:
            raise click.UsageError("compare exactly two snapshot files: mcp-stubgen drift OLD.json NEW.json")
        if update:
            raise click.UsageError("--update re-snapshots configured servers; it does not apply to two files")
        old, new = load_snapshot(Path(targets[0])), load_snapshot(Path(targets[1]))
        config = load_project(config_path, servers_file)
        policy = _policy(config)
        findings = compare_snapshots(old, new, policy.renames_for(new.server))
        return _finish(findings, policy, [new.server], fmt, fail_on, unchecked=[])

    config = load_project(config_path, servers_file)
    policy = _policy(config)
    selected = apply_overrides(config.select(targets), protocol, connect_timeout, request_timeout)
    committed: dict[str, Snapshot] = {}
    for server in selected:  # an unreadable snapshot is that server's failure, not the whole run's
        try:
            committed[server.name] = load_snapshot(config.snapshot_path(server.name))
        except StubgenError as error:
            click.echo(f"error: {error}", err=True)
    comparable = [server for server in selected if server.name in committed]

    from codegen.snapshot.discovery import snapshot_servers  # the SDK's transports load only when needed

    results = snapshot_servers(comparable) if comparable else {}
    fresh: dict[str, Snapshot] = {}
    findings = []
    for server in comparable:
        result = results[server.name]
        if isinstance(result, StubgenError):
            click.echo(f"error: {result}", err=True)
            continue
        warn_missing_methods(result)
        fresh[server.name] = result
        findings += compare_snapshots(committed[server.name], result, policy.renames_for(server.name))
    unchecked = [server.name for server in selected if server.name not in fresh]
    code = _finish(findings, policy, list(fresh), fmt, fail_on, unchecked)
    if update:
        for name, snapshot in sorted(fresh.items()):
            path = config.snapshot_path(name)
            try:
                changed = write_snapshot(path, snapshot)
            except OSError as error:
                click.echo(f"error: server {name!r}: cannot write {path} ({error.strerror})", err=True)
                code = EXIT_ERROR
                continue
            click.echo(f"{name}: {'updated' if changed else 'unchanged'} {shown_path(path)}", err=True)
    return code


def _policy(config: ProjectConfig) -> DriftPolicy:
    return parse_policy(config.settings, str(config.source or "config"))


def _finish(
    findings: list[Finding], policy: DriftPolicy, servers: list[str], fmt: str, fail_on: str, unchecked: list[str]
) -> int:
    """Apply the ignore list, print the report (naming the servers that could not be checked), and
    turn it into the exit code: 2 when any server could not be checked."""
    filtered = apply_ignores(findings, policy.ignores, servers)
    kept = sort_findings(filtered.kept)
    click.echo(render(kept, fmt, len(filtered.ignored), unchecked), nl=False)
    return EXIT_ERROR if unchecked else exit_code(kept, fail_on)
