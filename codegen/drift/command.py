"""`mcp-stubgen drift`: compare two snapshot files, each configured server live with its committed
snapshot, or each committed snapshot with its version at a git ref (`--against`); print a report and
exit 0 (clean), 1 (findings at or above `--fail-on`) or 2 (could not run)."""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import click

from codegen import console
from codegen.config import DEFAULT_SNAPSHOTS, ProjectConfig
from codegen.drift.compare import compare_snapshots
from codegen.drift.findings import Finding, Severity, fails_gate, sort_findings
from codegen.drift.gitref import GitRef, report_path
from codegen.drift.policy import DriftPolicy, apply_ignores, apply_severities, parse_policy
from codegen.drift.report import FORMATS, render, render_failure
from codegen.drift.usage import Usage, scan_usage
from codegen.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, StubgenError
from codegen.fsutil import atomic_write_bytes
from codegen.identifiers import keep_names
from codegen.options import (
    allow_empty_option,
    apply_overrides,
    config_options,
    connection_options,
    load_project,
    shown_path,
)
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot, write_snapshot
from codegen.snapshot.summary import warn_unlisted_methods
from codegen.snapshot.take import refuse_emptied

FAIL_ON = {"breaking": Severity.BREAKING, "dangerous": Severity.DANGEROUS, "any": Severity.SAFE, "never": None}


def exit_code(findings: Sequence[Finding], fail_on: str) -> int:
    """1 when any finding fails the gate (`fails_gate`; `never` never fails), else 0."""
    threshold = FAIL_ON[fail_on]
    return EXIT_FINDINGS if any(fails_gate(finding, threshold) for finding in findings) else EXIT_OK


def _is_file(target: str) -> bool:
    """Server ids cannot contain dots or slashes, so anything that does is a snapshot file."""
    return "." in target or "/" in target or "\\" in target or Path(target).is_file()


@dataclass(frozen=True)
class _Compared:
    """One server's two catalogs, and the snapshot files (as shown, with their contents) its findings
    can point at, preferred first: the file a reviewer would open."""

    server: str
    old: Snapshot
    new: Snapshot
    files: tuple[tuple[str, Snapshot], ...]


_Outputs = tuple[tuple[str, Path], ...]
"""`--output`: each format and the file it is written to."""


@dataclass(frozen=True)
class _Reporting:
    fmt: str
    fail_on: str
    outputs: _Outputs
    usage: tuple[Path, ...]


def _parse_outputs(context: click.Context, parameter: click.Parameter, values: tuple[str, ...]) -> _Outputs:
    """Read before the run (eager), as `--format` is, so a failure after it is written to these files too."""
    outputs = []
    for value in values:
        fmt, separator, path = value.partition("=")
        if not separator or fmt not in FORMATS or not path:
            raise click.UsageError(f"--output {value!r}: expected FORMAT=PATH with FORMAT one of {', '.join(FORMATS)}")
        outputs.append((fmt, Path(path)))
    _report_failures(context.params.get("fmt", "text"), tuple(outputs))
    return tuple(outputs)


def _report_failures_in(context: click.Context, parameter: click.Parameter, fmt: str) -> str:
    """Read first (eager), so a failure anywhere after it, a usage error included, is reported in it."""
    _report_failures(fmt, context.params.get("outputs", ()))
    return fmt


def _report_failures(fmt: str | None, outputs: _Outputs) -> None:
    console.report_failures_with(functools.partial(_failure_report, fmt, outputs))


def _failure_report(fmt: str | None, outputs: _Outputs, message: str, exit_code: int) -> str:
    """A run that failed before its report, or was interrupted: each `--output` file says so, written
    as a report is (so a CI step that uploads it finds it), and so does stdout, which this returns
    (nothing once stdout has its report, `fmt` None: it stays one document)."""
    for output_fmt, path in outputs:
        try:
            atomic_write_bytes(path, render_failure(output_fmt, message, exit_code, file=True).encode("utf-8"))
        except OSError as error:
            console.error(f"cannot write the {output_fmt} report to {path} ({error.strerror})")
    return render_failure(fmt, message, exit_code) if fmt is not None else ""


@click.command()
@click.argument("targets", nargs=-1)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    is_eager=True,
    callback=_report_failures_in,
    help="Report format.",
)
@click.option(
    "--fail-on",
    type=click.Choice(tuple(FAIL_ON)),
    default="breaking",
    show_default=True,
    help="Exit 1 when a finding is at or above this severity.",
)
@click.option(
    "--against",
    metavar="REF",
    help="Compare each committed snapshot with its version at this git ref (branch, tag, commit); starts no server.",
)
@click.option(
    "--usage",
    "usage",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    metavar="PATH",
    help="Scan these Python sources for uses of the generated clients: a breaking change nothing uses "
    "is reported but does not fail. Repeatable.",
)
@click.option(
    "--output",
    "outputs",
    multiple=True,
    metavar="FORMAT=PATH",
    is_eager=True,
    callback=_parse_outputs,
    help="Also write the report in FORMAT to PATH, e.g. sarif=drift.sarif. Repeatable.",
)
@click.option("--update", is_flag=True, help="Live mode: write the fresh snapshots after the report.")
@allow_empty_option
@config_options
@connection_options
def drift(
    targets: tuple[str, ...],
    fmt: str,
    fail_on: str,
    against: str | None,
    usage: tuple[Path, ...],
    outputs: _Outputs,
    update: bool,
    allow_empty: bool,
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
    max_pages: int | None,
) -> int:
    """Report how a server's catalog changed, and whether that breaks generated clients.

    \b
    Two files:  mcp-stubgen drift OLD.json NEW.json
    Live:       mcp-stubgen drift [SERVER...]   (re-snapshots in memory; --update writes them)
    Git:        mcp-stubgen drift --against REF [SERVER...]   (committed snapshots vs. their version at REF)
    """
    reporting = _Reporting(fmt, fail_on, outputs, usage)
    files = [target for target in targets if _is_file(target)]
    if files:
        if len(targets) != 2 or len(files) != 2:
            raise click.UsageError("compare exactly two snapshot files: mcp-stubgen drift OLD.json NEW.json")
        if update or against:
            option = "--update" if update else "--against"
            raise click.UsageError(f"{option} works on configured servers; it does not apply to two files")
        old_path, new_path = Path(targets[0]), Path(targets[1])
        old, new = load_snapshot(old_path), load_snapshot(new_path)
        config = load_project(config_path, servers_file)
        shown = ((report_path(new_path), new), (report_path(old_path), old))
        return _finish([_Compared(new.server, old, new, shown)], config, _policy(config), reporting, unchecked={})

    config = load_project(config_path, servers_file)
    policy = _policy(config)
    if against is not None:
        if update:
            raise click.UsageError("--update re-snapshots live servers; --against compares committed files only")
        compared, unchecked = _against_ref(config, targets, against)
        return _finish(compared, config, policy, reporting, unchecked)

    selected = apply_overrides(config.select(targets), protocol, connect_timeout, request_timeout, max_pages)
    committed: dict[str, Snapshot] = {}
    unchecked = {}  # each server that could not be compared, and why
    for server in selected:  # an unreadable snapshot is that server's failure, not the whole run's
        try:
            committed[server.name] = load_snapshot(config.snapshot_path(server.name))
        except StubgenError as error:
            console.error(str(error))
            unchecked[server.name] = str(error)
    comparable = [server for server in selected if server.name in committed]

    from codegen.snapshot.discovery import snapshot_servers  # the SDK's transports load only when needed

    results = snapshot_servers(comparable) if comparable else {}
    fresh: dict[str, Snapshot] = {}
    compared = []
    for server in comparable:
        result = results[server.name]
        if isinstance(result, StubgenError):
            console.error(str(result))
            unchecked[server.name] = str(result)
            continue
        warn_unlisted_methods(result, server)
        old = committed[server.name]
        result = keep_names(old, result, config.method_names(server.name))
        fresh[server.name] = result
        compared.append(_Compared(server.name, old, result, ((report_path(config.snapshot_path(server.name)), old),)))
    code = _finish(compared, config, policy, reporting, unchecked)
    if update:
        for name, snapshot in sorted(fresh.items()):
            path = config.snapshot_path(name)
            try:
                if not allow_empty:
                    refuse_emptied(path, committed[name], snapshot)
                changed = write_snapshot(path, snapshot)
            except StubgenError as error:
                console.error(str(error))
                code = EXIT_ERROR
                continue
            except OSError as error:
                console.error(f"server {name!r}: cannot write {path} ({error.strerror})")
                code = EXIT_ERROR
                continue
            console.note(f"{name}: {'updated' if changed else 'unchanged'} {shown_path(path)}")
    return code


def _without_entries(snapshot: Snapshot) -> Snapshot:
    """The same server with nothing in its catalog: the other side of a server added or deleted since the ref."""
    return dataclasses.replace(snapshot, tools=(), resources=(), resource_templates=(), prompts=())


def _against_ref(config: ProjectConfig, targets: tuple[str, ...], name: str) -> tuple[list[_Compared], dict[str, str]]:
    """Each selected server's committed snapshot against its version at the git ref `name`; a snapshot
    the ref does not have is a new server (everything in it added), one the working tree lost is a
    deleted one (everything removed)."""
    selected = config.select(targets)
    ref = GitRef.resolve(name, config.snapshots)
    moved_from = functools.cache(lambda: _snapshots_at(ref, config))  # read only for a snapshot the ref lacks
    compared: list[_Compared] = []
    unchecked: dict[str, str] = {}
    for server in selected:
        path = config.snapshot_path(server.name)
        shown = report_path(path)
        try:
            base_bytes, base_shown = ref.read(path), shown
            if base_bytes is None and (old_folder := moved_from()) is not None:
                old_path = old_folder / path.name
                base_bytes, base_shown = ref.read(old_path), report_path(old_path)
                if base_bytes is not None:
                    console.note(
                        f"note: {server.name}: compared with {base_shown} at {name}, before the snapshots moved"
                    )
            base = parse_snapshot(base_bytes, f"{name}:{base_shown}") if base_bytes is not None else None
            current = load_snapshot(path) if path.exists() or base is None else None
        except StubgenError as error:
            console.error(str(error))
            unchecked[server.name] = str(error)
            continue
        if base is None:
            assert current is not None
            console.note(f"note: {server.name}: {name} has no {shown} (a new server); its entries are added")
            base = _without_entries(current)
        if current is None:
            console.note(f"note: {server.name}: {shown} was deleted since {name}; its entries are removed")
            current = _without_entries(base)
        files = ((shown, current),) if path.exists() else ()
        compared.append(_Compared(server.name, base, current, files))
    return compared, unchecked


def _snapshots_at(ref: GitRef, config: ProjectConfig) -> Path | None:
    """The snapshots folder the config at `ref` names, when it is not today's: a change that moved the
    folder compares each snapshot with its version at the old place, rather than call every server
    new (all added, none removed), which hid whatever broke. None when the folder did not move, or the
    ref's config cannot be read (each snapshot is then looked for where it is today)."""
    if config.source is None or config.source.suffix != ".toml":
        return None
    try:
        data = ref.read(config.source)
        table = tomllib.loads(data.decode("utf-8"))["tool"]["mcp-stubgen"] if data is not None else None
    except (StubgenError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError):
        return None
    folder = table.get("snapshots", DEFAULT_SNAPSHOTS) if isinstance(table, dict) else None
    if not isinstance(folder, str):
        return None
    moved = config.root / folder
    return moved if moved.resolve() != config.snapshots.resolve() else None


def _policy(config: ProjectConfig) -> DriftPolicy:
    return parse_policy(config.settings, str(config.source or "config"))


def _finish(
    compared: list[_Compared],
    config: ProjectConfig,
    policy: DriftPolicy,
    reporting: _Reporting,
    unchecked: dict[str, str],
) -> int:
    """Compare, apply the ignore list and the project's severities, find uses (`--usage`), print the
    report (naming the servers that could not be checked, and why) and write the `--output` copies, and turn
    it into the exit code: 2 when any server could not be checked."""
    findings = [
        finding
        for pair in compared
        for finding in compare_snapshots(
            pair.old, pair.new, policy.renames_for(pair.server), config.method_names(pair.server)
        )
    ]
    servers = [pair.server for pair in compared]
    filtered = apply_ignores(findings, policy.ignores, servers)
    kept = apply_severities(filtered.kept, policy.severities)
    if reporting.usage:  # saved code-mode scripts use what they call, as application code does
        scripts = (config.scripts,) if config.scripts is not None and config.scripts.is_dir() else ()
        kept = _scan(reporting.usage + scripts, compared, config).attach(kept)
    kept = sort_findings(kept)
    files = {pair.server: pair.files for pair in compared}
    ignore_list = _ignore_list(config) if any(finding.rule == "ignore-unused" for finding in kept) else None

    def report(fmt: str) -> str:
        return render(
            kept,
            fmt,
            len(filtered.ignored),
            unchecked,
            servers=servers,
            files=files,
            threshold=FAIL_ON[reporting.fail_on],
            severities=policy.severities,
            ignore_list=ignore_list,
        )

    click.echo(report(reporting.fmt), nl=False)
    _report_failures(None, reporting.outputs)  # stdout has its report; a file not yet written says the run failed
    code = EXIT_ERROR if unchecked else exit_code(kept, reporting.fail_on)
    if (
        config.scripts is not None
        and _scripts_broken(config.scripts, compared, config)
        and reporting.fail_on != "never"
    ):
        code = max(code, EXIT_FINDINGS)
    for fmt, path in reporting.outputs:
        try:
            atomic_write_bytes(path, click.unstyle(report(fmt)).encode("utf-8"))  # a file gets no colours
        except OSError as error:
            console.error(f"cannot write the {fmt} report to {path} ({error.strerror})")
            code = EXIT_ERROR
    console.report_failures_with(None)  # every report is out: an interrupt while `--update` writes adds none
    return code


def _ignore_list(config: ProjectConfig) -> tuple[str, int] | None:
    """The config file and the line of its first `drift.ignore` entry, where SARIF points an unused one."""
    if config.source is None:
        return None
    try:
        lines = config.source.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    line = next((number for number, text in enumerate(lines, 1) if "drift.ignore" in text), 1)
    return report_path(config.source), line


def _scripts_broken(folder: Path, compared: list[_Compared], config: ProjectConfig) -> bool:
    """Name the saved code-mode scripts (`scripts` in the config) the change breaks, on stderr; whether any."""
    from codegen.scripts.drift import broken_scripts, describe

    try:
        broken = broken_scripts(folder, {pair.server: (pair.old, pair.new) for pair in compared}, config)
    except StubgenError as error:
        console.warn(f"drift: the saved scripts were not checked: {error}")
        return False
    for line in describe(broken):
        console.error(line)
    return bool(broken)


def _scan(paths: Sequence[Path], compared: list[_Compared], config: ProjectConfig) -> Usage:
    return scan_usage(
        paths,
        {pair.server: (pair.old, pair.new) for pair in compared},
        {pair.server: config.method_names(pair.server) for pair in compared},
        config.hub_settings.separator,
        skip=[config.output] if config.output is not None else [],
    )
