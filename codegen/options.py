"""Options and output helpers every command shares: the project config, connection overrides and
paths shown relative to the working directory (what is printed where is `codegen.console`'s)."""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from codegen import console
from codegen.config import ProjectConfig, ServerConfig, Timeouts, load_config, validate_protocol

if TYPE_CHECKING:
    from codegen.generate.cache import Cache

_Command = TypeVar("_Command", bound=Callable[..., Any])


class OutPath(click.Path):
    """`--out`: an empty value (an unset shell variable, `--out "$OUT"`) meant the working directory,
    into which `generate` then wrote every package."""

    def __init__(self, *, file_okay: bool = True, dir_okay: bool = True) -> None:
        super().__init__(path_type=Path, file_okay=file_okay, dir_okay=dir_okay)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("an empty path (an unset variable?); give a path", param, ctx)
        return super().convert(value, param, ctx)


class Seconds(click.FloatRange):
    """A positive number of seconds: `nan` passes `FloatRange` (it compares false with every bound)
    and then failed deep inside a connection, blamed on the server."""

    name = "seconds"

    def __init__(self) -> None:
        super().__init__(min=0, min_open=True)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return number


def config_options(command: _Command) -> _Command:
    """`--config` and `--servers-file`, shared by every command that reads the project config."""
    command = click.option(
        "--servers-file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="An mcpServers (Claude, Cursor) or VS Code servers JSON file to read servers from.",
    )(command)
    return click.option(
        "--config",
        "config_path",
        type=click.Path(path_type=Path, dir_okay=False),
        help="pyproject.toml to read [tool.mcp-stubgen] from (default: the nearest one upwards).",
    )(command)


def connection_options(command: _Command) -> _Command:
    """Overrides for how every selected server is reached."""
    for option in (
        click.option(
            "--max-pages",
            type=click.IntRange(min=1),
            metavar="N",
            help="Pages one listing may take; more is an error (default: a server's max_pages, else 1000).",
        ),
        click.option("--request-timeout", type=Seconds(), help="Seconds per request."),
        click.option("--connect-timeout", type=Seconds(), help="Seconds for start-up and handshake."),
        click.option(
            "--protocol",
            help="Handshake: auto (server/discover, legacy fallback), legacy, or a protocol version to pin.",
        ),
    ):
        command = option(command)
    return command


def apply_overrides(
    servers: list[ServerConfig],
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
    max_pages: int | None,
) -> list[ServerConfig]:
    result = []
    for server in servers:
        timeouts = Timeouts(
            connect=connect_timeout or server.timeouts.connect, request=request_timeout or server.timeouts.request
        )
        chosen = validate_protocol(protocol, "--protocol") if protocol is not None else server.protocol
        pages = max_pages or server.max_pages
        result.append(dataclasses.replace(server, protocol=chosen, timeouts=timeouts, max_pages=pages))
    return result


def load_project(config_path: Path | None, servers_file: Path | None) -> ProjectConfig:
    """The project's config, with what reading it set aside (a disabled server, another client's keys) reported."""
    config = load_config(config_path, servers_file)
    for notice in config.notices:
        console.note(f"note: {notice}")
    for warning in config.warnings:
        console.warn(warning)
    return config


def shown_path(path: Path) -> str:
    try:
        resolved = path.resolve()
    except (RuntimeError, OSError):  # a symbolic link loop: shown where it is, unresolved
        resolved = Path(os.path.abspath(path))
    try:
        return str(resolved.relative_to(Path.cwd()))
    except ValueError:  # outside the working folder
        return str(path)


cache_option = click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache of generated pieces (MCP_STUBGEN_CACHE_DIR, else the user cache folder).",
)


def cache_for(no_cache: bool) -> Cache:
    """The running command's cache, trimmed to its size bound when the command ends, however it ends."""
    from codegen.generate.cache import Cache  # the generator loads only for the commands that generate

    cache = Cache.disabled() if no_cache else Cache.default()
    click.get_current_context().call_on_close(cache.trim)
    return cache


allow_empty_option = click.option(
    "--allow-empty",
    is_flag=True,
    help="Write a snapshot that lists nothing, or has no serverInfo, over a committed one that does.",
)
