"""Resource templates: every template RFC 6570 defines gets a method that expands it as the RFC says.

The MCP SDK's `UriTemplate` refuses what its server side could not match back (FastMCP's wildcard
`{path*}`, a prefix `{id:8}`, two variables with no literal between them), so such a template got no
method. The runtime's `_uri_template` expands all four levels, the RFC's own examples are its check,
and every template the SDK reads expands to the SDK's bytes, so no method that worked moves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.errors import StubgenError
from codegen.generate import generate_package, render_snapshot
from codegen.runtime._uri_template import InvalidUriTemplate, UriTemplate
from codegen.snapshot import Snapshot
from tests.conftest import forget_generated, import_generated

RFC_VALUES: dict[str, str | list[str]] = {
    "var": "value",
    "hello": "Hello World!",
    "half": "50%",
    "empty": "",
    "path": "/foo/bar",
    "list": ["red", "green", "blue"],
    "who": "fred",
    "base": "http://example.com/home/",
    "dom": ["example", "com"],
    "dub": "me/too",
    "v": "6",
    "x": "1024",
    "y": "768",
    "count": ["one", "two", "three"],
}
"""RFC 6570's example variables (section 3.2), but `keys`: a method takes text or a list of texts."""

RFC_EXAMPLES = [
    ("{count}", "one,two,three"),
    ("{count*}", "one,two,three"),
    ("{/count}", "/one,two,three"),
    ("{/count*}", "/one/two/three"),
    ("{;count}", ";count=one,two,three"),
    ("{;count*}", ";count=one;count=two;count=three"),
    ("{?count}", "?count=one,two,three"),
    ("{?count*}", "?count=one&count=two&count=three"),
    ("{&count*}", "&count=one&count=two&count=three"),
    ("{var}", "value"),
    ("{hello}", "Hello%20World%21"),
    ("{half}", "50%25"),
    ("O{empty}X", "OX"),
    ("O{undef}X", "OX"),
    ("{x,y}", "1024,768"),
    ("{x,hello,y}", "1024,Hello%20World%21,768"),
    ("?{x,empty}", "?1024,"),
    ("?{x,undef}", "?1024"),
    ("?{undef,y}", "?768"),
    ("{var:3}", "val"),
    ("{var:30}", "value"),
    ("{list}", "red,green,blue"),
    ("{list*}", "red,green,blue"),
    ("{+var}", "value"),
    ("{+hello}", "Hello%20World!"),
    ("{+half}", "50%25"),
    ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
    ("{+base}index", "http://example.com/home/index"),
    ("O{+empty}X", "OX"),
    ("{+path}/here", "/foo/bar/here"),
    ("here?ref={+path}", "here?ref=/foo/bar"),
    ("up{+path}{var}/here", "up/foo/barvalue/here"),
    ("{+x,hello,y}", "1024,Hello%20World!,768"),
    ("{+path,x}/here", "/foo/bar,1024/here"),
    ("{+path:6}/here", "/foo/b/here"),
    ("{+list*}", "red,green,blue"),
    ("{#var}", "#value"),
    ("{#hello}", "#Hello%20World!"),
    ("{#half}", "#50%25"),
    ("foo{#empty}", "foo#"),
    ("foo{#undef}", "foo"),
    ("{#x,hello,y}", "#1024,Hello%20World!,768"),
    ("{#path,x}/here", "#/foo/bar,1024/here"),
    ("{#path:6}/here", "#/foo/b/here"),
    ("{#list*}", "#red,green,blue"),
    ("{.who}", ".fred"),
    ("{.who,who}", ".fred.fred"),
    ("{.half,who}", ".50%25.fred"),
    ("www{.dom*}", "www.example.com"),
    ("X{.var}", "X.value"),
    ("X{.empty}", "X."),
    ("X{.undef}", "X"),
    ("X{.var:3}", "X.val"),
    ("X{.list}", "X.red,green,blue"),
    ("X{.list*}", "X.red.green.blue"),
    ("{/who}", "/fred"),
    ("{/who,who}", "/fred/fred"),
    ("{/half,who}", "/50%25/fred"),
    ("{/who,dub}", "/fred/me%2Ftoo"),
    ("{/var,empty}", "/value/"),
    ("{/var,undef}", "/value"),
    ("{/var,x}/here", "/value/1024/here"),
    ("{/var:1,var}", "/v/value"),
    ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
    ("{;who}", ";who=fred"),
    ("{;half}", ";half=50%25"),
    ("{;empty}", ";empty"),
    ("{;v,empty,who}", ";v=6;empty;who=fred"),
    ("{;v,bar,who}", ";v=6;who=fred"),
    ("{;x,y,undef}", ";x=1024;y=768"),
    ("{;hello:5}", ";hello=Hello"),
    ("{;list}", ";list=red,green,blue"),
    ("{?who}", "?who=fred"),
    ("{?half}", "?half=50%25"),
    ("{?x,y,empty}", "?x=1024&y=768&empty="),
    ("{?x,y,undef}", "?x=1024&y=768"),
    ("{?var:3}", "?var=val"),
    ("{?list}", "?list=red,green,blue"),
    ("{?list*}", "?list=red&list=green&list=blue"),
    ("{&who}", "&who=fred"),
    ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
    ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ("{&var:3}", "&var=val"),
    ("{&list}", "&list=red,green,blue"),
]
"""RFC 6570's own examples (sections 2.4 and 3.2), each with the expansion the RFC gives."""


@pytest.mark.parametrize(("template", "expected"), RFC_EXAMPLES)
def test_the_rfcs_examples_expand_as_the_rfc_says(template: str, expected: str) -> None:
    assert UriTemplate.parse(template).expand(RFC_VALUES) == expected


@pytest.mark.parametrize(
    "template",
    ["file:///{path", "x://{}", "x://{a b}", "x://{=a}", "x://{a,}", "x://{a:0}", "x://{a:10000}", "x://{x.}"],
)
def test_a_template_the_rfc_does_not_define_is_refused(template: str) -> None:
    with pytest.raises(InvalidUriTemplate):
        UriTemplate.parse(template)


_OPERATORS = ["", "+", "#", ".", "/", ";", "?", "&"]
_LITERALS = ["", "x://", "/", "p", "-", "?k=v", "&", ".", "é", " ", "%20", "}"]
_TEXTS = ["", "v", "a/b", "a b", "50%", "%41", "é", ",;&=?#", "xxx"]


@st.composite
def _templates(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        parts.append(draw(st.sampled_from(_LITERALS)))
        names = draw(st.lists(st.sampled_from(["a", "b", "c", "x.y", "d_1"]), min_size=1, max_size=3, unique=True))
        explode = draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
        specs = ",".join(name + ("*" if star else "") for name, star in zip(names, explode, strict=True))
        parts.append("{" + draw(st.sampled_from(_OPERATORS)) + specs + "}")
    return "".join(parts)


_VALUES = st.dictionaries(
    st.sampled_from(["a", "b", "c", "x.y", "d_1"]),
    st.one_of(st.sampled_from(_TEXTS), st.lists(st.sampled_from(_TEXTS), max_size=3)),
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(_templates(), _VALUES)
def test_every_template_the_sdk_reads_expands_to_the_sdks_bytes(template: str, values: dict[str, Any]) -> None:
    """So a method that read a template before reads the same URI now, and keeps its signature."""
    from mcp.shared.uri_template import InvalidUriTemplate as SdkRefuses
    from mcp.shared.uri_template import UriTemplate as SdkTemplate

    try:
        sdk = SdkTemplate.parse(template)
    except SdkRefuses:
        return
    ours = UriTemplate.parse(template)
    assert ours.variable_names == list(sdk.variable_names)
    assert ours.query_variable_names == set(sdk.query_variable_names)
    assert ours.exploded_names == {variable.name for variable in sdk.variables if variable.explode}
    assert ours.expand(values) == sdk.expand(values)


TEMPLATES = [
    {"name": "doc", "uriTemplate": "docs://{section}/{rest*}", "description": "FastMCP's wildcard."},
    {"name": "short", "uriTemplate": "ids://{key:4}", "description": "A prefix."},
    {"name": "cell", "uriTemplate": "grid://{col}{row}{?sheet}", "description": "Adjacent variables."},
    {"name": "pair", "uriTemplate": "pair://{name}/{name}", "description": "A variable named twice."},
    {"name": "tagged", "uriTemplate": "notes://all{?tags*}", "description": "A repeated query key."},
]


async def test_a_template_the_sdk_refuses_for_matching_gets_a_method_that_reads_it(tmp_path: Path) -> None:
    """Each of these had no method (`generate` warned and left it out); now each reads the URI the RFC
    expands, from a live server that lists them."""
    from mcp import Client, types
    from mcp.server.lowlevel import Server

    async def list_templates(_context: Any, _params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate.model_validate(entry) for entry in TEMPLATES]
        )

    async def read_resource(_context: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text=params.uri)])

    server = Server("wild", on_list_resource_templates=list_templates, on_read_resource=read_resource)
    snapshot = Snapshot("wild", "2025-11-25", {"resources": {}}, resource_templates=tuple(TEMPLATES))
    out = tmp_path / "wild"
    generate_package(snapshot, out)
    try:
        wild = import_generated(out, "wild")
        source = (out / "wild" / "client.py").read_text(encoding="utf-8")
        assert "        section: str,\n        rest: str,\n" in source
        assert "        col: str,\n        row: str,\n        sheet: str | NotGiven = NOT_GIVEN,\n" in source
        assert "        tags: str | list[str] | NotGiven = NOT_GIVEN,\n" in source
        async with Client(server, cache=None) as client:
            typed = wild.WildClient(client)
            read = [
                await typed.read_doc(section="guide", rest="a/b c.md"),
                await typed.read_short(key="abcdef"),
                await typed.read_cell(col="B", row="7"),
                await typed.read_cell(col="B", row="7", sheet="Q1"),
                await typed.read_pair(name="twin"),
                await typed.read_tagged(tags=["a b", "c"]),
                await typed.read_tagged(),
            ]
        assert [result.contents[0].text for result in read] == [
            "docs://guide/a%2Fb%20c.md",
            "ids://abcd",
            "grid://B7",
            "grid://B7?sheet=Q1",
            "pair://twin/twin",
            "notes://all?tags=a%20b&tags=c",
            "notes://all",
        ]
    finally:
        forget_generated(out)


def test_a_template_the_rfc_does_not_define_is_left_out_or_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """It gets no method and one warning naming it; `strict` makes that an error; the server's other
    templates keep their methods."""
    template = {"name": "file", "uriTemplate": "file:///{path}{?mode,depth}", "description": "A file."}
    broken = Snapshot(
        server="files",
        protocol_version="2026-07-28",
        capabilities={"resources": {}},
        resource_templates=({"name": "bad", "uriTemplate": "file:///{path"}, template),
    )
    with pytest.raises(StubgenError) as raised:
        render_snapshot(broken, strict=True)
    assert raised.value.message == ("server 'files': resource template 'bad': unclosed expression at position 8")
    capsys.readouterr()
    client = render_snapshot(broken)["client.py"].decode()
    assert "async def read_file(" in client and "async def read_bad(" not in client
    assert "        path: str,\n        mode: str | NotGiven = NOT_GIVEN," in client
    warning = capsys.readouterr().err.strip()
    assert warning == (
        f"warning: {raised.value.message}; it has no method: read its resources with "
        "`client.mcp_client.read_resource(uri)` (`generate --strict` makes this an error)"
    )
