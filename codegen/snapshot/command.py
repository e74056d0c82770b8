"""`mcp-stubgen snapshot`: discover configured (or ad hoc) servers and write their snapshots."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import click

from codegen import console
from codegen.config import (
    CLIENT_CAPABILITIES,
    LIST_METHODS,
    SERVER_ID,
    ProjectConfig,
    ServerConfig,
    parse_server,
)
from codegen.errors import EXIT_ERROR, EXIT_OK
from codegen.options import (
    OutPath,
    allow_empty_option,
    apply_overrides,
    config_options,
    connection_options,
    load_project,
    shown_path,
)
from codegen.snapshot import Snapshot
from codegen.snapshot.stdio import INHERITED_NAMES
from codegen.snapshot.summary import counts
from codegen.snapshot.take import take_snapshots


class _SnapshotCommand(click.Command):
    """Remembers whether `--` was given: the words after it are a command to run, not server ids."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["snapshot.command_given"] = "--" in args
        return super().parse_args(ctx, args)


@click.command(cls=_SnapshotCommand)
@click.argument("servers", nargs=-1)
@click.option("--name", help="Ad hoc: the id of a server given by --url or after `--` (default: from the command).")
@click.option("--url", help="Ad hoc: a Streamable HTTP endpoint (an SSE one with --type sse).")
@click.option(
    "--type",
    "transport",
    type=click.Choice(("http", "sse")),
    help="Ad hoc: the transport --url speaks, Streamable HTTP (http, the default) or the older SSE "
    "(sse; a configured server's `type`).",
)
@click.option("--header", "headers", multiple=True, help="Ad hoc: an HTTP header 'Name: value' (repeatable).")
@click.option(
    "--env",
    "env_vars",
    multiple=True,
    metavar="NAME[=VALUE]",
    help="Ad hoc stdio: set NAME for the server, to VALUE or to NAME's value here (repeatable); "
    f"a stdio server sees only {INHERITED_NAMES} otherwise.",
)
@click.option(
    "--out",
    type=OutPath(dir_okay=False),
    help="Ad hoc: where to write the snapshot (default: NAME.json).",
)
@click.option(
    "--skip-list",
    "skip_lists",
    multiple=True,
    type=click.Choice(LIST_METHODS),
    help="Ad hoc: a list method not to call although the server declares it, for one whose listing "
    "fails (repeatable; a configured server's `skip_lists`).",
)
@click.option(
    "--client-capability",
    "client_capabilities",
    multiple=True,
    type=click.Choice(CLIENT_CAPABILITIES),
    help="Ad hoc: a capability to declare in the handshake, for a server that lists some tools only to "
    "clients that declare it (repeatable; a configured server's `client_capabilities`).",
)
@config_options
@connection_options
@allow_empty_option
@console.format_option
def snapshot(
    servers: tuple[str, ...],
    name: str | None,
    url: str | None,
    transport: str | None,
    headers: tuple[str, ...],
    env_vars: tuple[str, ...],
    out: Path | None,
    skip_lists: tuple[str, ...],
    client_capabilities: tuple[str, ...],
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
    max_pages: int | None,
    allow_empty: bool,
) -> int:
    """Discover servers and write one canonical JSON snapshot per server.

    \b
    With a config:  mcp-stubgen snapshot [SERVER...]
    Ad hoc (stdio): mcp-stubgen snapshot [--name NAME] [--env NAME[=VALUE]] [--out FILE] -- COMMAND [ARGS...]
    Ad hoc (HTTP):  mcp-stubgen snapshot --name NAME --url URL [--type sse] [--header 'K: V'] [--out FILE]
    """
    if name is None and servers and click.get_current_context().meta.get("snapshot.command_given"):
        name = derived_server_id(servers)
        if name is None:
            raise click.UsageError(f"cannot tell a server id from the command {servers[0]!r}; pass --name NAME")
        console.note(f"note: no --name given; calling the server {name!r} (from its command)")
    if name is not None:
        config = ProjectConfig(root=Path.cwd(), source=None, snapshots=Path.cwd(), output=None, servers={})
        selected = [ad_hoc_server(name, servers, url, headers, env_vars, skip_lists, transport, client_capabilities)]
        out = out or Path(f"{name}.json")
    else:
        if any(
            (
                url is not None,
                transport is not None,
                headers,
                env_vars,
                out is not None,
                skip_lists,
                client_capabilities,
            )
        ):
            raise click.UsageError(
                "--url, --type, --header, --env, --out, --skip-list and --client-capability need --name (ad hoc mode)"
            )
        config = load_project(config_path, servers_file)
        selected = config.select(servers)
    selected = apply_overrides(selected, protocol, connect_timeout, request_timeout, max_pages)
    taken = take_snapshots(config, selected, out, announce=_announce, allow_empty=allow_empty)
    return EXIT_OK if len(taken) == len(selected) else EXIT_ERROR


def _announce(snapshot: Snapshot, path: Path, changed: bool) -> None:
    console.emit(
        snapshot.server,
        "wrote" if changed else "unchanged",
        snapshot=shown_path(path),
        counts=counts(snapshot),
        protocol=snapshot.protocol_version,
        missing_methods=list(snapshot.missing_methods),
        skipped_lists=list(snapshot.skipped_lists),
    )


_LAUNCHER = re.compile(
    r"(?:npx|bunx|pnpx|uvx|pipx|uv|npm|pnpm|yarn|bun|deno|node|docker|podman|python[0-9.]*|py|java|dotnet|go)"
)
_LAUNCHER_VERBS = frozenset({"run", "x", "dlx", "exec", "tool"})
_CONTAINER_OPTIONS = frozenset(
    {"-e", "--env", "--env-file", "-v", "--volume", "--mount", "--name", "-p", "--publish", "--network", "--net",
     "-w", "--workdir", "-u", "--user", "--entrypoint", "--platform", "--pull", "-l", "--label", "--add-host",
     "-h", "--hostname", "--device", "--cap-add", "--cap-drop", "--security-opt", "--tmpfs", "--ulimit", "-m",
     "--memory", "--cpus", "--gpus", "--dns", "--shm-size", "--restart", "--runtime", "--log-driver",
     "--log-opt", "--expose", "--group-add", "--ipc", "--pid", "--stop-signal", "--cidfile"}
)  # fmt: skip
_NPM_OPTIONS = frozenset({"-p", "--package", "--prefix", "--cache", "--registry", "--userconfig", "-c", "--call", "-w", "--workspace", "--node-options"})  # fmt: skip
_UV_OPTIONS = frozenset(
    {"--from", "--with", "--with-editable", "--with-requirements", "-p", "--python", "--index", "--index-url",
     "--extra-index-url", "--default-index", "-f", "--find-links", "-c", "--constraints", "--overrides",
     "--cache-dir", "--directory", "--project", "--env-file", "--exclude-newer", "--python-preference",
     "--index-strategy", "--resolution", "--prerelease", "--config-file", "--color", "--refresh-package",
     "--reinstall-package", "--upgrade-package", "--keyring-provider"}
)  # fmt: skip
_VALUE_OPTIONS = {
    "docker": _CONTAINER_OPTIONS,
    "podman": _CONTAINER_OPTIONS,
    "npx": _NPM_OPTIONS,
    "npm": _NPM_OPTIONS,
    "pnpm": frozenset({"--package", "-C", "--dir", "--filter", "-c"}),
    "pnpx": frozenset({"--package", "-C", "--dir", "--filter", "-c"}),
    "yarn": frozenset({"-p", "--package", "--cwd"}),
    "bun": frozenset({"-p", "--package", "--cwd", "-c", "--config"}),
    "bunx": frozenset({"-p", "--package", "--cwd", "-c", "--config"}),
    "uvx": _UV_OPTIONS,
    "uv": _UV_OPTIONS,
    "pipx": frozenset({"--spec", "--python", "--pip-args", "-i", "--index-url"}),
    "python": frozenset({"-X", "-W", "--check-hash-based-pycs"}),
    "node": frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "-e", "--eval", "-p",
                       "--print", "-C", "--conditions", "--env-file", "--title", "--input-type"}),
    "deno": frozenset({"-c", "--config", "--import-map", "--location", "--cert", "--seed"}),
    "java": frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules",
                       "--enable-native-access"}),
    "dotnet": frozenset({"-c", "--configuration", "-f", "--framework", "-r", "--runtime", "--launch-profile"}),
    "go": frozenset({"-C", "-tags", "-ldflags", "-gcflags", "-mod", "-modfile", "-exec", "-o"}),
}  # fmt: skip
"""The options of each launcher that take the next word as their value (`docker run -e NAME image`,
`uvx --python 3.12 server`): that word is not what the launcher runs. `python -c CODE` runs no named
file, so it names nothing."""
_NOT_A_NAME = frozenset({"index", "main", "server", "cli", "app", "__main__", "dist", "build", "src", "lib", "bin"})
_SAYS_ONLY_MCP = frozenset({"mcp", "mcp-server", "mcp_server", "server-mcp"})
"""Package names that say what every server is, not which: `@currents/mcp`, `@sentry/mcp-server`."""
_PLATFORM = re.compile(
    r"(?:^|-)(?:linux|darwin|macos|win32|windows|freebsd|openbsd|android|sunos|aix)"
    r"-(?:x64|x86_64|amd64|arm64|aarch64|ia32|x86|arm|armv7|ppc64|ppc64le|s390x|riscv64|loong64)"
    r"(?:-(?:musl|gnu|gnueabihf|msvc))?$"
)
"""What ends the name of an npm package that ships one platform's binary (`@onshape-mcp/linux-x64`,
`@falconer/mcp-linux-x64`, `kubernetes-mcp-server-linux-amd64`): which machine, not which server."""


def derived_server_id(command: tuple[str, ...]) -> str | None:
    """A server id from what the command runs, or None when it names nothing useful.

    After a launcher (`npx`, `uvx`, `python`, `docker run`, ...) that is the first word that is
    not an option: `npx -y @scope/server-x@1.2` gives `server-x`, `python -m mcp_server_time`
    `mcp_server_time`, `docker run -i --rm mcp/fetch:latest` `fetch`, `java -jar weather-mcp.jar`
    `weather-mcp`, `dotnet run --project src/WeatherMcp` `WeatherMcp`, `go run ./cmd/weather`
    `weather`; otherwise the program's own
    name (`./weather_server.py` gives `weather_server`). A file inside an npm package is named after
    the package, whatever its entry point is called: `node node_modules/@antv/mcp-server-chart/build/index.js`
    is `mcp-server-chart`, and `node node_modules/@mastra/mcp-docs-server/dist/stdio.js`
    `mcp-docs-server`; elsewhere a file named like any package's entry point (`index.js`, `build/`)
    gives its folder's name. A scoped package whose own name says only "mcp" keeps its scope
    (`npx -y @currents/mcp` is `currents-mcp`, as is its `node_modules/.bin/mcp` link). A package of
    one platform's binary is named without its platform (`@onshape-mcp/linux-x64/bin/onshape-mcp` is
    `onshape-mcp`, `@falconer/mcp-linux-x64/falconer-mcp` `falconer-mcp`). Characters a server id cannot
    hold become `-`.
    """
    program, *rest = command
    target = program
    launcher = Path(program).name.removesuffix(".exe")
    if _LAUNCHER.fullmatch(launcher):
        takes_value = _VALUE_OPTIONS.get("python" if launcher.startswith("py") else launcher, frozenset())
        words = iter(rest)
        for word in words:
            if word == "-c" and launcher.startswith("py"):
                return None  # `python -c CODE` runs no named file or module
            if word in takes_value:
                next(words, None)
            elif not word.startswith("-") and "=" not in word and word not in _LAUNCHER_VERBS:
                target = word
                break
        else:
            return None
    if launcher == "java":  # a jar without its version (`weather-mcp-1.0.jar`), a main class by its own name
        target = (
            re.sub(r"-[0-9]+(?:\.[0-9]+)*(?:-[A-Za-z0-9.]+)?\.jar$", ".jar", target)
            if target.endswith(".jar")
            else target.rpartition(".")[2]
        )
    parts = Path(target).parts
    if "node_modules" in parts:  # a file of an installed npm package: the package
        package = parts[len(parts) - parts[::-1].index("node_modules") :]
        if package[:1] == (".bin",) and Path(target).stem in _SAYS_ONLY_MCP:  # `.bin/mcp`: its package
            package = _linked_package(target) or package
        if package[:1] != (".bin",):  # a `.bin/` link that says more keeps its own name (`.bin/azmcp`)
            target = "/".join(package[:2] if package[:1] and package[0].startswith("@") else package[:1])
            target = _PLATFORM.sub("", target) or target
    if target.startswith("@"):  # an npm package of a scope, named by its scope too when it says only "mcp"
        scope, _, name = target[1:].partition("/")
        name = _PLATFORM.sub("", name.partition("@")[0])
        target = f"{scope}-{name}" if name in _SAYS_ONLY_MCP else name or scope
    for part in reversed(Path(target).parts):  # a file of a package (`build/index.js`) is named by its folder
        part = part.partition("@")[0].partition(":")[0]  # no version or image tag
        for suffix in (".py", ".js", ".mjs", ".cjs", ".ts", ".exe", ".jar", ".dll", ".csproj"):
            part = part.removesuffix(suffix)
        candidate = re.sub(r"[^A-Za-z0-9_-]+", "-", part).lstrip("0123456789_-").rstrip("-")[:64]
        if candidate not in _NOT_A_NAME:
            return candidate if candidate and SERVER_ID.match(candidate) else None
    return None


def _linked_package(link: str) -> tuple[str, ...] | None:
    """The parts of the path below `node_modules/` of the file a `.bin/` link points at, if it is in a package."""
    parts = Path(link).resolve().parts
    if "node_modules" not in parts:
        return None
    package = parts[len(parts) - parts[::-1].index("node_modules") :]
    return package if package[:1] != (".bin",) else None


def ad_hoc_server(
    name: str,
    command: tuple[str, ...],
    url: str | None,
    headers: tuple[str, ...],
    env_vars: tuple[str, ...] = (),
    skip_lists: tuple[str, ...] = (),
    transport: str | None = None,
    client_capabilities: tuple[str, ...] = (),
) -> ServerConfig:
    if (url is None) == (not command):
        raise click.UsageError("give either --url URL or `-- COMMAND [ARGS...]` with --name")
    if url is not None and env_vars:
        raise click.UsageError("--env is for a stdio server's command; an HTTP server takes --header")
    if url is None and transport is not None:
        raise click.UsageError("--type is the transport of --url; a command's server speaks stdio")
    parsed_headers = {}
    for header in headers:
        key, separator, value = header.partition(":")
        if not separator or not key.strip():
            raise click.UsageError(f"--header {key.strip() or '?'!r}: expected 'Name: value'")
        parsed_headers[key.strip()] = value.strip()
    raw: dict[str, object] = (
        {"url": url, "headers": parsed_headers}
        if url
        else {"command": command[0], "args": list(command[1:]), "env": ad_hoc_env(env_vars)}
    )
    if transport is not None:
        raw["type"] = transport
    if skip_lists:
        raw["skip_lists"] = sorted(set(skip_lists))
    if client_capabilities:
        raw["client_capabilities"] = list(client_capabilities)
    return dataclasses.replace(parse_server(name, raw, f"--name {name}", Path.cwd()), ad_hoc=True)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def ad_hoc_env(env_vars: tuple[str, ...]) -> dict[str, str]:
    """The `env` of an ad hoc stdio server from `--env NAME=VALUE` and `--env NAME`; a bare NAME is
    `${NAME}`, as a config would write it, so it is read from this environment when connecting (a
    missing one is an error naming it) and its value is scrubbed from what the server prints."""
    env = {}
    for entry in env_vars:
        key, separator, value = entry.partition("=")
        if not _ENV_NAME.fullmatch(key):
            raise click.UsageError(f"--env {key or '?'!r}: expected NAME or NAME=VALUE, NAME a variable name")
        env[key] = value if separator else f"${{{key}}}"
    return env
