"""The hub package: every server's typed client behind one namespaced tool catalog for agents.

With `hub = true`, `generate` writes `<output>/hub/` beside the servers' packages. Its `Hub` holds
one typed client per server as an attribute and a catalog that maps each qualified name
(`server__tool`) explicitly to the owning client and the tool's own name, so a name is looked up,
never split. The hub imports the servers' packages relatively (`from ..weather import ...`),
so it is always generated from the same snapshots as they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codegen import __version__
from codegen.config import HubSettings
from codegen.errors import StubgenError
from codegen.generate.build import build_package
from codegen.generate.cache import Cache
from codegen.generate.contract import ANY_ARGUMENTS, skips_sdk_output_check
from codegen.generate.escaping import python_literal
from codegen.generate.piecewise_black import formatted
from codegen.generate.pipeline import Rendered, hub_dir, publish_rendered
from codegen.generate.proof import RenderKey, hub_source
from codegen.generate.publish import Published
from codegen.generate.runtime_folder import publish_runtime
from codegen.generate.spec import PackageSpec
from codegen.generate.templating import jinja_environment
from codegen.identifiers import HUB_PACKAGE, hub_attribute, qualified_tools
from codegen.runtime._hub_catalog import CATALOG_FILE, CATALOG_FORMAT, HubTool, ToolFilter, model_visible
from codegen.runtime._hub_runtime import LiveTools
from codegen.snapshot import Snapshot, fingerprint

__all__ = [
    "HubServer",
    "HubSettings",
    "HubSpec",
    "build_hub",
    "catalog_json",
    "generate_hub",
    "render_hub",
]


@dataclass(frozen=True)
class HubServer:
    server: str
    attribute: str
    """The hub attribute and `Hub.connect` keyword for this server's client."""
    package: str
    client_class: str
    sync_client_class: str
    about: str
    """The server's own words about itself (title, description, instructions), which the shortlist searches."""


@dataclass(frozen=True)
class HubSpec:
    header: str
    separator: str
    servers: tuple[HubServer, ...]
    tools: tuple[HubTool, ...]
    """The catalog as the generated hub loads it from its `catalog.json` (`catalog_json`)."""
    filters: tuple[tuple[str, str], ...]
    """Each filtered server's id and its `ToolFilter(...)` as a Python expression, sorted, for the run time."""
    live_tools: LiveTools


def render_hub(
    servers: Sequence[tuple[Snapshot, Mapping[str, str]]],
    cache: Cache | None = None,
    settings: HubSettings = HubSettings(),
) -> dict[str, bytes]:
    """Every file of the hub package over these servers (snapshot and method names each), by relative path.

    `cache` (default: none) is the one the servers' own packages use, so the hub reuses their models
    and formatted pieces instead of generating every server's models again.
    """
    cache = cache or Cache.disabled()
    packages = [(snapshot, build_package(snapshot, method_names, cache)) for snapshot, method_names in servers]
    return render_hub_package(build_hub(packages, settings), cache)


def generate_hub(
    servers: Sequence[tuple[Snapshot, Mapping[str, str]]],
    out_dir: Path,
    cache: Cache | None = None,
    settings: HubSettings = HubSettings(),
) -> Published:
    """Render the hub over these servers and publish it under `out_dir`, after the folder's runtime
    with the hub's modules, and record it as current; raises StubgenError."""
    cache = cache or Cache.disabled()
    files = render_hub(servers, cache, settings)
    key = RenderKey(hub_source([(snapshot.canonical_bytes(), names) for snapshot, names in servers], settings))
    publish_runtime(out_dir, with_hub=True)
    return publish_rendered(Rendered(hub_dir(out_dir), files, key), cache)


def build_hub(packages: Sequence[tuple[Snapshot, PackageSpec]], settings: HubSettings = HubSettings()) -> HubSpec:
    """The hub's intermediate model; a server id that makes a bad or ambiguous name is a `StubgenError`.

    Tools the settings' filters leave out are not in it at all, so the hub cannot call them.
    """
    if not packages:
        raise StubgenError("hub: no servers to put in the hub; configure at least one under [tool.mcp-stubgen.servers]")
    by_server: dict[str, tuple[Snapshot, PackageSpec]] = {}
    owners: dict[str, str] = {}
    for snapshot, package in sorted(packages, key=lambda pair: pair[0].server):
        if snapshot.server in by_server:
            raise StubgenError(f"hub: server {snapshot.server!r} is given twice")
        by_server[snapshot.server] = (snapshot, package)
        if package.package == HUB_PACKAGE:
            raise StubgenError(
                f"hub: server {snapshot.server!r} would generate the package {HUB_PACKAGE!r}, which is the hub's own "
                "folder; rename the server id"
            )
        for name in (package.package, package.class_name, package.sync_class_name):
            if name in owners:
                raise StubgenError(
                    f"hub: servers {owners[name]!r} and {snapshot.server!r} both generate {name!r}; "
                    "rename one of the server ids"
                )
            owners[name] = snapshot.server

    servers = {
        server: HubServer(
            server=server,
            attribute=hub_attribute(server),
            package=package.package,
            client_class=package.class_name,
            sync_client_class=package.sync_class_name,
            about=_about(snapshot),
        )
        for server, (snapshot, package) in by_server.items()
    }
    attributes: dict[str, str] = {}
    for hub_server in servers.values():
        if hub_server.attribute in attributes:
            raise StubgenError(
                f"hub: servers {attributes[hub_server.attribute]!r} and {hub_server.server!r} would both be the "
                f"hub attribute {hub_server.attribute!r}; rename one of the server ids"
            )
        attributes[hub_server.attribute] = hub_server.server

    unknown = sorted(set(settings.filters) - set(by_server))
    if unknown:
        raise StubgenError(
            f"hub: [tool.mcp-stubgen.hub_filters.{unknown[0]}] names no server of the hub; "
            f"the servers are {', '.join(sorted(by_server))}"
        )
    no_filter = ToolFilter()
    catalog = {
        server: [
            tool["name"]
            for tool in snapshot.tools
            if settings.filters.get(server, no_filter).allows(tool["name"], tool.get("annotations") or {})
        ]
        for server, (snapshot, _) in by_server.items()
    }
    tools = []
    methods = {server: {tool.wire: tool.method for tool in package.tools} for server, (_, package) in by_server.items()}
    rules = {server: snapshot.naming_rules for server, (snapshot, _) in by_server.items()}
    for qualified in qualified_tools(catalog, settings.separator, methods, rules):
        snapshot, package = by_server[qualified.server]
        spec = next(tool for tool in package.tools if tool.wire == qualified.tool)
        raw = next(tool for tool in snapshot.tools if tool["name"] == qualified.tool)
        hub_server = servers[qualified.server]
        tools.append(
            HubTool(
                qualified_name=qualified.qualified_name,
                server=qualified.server,
                client=hub_server.attribute,
                tool=qualified.tool,
                description=raw.get("description"),
                input_schema=ANY_ARGUMENTS if "inputSchema" in spec.left_to_server else raw["inputSchema"],
                title=spec.title,
                output_schema=None if "outputSchema" in spec.left_to_server else raw.get("outputSchema"),
                annotations=raw.get("annotations") or {},
                app_only=not model_visible(raw.get("_meta")),
                skip_sdk_output_check=skips_sdk_output_check(raw, spec),
            )
        )
    fingerprints = {server: snapshot.fingerprint for server, (snapshot, _) in by_server.items()}
    header = (
        f"# Generated by mcp-stubgen {__version__} from the snapshots of {len(fingerprints)} server(s) "
        f"(combined fingerprint {fingerprint(fingerprints)}).\n"
        "# Do not edit: run `mcp-stubgen sync` (or `mcp-stubgen generate`) to refresh it."
    )
    return HubSpec(
        header=header,
        separator=settings.separator,
        servers=tuple(servers[name] for name in sorted(servers)),
        tools=tuple(tools),
        filters=tuple((server, _filter_expression(settings.filters[server])) for server in sorted(settings.filters)),
        live_tools=settings.live_tools,
    )


def _about(snapshot: Snapshot) -> str:
    """What the server says about itself: its title and description from the handshake, and its instructions."""
    info = snapshot.server_info if isinstance(snapshot.server_info, dict) else {}
    parts = [info.get("title"), info.get("description"), snapshot.instructions]
    return " ".join(part for part in parts if isinstance(part, str) and part)


def _filter_expression(rule: ToolFilter) -> str:
    """The filter as the generated hub builds it again at run time."""
    return (
        f"ToolFilter(include={python_literal(list(rule.include))}, exclude={python_literal(list(rule.exclude))}, "
        f"annotations={python_literal(dict(sorted(rule.annotations.items())))})"
    )


def catalog_json(tools: Sequence[HubTool]) -> bytes:
    """The hub's `catalog.json`: canonical JSON (sorted keys, no spaces, UTF-8, a trailing newline),
    one tool a line in the hub's order so a diff names the tools that changed, each with `HubTool`'s
    fields by name and those at their default left out. `json.dumps` writes every catalog string as
    a JSON string: the file is data that no catalog can turn into code."""
    lines = [
        json.dumps(_catalog_entry(tool), sort_keys=True, separators=(",", ":"), ensure_ascii=False) for tool in tools
    ]
    body = "[\n" + ",\n".join(lines) + "\n]" if lines else "[]"
    return f'{{"format":{CATALOG_FORMAT},"tools":{body}}}\n'.encode()


def _catalog_entry(tool: HubTool) -> dict[str, object]:
    entry: dict[str, object] = {
        "qualified_name": tool.qualified_name,
        "server": tool.server,
        "client": tool.client,
        "tool": tool.tool,
        "description": tool.description,
        "input_schema": tool.input_schema,
    }
    if tool.title is not None:
        entry["title"] = tool.title
    if tool.output_schema is not None:
        entry["output_schema"] = tool.output_schema
    if tool.annotations:
        entry["annotations"] = tool.annotations
    if tool.app_only:
        entry["app_only"] = True
    if tool.skip_sdk_output_check:
        entry["skip_sdk_output_check"] = True
    return entry


def render_hub_package(hub: HubSpec, cache: Cache | None = None) -> dict[str, bytes]:
    """The hub package's files: `client.py` (the `Hub` class), its tools as data (`catalog.json`),
    `__init__.py` and `py.typed` (its runtime is the output folder's, with the hub's modules: `runtime_folder`)."""
    templates = jinja_environment()
    rendered = {
        "__init__.py": templates.get_template("hub_init.py.jinja").render(hub=hub),
        "client.py": templates.get_template("hub_client.py.jinja").render(hub=hub),
    }
    sources = formatted([("module", source) for source in rendered.values()], cache or Cache.disabled())
    output = {name: source.encode("utf-8") for name, source in zip(rendered, sources, strict=True)}
    output[CATALOG_FILE] = catalog_json(hub.tools)
    output["py.typed"] = b""
    return dict(sorted(output.items()))
