"""The hub package: every server's typed client behind one namespaced tool catalog for agents.

With `hub = true`, `generate` writes `<output>/hub/` beside the servers' packages. Its `Hub` holds
one typed client per server as an attribute and a catalog that maps each qualified name
(`server__tool`) explicitly to the owning client and the tool's own name, so a name is looked up,
never split. The hub imports the servers' packages relatively (`from ..weather import ...`),
so it is always generated from the same snapshots as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codegen import __version__
from codegen.config import HubSettings
from codegen.errors import StubgenError
from codegen.generate.build import build_package
from codegen.generate.cache import Cache
from codegen.generate.escaping import python_literal
from codegen.generate.piecewise_black import formatted
from codegen.generate.pipeline import Rendered, publish_rendered
from codegen.generate.proof import RenderKey, hub_source
from codegen.generate.publish import Published
from codegen.generate.runtime_folder import publish_runtime
from codegen.generate.spec import PackageSpec
from codegen.generate.templating import jinja_environment
from codegen.identifiers import HUB_PACKAGE, hub_attribute, qualified_tools
from codegen.runtime._hub_catalog import ToolFilter, model_visible
from codegen.runtime._hub_runtime import LiveTools
from codegen.snapshot import Snapshot, fingerprint

__all__ = [
    "HubServer",
    "HubSettings",
    "HubSpec",
    "HubToolSpec",
    "build_hub",
    "generate_hub",
    "hub_dir",
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
class HubToolSpec:
    qualified_name: str
    server: str
    attribute: str
    wire: str
    description: str | None
    title: str | None
    input_schema: str
    """The snapshot's input JSON Schema as a Python literal."""
    output_schema: str | None
    """The snapshot's output JSON Schema as a Python literal, if the tool declares one."""
    annotations: str | None
    """The tool's annotations as a Python literal, if it has any."""
    app_only: bool
    """The server hides it from the model (MCP Apps `_meta.ui.visibility`)."""


@dataclass(frozen=True)
class HubSpec:
    header: str
    separator: str
    servers: tuple[HubServer, ...]
    tools: tuple[HubToolSpec, ...]
    filters: tuple[tuple[str, str], ...]
    """Each filtered server's id and its `ToolFilter(...)` as a Python expression, sorted, for the run time."""
    live_tools: LiveTools


def hub_dir(out_dir: Path) -> Path:
    """The hub package's folder, beside the servers' packages."""
    return out_dir / HUB_PACKAGE


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
    for qualified in qualified_tools(catalog, settings.separator, methods):
        snapshot, package = by_server[qualified.server]
        spec = next(tool for tool in package.tools if tool.wire == qualified.tool)
        raw = next(tool for tool in snapshot.tools if tool["name"] == qualified.tool)
        hub_server = servers[qualified.server]
        tools.append(
            HubToolSpec(
                qualified_name=qualified.qualified_name,
                server=qualified.server,
                attribute=hub_server.attribute,
                wire=qualified.tool,
                description=raw.get("description"),
                title=spec.title,
                input_schema=python_literal(raw["inputSchema"]),
                output_schema=python_literal(raw["outputSchema"]) if "outputSchema" in raw else None,
                annotations=python_literal(raw["annotations"]) if raw.get("annotations") else None,
                app_only=not model_visible(raw.get("_meta")),
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


def render_hub_package(hub: HubSpec, cache: Cache | None = None) -> dict[str, bytes]:
    """The hub package's files: `client.py` (the `Hub` class), `__init__.py` and `py.typed` (its runtime
    is the output folder's, with the hub's modules: `runtime_folder`)."""
    templates = jinja_environment()
    rendered = {
        "__init__.py": templates.get_template("hub_init.py.jinja").render(hub=hub),
        "client.py": templates.get_template("hub_client.py.jinja").render(hub=hub),
    }
    sources = formatted([("module", source) for source in rendered.values()], cache or Cache.disabled())
    output = {name: source.encode("utf-8") for name, source in zip(rendered, sources, strict=True)}
    output["py.typed"] = b""
    return dict(sorted(output.items()))
