"""A readable view of one catalog, as its generated client sees it: `mcp-stubgen inspect`.

The view is built from the generator's intermediate model (`PackageSpec`), so the Python names,
types and defaults shown are exactly those of the generated methods, beside the names on the wire.
Every piece of server text goes through `one_line` before it is shown: a description cannot start a
new line or drive the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from inspect import cleandoc
from typing import Any

from codegen.errors import one_line
from codegen.generate.spec import PackageSpec, Parameter, ToolSpec
from codegen.runtime._hub_catalog import HINT_DEFAULTS
from codegen.snapshot import Snapshot

_BADGES = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open-world"),
)


def badges(annotations: Mapping[str, Any] | None) -> list[str]:
    """A tool's behaviour hints as hosts read them: a hint the server does not give is the spec's
    default (so a tool without annotations may be destructive and open-world), and `destructive`
    applies only to a tool that is not read-only."""
    given = annotations or {}
    hints = {hint: given.get(hint, default) for hint, default in HINT_DEFAULTS.items()}
    if hints["readOnlyHint"] is True:
        hints["destructiveHint"] = False
    return [badge for hint, badge in _BADGES if hints[hint] is True]


def _parameter_json(parameter: Parameter) -> dict[str, Any]:
    return {
        "python": parameter.python,
        "wire": parameter.wire,
        "type": parameter.annotation,
        "required": parameter.required,
        "default": parameter.default,
        "description": parameter.description,
    }


def catalog_json(snapshot: Snapshot, package: PackageSpec) -> dict[str, Any]:
    """The view as the fields of an `inspect --format json` object (server text as the server sent it)."""
    annotations = {tool["name"]: tool.get("annotations") for tool in snapshot.tools}
    return {
        "protocol": snapshot.protocol_version,
        "server_info": snapshot.server_info,
        "instructions": snapshot.instructions,
        "package": package.package,
        "client": package.class_name,
        "tools": [
            {
                "name": tool.wire,
                "method": tool.method,
                "title": tool.title,
                "description": tool.description,
                "badges": badges(annotations.get(tool.wire)),
                "annotations": annotations.get(tool.wire),
                "input": tool.input_kind,
                "parameters": [_parameter_json(parameter) for parameter in tool.parameters],
                "returns": tool.return_annotation,
                "output": tool.output_kind,
            }
            for tool in _by_wire(package.tools)
        ],
        "aliases": [
            {"method": alias.method, "old_name": alias.old_wire, "calls": alias.tool.method}
            for alias in package.aliases
        ],
        "resources": [
            {
                "uri": resource.uri,
                "name": resource.name,
                "method": resource.method,
                "mime_type": resource.mime_type,
                "description": resource.description,
            }
            for resource in sorted(package.resources, key=lambda resource: resource.uri)
        ],
        "templates": [
            {
                "uri_template": template.uri_template,
                "name": template.name,
                "method": template.method,
                "mime_type": template.mime_type,
                "description": template.description,
                "parameters": [_parameter_json(parameter) for parameter in template.parameters],
            }
            for template in sorted(package.templates, key=lambda template: template.uri_template)
        ],
        "prompts": [
            {
                "name": prompt.wire,
                "method": prompt.method,
                "description": prompt.description,
                "parameters": [_parameter_json(parameter) for parameter in prompt.parameters],
            }
            for prompt in sorted(package.prompts, key=lambda prompt: prompt.wire)
        ],
    }


def _by_wire(tools: Iterable[ToolSpec]) -> list[ToolSpec]:
    return sorted(tools, key=lambda tool: tool.wire)


SHOWN = 160
"""Characters of a description or instructions text shown; `--format json` has every text whole."""


def _short(text: str) -> str:
    """Server text on one line, escaped, cut at `SHOWN` characters (cut before escaping, so an escape
    is never halved); read first as a docstring is (`cleandoc`), as the generated docstrings show it:
    a Python server's text often starts with a line break and is indented like its source."""
    text = cleandoc(text)
    return one_line(text) if len(text) <= SHOWN else one_line(text[:SHOWN]) + "…"


def _quoted(text: str) -> str:
    return '"' + one_line(text).replace('"', '\\"') + '"'


def _wire_note(python: str, wire: str, what: str) -> str:
    """`(tool "get-user")` when the Python name differs from the name on the wire, else nothing."""
    return "" if python == wire else f"  ({what} {_quoted(wire)})"


def _parameter_line(parameter: Parameter) -> str:
    parts = [f"{parameter.python}: {one_line(parameter.annotation)}"]
    if parameter.required:
        parts.append("required")
    elif parameter.default is not None:
        parts.append(f"default {one_line(parameter.default)}")
    line = "  ".join(parts)
    return line + _wire_note(parameter.python, parameter.wire, "wire")


def _described(description: str | None, parameters: Iterable[Parameter]) -> list[str]:
    lines = [f"      {_short(description)}"] if description else []
    return lines + [f"      {_parameter_line(parameter)}" for parameter in parameters]


def _section(title: str, count: int) -> list[str]:
    return ["", f"{title} ({count})"]


def catalog_text(snapshot: Snapshot, package: PackageSpec, source: str) -> str:
    """The view for people: a heading, then tools, resources, templates and prompts, one block each."""
    info = snapshot.server_info or {}
    version = " ".join(
        one_line(info[key]) for key in ("name", "version") if isinstance(info.get(key), str) and info[key].strip()
    )
    lines = [
        f"{snapshot.server}  ({one_line(source)})",
        f"  server {version or '(no serverInfo)'}, protocol {one_line(snapshot.protocol_version)}; "
        f"client {package.class_name} in package {package.package}",
    ]
    if snapshot.instructions:
        lines.append(f"  instructions: {_short(snapshot.instructions)}")
    annotations = {tool["name"]: tool.get("annotations") for tool in snapshot.tools}
    lines += _section("tools", len(package.tools))
    for tool in _by_wire(package.tools):
        shown = "".join(f" [{badge}]" for badge in badges(annotations.get(tool.wire)))
        heading = f"  {tool.method}{_wire_note(tool.method, tool.wire, 'tool')} -> {one_line(tool.return_annotation)}"
        lines.append(heading + (f" {shown}" if shown else ""))
        if tool.title:
            lines.append(f"      title: {_short(tool.title)}")
        lines += _described(tool.description, tool.parameters)
        if tool.extra:
            lines.append(f"      {tool.extra}: more arguments by wire name, as the schema allows")
    if package.aliases:
        lines += _section("deprecated aliases of renamed tools", len(package.aliases))
        for alias in package.aliases:
            lines.append(f"  {alias.method}  (old tool {_quoted(alias.old_wire)}) -> calls {alias.tool.method}")
    lines += _section("resources", len(package.resources))
    for resource in sorted(package.resources, key=lambda resource: resource.uri):
        mime = f"  {one_line(resource.mime_type)}" if resource.mime_type else ""
        lines.append(f"  {resource.method}  {one_line(resource.uri)}{mime}")
        lines += _described(resource.description, ())
    lines += _section("templates", len(package.templates))
    for template in sorted(package.templates, key=lambda template: template.uri_template):
        mime = f"  {one_line(template.mime_type)}" if template.mime_type else ""
        lines.append(f"  {template.method}  {one_line(template.uri_template)}{mime}")
        lines += _described(template.description, template.parameters)
    lines += _section("prompts", len(package.prompts))
    for prompt in sorted(package.prompts, key=lambda prompt: prompt.wire):
        lines.append(f"  {prompt.method}  (prompt {_quoted(prompt.wire)})")
        lines += _described(prompt.description, prompt.parameters)
    return "\n".join(lines) + "\n"
