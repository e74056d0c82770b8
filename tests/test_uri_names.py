"""Resources and templates whose names read alike are named after their URIs by naming rules 7: an
OpenAI Apps SDK (Skybridge) server lists `ui://widget/flights.html` and `ui://widget/flights-v2.html`,
both named `flights`, which rules 1 to 6 call `read_flights_2` and `read_flights` by sort order."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.generate import generate_package, render_snapshot
from codegen.identifiers import assign_names, keep_names, plain_identifier, plan_names
from codegen.snapshot import Snapshot
from tests.conftest import forget_generated, import_generated

FLIGHTS = "ui://widget/flights.html"
FLIGHTS_V2 = "ui://widget/flights-v2.html"


def readers(entries: list[tuple[str, str]]) -> dict[str, str]:
    """URI -> the reader rules 7 give each resource of (URI, name), in the order they are listed."""
    named = assign_names(
        [uri for uri, _ in entries],
        labels=dict(entries),
        fallback="resource",
        prefix="read_",
        rules=7,
        by_uri=True,
    )
    return {entry.wire: entry.python for entry in named}


def widgets(rules: int, *extra: dict[str, str]) -> Snapshot:
    return Snapshot(
        server="skybridge",
        protocol_version="2025-11-25",
        capabilities={"resources": {}},
        resources=(
            {"uri": FLIGHTS, "name": "flights", "mimeType": "text/html+skybridge"},
            {"uri": FLIGHTS_V2, "name": "flights", "mimeType": "text/html+skybridge"},
            *extra,
        ),
        naming_rules=rules,
    )


@pytest.mark.parametrize("order", [1, -1])
def test_resources_named_alike_are_named_after_their_uris_whatever_the_order(order: int) -> None:
    """The one whose last segment is its name keeps the name; the other adds what its segment says."""
    listed = [(FLIGHTS, "flights"), (FLIGHTS_V2, "flights")][::order]
    assert readers(listed) == {FLIGHTS: "read_flights", FLIGHTS_V2: "read_flights_v2"}
    assert plan_names(widgets(7)).record() == {"resources": {FLIGHTS: "read_flights", FLIGHTS_V2: "read_flights_v2"}}


def test_a_third_resource_named_alike_moves_neither_of_the_first_two() -> None:
    """`flights-beta.html` sorts before both, which by rules 6 took `read_flights` from `flights-v2.html`."""
    beta = {"uri": "ui://widget/flights-beta.html", "name": "flights"}
    assert plan_names(widgets(7, beta)).record()["resources"] == {
        FLIGHTS: "read_flights",
        FLIGHTS_V2: "read_flights_v2",
        beta["uri"]: "read_flights_beta",
    }
    assert plan_names(widgets(6, beta)).record()["resources"] == {
        beta["uri"]: "read_flights",
        FLIGHTS_V2: "read_flights_2",
        FLIGHTS: "read_flights_3",
    }


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        pytest.param(  # the stem names both alike: the extension tells them apart
            [("ui://w/flights.html", "flights"), ("ui://w/flights.json", "flights"), ("ui://w/flights-v2", "flights")],
            ["read_flights_html", "read_flights_json", "read_flights_v2"],
            id="extensions",
        ),
        pytest.param(  # a segment without an extension is its stem
            [("ui://w/flights", "flights"), ("ui://w/flights.html", "flights")],
            ["read_flights", "read_flights_html"],
            id="no-extension",
        ),
        pytest.param(  # the same last segment tells nothing apart: `_2` in sorted order, as rules 6
            [("file:///b/readme.md", "readme"), ("file:///a/readme.md", "readme")],
            ["read_readme_2", "read_readme"],
            id="same-last-segment",
        ),
        pytest.param(
            [("https://a.example/flights", "flights"), ("http://a.example/flights", "flights")],
            ["read_flights_2", "read_flights"],
            id="scheme-alone",
        ),
        pytest.param(
            [("https://b.example/data", "data"), ("https://a.example/data", "data")],
            ["read_data_2", "read_data"],
            id="host-alone",
        ),
        pytest.param(
            [("urn:flights:v2", "flights"), ("urn:flights:v1", "flights")],
            ["read_flights_2", "read_flights"],
            id="opaque",
        ),
        pytest.param(
            [("app://flights?v=2", "flights"), ("app://flights?v=1#top", "flights")],
            ["read_flights_2", "read_flights"],
            id="query-alone",
        ),
        pytest.param(  # the authority is the last segment of a URI without a path
            [("ui://flights-v2", "flights"), ("ui://flights", "flights")],
            ["read_flights_v2", "read_flights"],
            id="authority",
        ),
        pytest.param(  # an opaque URI keeps the label's name; the readable one is not moved by it
            [("urn:flights", "flights"), (FLIGHTS, "flights"), (FLIGHTS_V2, "flights")],
            ["read_flights_2", "read_flights", "read_flights_v2"],
            id="opaque-beside-readable",
        ),
        pytest.param(  # words of the label on either end are not said twice; digits and escapes read
            [
                ("ui://w/v2-flights.html", "flights"),
                ("file:///items/42", "flights"),
                ("ui://w/stra%C3%9Fe.html", "flights"),
                ("ui://w/class.html", "flights"),
            ],
            ["read_flights_v2", "read_flights_42", "read_flights_strasse", "read_flights_class"],
            id="words",
        ),
        pytest.param(  # names that snake_case alike are told apart too, not only equal names
            [("ui://w/FlightsV2.html", "Flights"), ("ui://w/flights.html", "flights")],
            ["read_flights_v2", "read_flights"],
            id="labels-alike",
        ),
        pytest.param(  # two identical segments keep `_2` between them, the other its own name
            [("a://x/flights-v2.html", "flights"), ("b://x/flights-v2.html", "flights"), (FLIGHTS, "flights")],
            ["read_flights_v2", "read_flights_v2_2", "read_flights"],
            id="two-identical-segments",
        ),
    ],
)
def test_what_a_uri_tells_apart_and_what_it_does_not(listed: list[tuple[str, str]], expected: list[str]) -> None:
    """Only the last path segment names a resource (its stem, then its extension); a scheme, a host,
    an earlier segment, a query or an opaque URI tells nothing apart, and the `_2` of rules 6 decides,
    whatever the order the resources are listed in."""
    wanted = dict(zip([uri for uri, _ in listed], expected, strict=True))
    assert readers(listed) == readers(listed[::-1]) == wanted


URIS = st.text(st.sampled_from("ab/.-:?#{}%2ßé统"), max_size=14).map(lambda tail: f"ui://w/{tail}")


@settings(max_examples=200)
@given(st.dictionaries(URIS, st.sampled_from(["a", "A", "a b", "ab", "ß", ""]), min_size=1, max_size=6))
def test_any_uris_give_unique_plain_names_whatever_the_order(listed: dict[str, str]) -> None:
    entries = list(listed.items())
    names = readers(entries)
    assert names == readers(entries[::-1])
    assert len(set(names.values())) == len(names)
    assert all(plain_identifier(name) and name.startswith("read_") for name in names.values())


def test_templates_are_named_after_their_literal_text_not_their_variables() -> None:
    """A `{variable}` is no word of the URI: a template is named after its last literal segment."""
    templates = [
        ("file:///flights/{id}", "flights"),
        ("file:///flights/{id}/seats{?class}", "flights"),
        ("ui://widget/{name}.html", "flights"),
        ("file:///hotels{/path*}", "flights"),
    ]
    assert readers(templates) == {
        "file:///flights/{id}": "read_flights",
        "file:///flights/{id}/seats{?class}": "read_flights_seats",
        "ui://widget/{name}.html": "read_flights_html",
        "file:///hotels{/path*}": "read_flights_hotels",
    }


def test_a_long_uri_keeps_its_distinguishing_words_within_the_length_limit() -> None:
    """The label's name gives way to the segment's words (at most half the 80 characters); segments
    that differ only past that are told apart by `_2`."""
    label = "l" * 90
    short = readers([(f"ui://w/{'b' * 30}1", label), (f"ui://w/{'b' * 30}2", label)])
    assert sorted(short.values()) == [f"read_{'l' * 48}_{'b' * 30}1", f"read_{'l' * 48}_{'b' * 30}2"]
    long = readers([(f"ui://w/{'b' * 90}1", label), (f"ui://w/{'b' * 90}2", label)])
    assert sorted(long.values()) == [f"read_{'l' * 80}", f"read_{'l' * 80}_2"]


def test_a_template_and_a_prompt_named_like_a_resource_are_named_as_before() -> None:
    """The URI tells resources named alike apart within their kind; a template named like a resource
    steps aside with `_` as it did, and prompts, which have no URI, are named as they were."""
    snapshot = replace(
        widgets(7),
        resource_templates=({"uriTemplate": "ui://widget/flights/{id}.html", "name": "flights"},),
        prompts=({"name": "flights"}, {"name": "Flights"}),
        capabilities={"resources": {}, "prompts": {}},
    )
    assert plan_names(snapshot).record() == {
        "resources": {FLIGHTS: "read_flights", FLIGHTS_V2: "read_flights_v2"},
        "resourceTemplates": {"ui://widget/flights/{id}.html": "read_flights_"},
        "prompts": {"flights": "prompt_flights", "Flights": "prompt_flights_2"},
    }


def test_a_package_of_rules_6_keeps_its_readers_by_sort_order() -> None:
    """A committed snapshot of rules 6 generates `read_flights` for `flights-v2.html` as it always did,
    and its next snapshot keeps those rules and its bytes, so an upgrade moves no reader."""
    committed = widgets(6)
    client = render_snapshot(committed)["client.py"].decode()
    assert "    async def read_flights(\n" in client and "    async def read_flights_2(\n" in client
    assert client.index(f'"{FLIGHTS_V2}"') < client.index("async def read_flights_2(")
    again = keep_names(committed, widgets(7), {})
    assert again.naming_rules == 6 and again.canonical_bytes() == committed.canonical_bytes()
    assert plan_names(again).record()["resources"] == {FLIGHTS_V2: "read_flights", FLIGHTS: "read_flights_2"}


def test_a_snapshot_that_kept_a_reader_names_the_newcomer_after_its_uri() -> None:
    """A package of rules 7 with `flights.html` alone had `read_flights`; the server adds
    `flights-v2.html`, also named `flights`, which gets `read_flights_v2` rather than `read_flights_2`."""
    first = Snapshot(
        server="skybridge",
        protocol_version="2025-11-25",
        capabilities={"resources": {}},
        resources=({"uri": FLIGHTS, "name": "flights"},),
    )
    assert keep_names(first, widgets(7), {}).python_names == {}
    assert plan_names(keep_names(first, widgets(7), {})).record()["resources"][FLIGHTS_V2] == "read_flights_v2"


@pytest.fixture(scope="module")
def skybridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, Path]]:
    """The package of an in-process MCPServer serving both widgets, snapshotted over its session."""
    import anyio
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    from codegen.config import ServerConfig
    from codegen.snapshot.discovery import list_catalog

    server = MCPServer("skybridge")

    @server.resource(FLIGHTS, name="flights", mime_type="text/html+skybridge")
    def flights() -> str:
        return "<div>flights</div>"

    @server.resource(FLIGHTS_V2, name="flights", mime_type="text/html+skybridge")
    def flights_v2() -> str:
        return "<div>flights v2</div>"

    async def listed() -> Snapshot:
        async with Client(server, cache=None) as client:
            return await list_catalog(client, ServerConfig(name="skybridge", command="unused"))

    out = tmp_path_factory.mktemp("uri-names") / "widgets"
    generate_package(anyio.run(listed), out)
    try:
        package = import_generated(out, "skybridge")
        package.SERVER = server  # type: ignore[attr-defined]
        yield package, out
    finally:
        forget_generated(out)


async def test_each_reader_reads_the_widget_its_name_says(skybridge: tuple[ModuleType, Path]) -> None:
    package, _ = skybridge
    async with package.SkybridgeClient.connect(package.SERVER) as client:
        assert (await client.read_flights()).contents[0].text == "<div>flights</div>"
        assert (await client.read_flights_v2()).contents[0].text == "<div>flights v2</div>"


@pytest.mark.generated_mypy
def test_a_package_with_readers_named_after_their_uris_passes_mypy_strict(skybridge: tuple[ModuleType, Path]) -> None:
    _, out = skybridge
    (out.parent / "caller.py").write_text(
        "from mcp.types import ReadResourceResult\n\n"
        "from widgets.skybridge import SkybridgeClient\n\n\n"
        "async def both(client: SkybridgeClient) -> list[ReadResourceResult]:\n"
        "    return [await client.read_flights(), await client.read_flights_v2()]\n",
        encoding="utf-8",
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", "-p", "widgets", "-m", "caller"],
        cwd=out.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
