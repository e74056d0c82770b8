"""Comparison details the per-rule table does not pin down: refs that cannot be followed, renames
carrying their remaining differences, and a deterministic order."""

from __future__ import annotations

from typing import Any

from codegen.drift import compare_snapshots
from tests.drift_helpers import findings, inputs, obj, outputs, rules, snap, tool

S = {"type": "string"}


def test_changed_unresolvable_ref_is_uncomparable() -> None:
    pair = inputs({"$ref": "https://example.com/a.json"}, {"$ref": "https://example.com/b.json"})
    assert rules(pair) == ["schema-uncomparable"]
    assert rules(inputs({"$ref": "#/$defs/Missing"}, {"$ref": "#/$defs/Missing"})) == []


def test_a_tool_with_a_reference_to_nothing_still_compares_its_other_arguments() -> None:
    """Such a tool is generated untyped now, and drift reads its schema as any other."""
    key, limit = {"$ref": "#nope"}, {"type": "integer"}
    before, after = obj({"key": key, "limit": limit}), obj({"key": key, "limit": {"type": "string"}})
    assert rules((snap((tool(inp=before),)), snap((tool(inp=after),)))) == ["in-type-narrowed"]
    assert rules(inputs({"$ref": "#nope"}, {"$ref": "#other"})) == ["schema-uncomparable"]


def test_recursive_schema_change_inside_the_cycle_is_found() -> None:
    def tree(leaf: dict[str, object]) -> dict[str, object]:
        node = obj({"value": leaf, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})
        return {"$defs": {"Node": node}, **obj({"root": {"$ref": "#/$defs/Node"}}, ("root",))}

    before, after = tree({"type": "number"}), tree({"type": "integer"})
    found = compare_snapshots(snap((tool(inp=before),)), snap((tool(inp=after),)))
    assert [(f.rule, f.path) for f in found] == [
        ("in-type-narrowed", "/inputSchema/properties/root/properties/value/type")
    ]


def test_rename_is_reported_once_with_its_remaining_differences() -> None:
    old = snap((tool("get_city", obj({"city": S, "days": {"type": "integer"}, "units": S}, ("city",))),))
    new = snap((tool("fetch_city", obj({"city": S, "days": {"type": "integer"}, "units": S}, ("city", "units"))),))
    found = compare_snapshots(old, new)
    assert [(f.rule, f.name, f.old_name) for f in found] == [
        ("tool-renamed", "fetch_city", "get_city"),
        ("in-became-required", "fetch_city", "get_city"),
    ]
    renamed = found[0]
    assert renamed.similarity is not None and 0.8 <= renamed.similarity < 1.0


def test_order_of_findings_does_not_depend_on_input_order() -> None:
    tools_before = (tool("a", obj({"x": S})), tool("b", obj({"x": S})), tool("c"))
    tools_after = (tool("c", description="new"), tool("b", obj({"x": {"type": "integer"}})))
    forward = compare_snapshots(snap(tools_before), snap(tools_after))
    backward = compare_snapshots(snap(tools_before[::-1]), snap(tools_after[::-1]))
    assert forward == backward
    assert [f.severity.value for f in forward] == sorted(
        (f.severity.value for f in forward), key=["breaking", "dangerous", "safe"].index
    )


def test_task_support_is_judged_by_the_ways_a_tool_can_be_called() -> None:
    """Absent `execution` is `forbidden`: the SDK upgrade that writes it out is no change at all."""

    def rules_for(before: dict[str, str] | None, after: dict[str, str] | None) -> list[str]:
        old = tool() if before is None else tool(execution=before)
        new = tool() if after is None else tool(execution=after)
        return rules((snap((old,)), snap((new,))))

    forbidden, optional, required = ({"taskSupport": v} for v in ("forbidden", "optional", "required"))
    assert rules_for(None, forbidden) == [] and rules_for({}, None) == [] and rules_for(forbidden, None) == []
    assert rules_for(None, optional) == ["task-support-widened"]
    assert rules_for(required, optional) == ["task-support-widened"]
    for before, after in ((None, required), (optional, required), (optional, None), (required, forbidden)):
        assert rules_for(before, after) == ["task-support-narrowed"], (before, after)
    assert rules_for(forbidden, {"taskSupport": "someday"}) == ["schema-uncomparable"]
    assert rules_for(forbidden, {**forbidden, "priority": 1}) == ["schema-uncomparable"]
    assert rules((snap((tool(),)), snap((tool(execution="tasks"),)))) == ["schema-uncomparable"]


def test_empty_experimental_capabilities_equal_absent_ones() -> None:
    def caps(before: dict[str, object], after: dict[str, object]) -> list[str]:
        return rules((snap(capabilities=before), snap(capabilities=after)))

    assert caps({"tools": {}, "experimental": {}}, {"tools": {}}) == []
    assert caps({"tools": {}, "experimental": {"beta": {}}}, {"tools": {}}) == ["capability-removed"]
    assert caps({"tools": {}, "prompts": {}}, {"tools": {}}) == ["capability-removed"]  # `{}` declares prompts


def test_a_tasks_capability_no_tool_could_use_is_not_missed() -> None:
    """FastMCP 2 declares task-augmented `tools/call` on every server, FastMCP 3 does not: mcp-atlassian
    0.22.1 to 0.23.0 reported the breaking `capability-removed` though all its tools forbid tasks, so
    no task could ever have been started. Where a tool allowed them, losing it still breaks."""
    tasks = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    plain, as_task = tool(), tool(execution={"taskSupport": "optional"})

    def caps(before: dict[str, object], after: dict[str, object], entry: dict[str, object]) -> list[str]:
        return rules((snap((entry,), capabilities=before), snap((entry,), capabilities=after)))

    assert caps({"tools": {}, "tasks": tasks}, {"tools": {}}, plain) == []
    assert caps({"tools": {}, "tasks": tasks}, {"tools": {}, "tasks": {"list": {}}}, plain) == []
    assert caps({"tools": {}, "tasks": tasks}, {"tools": {}}, as_task) == ["capability-removed"]
    assert caps({"tools": {}, "tasks": tasks}, {"tools": {}, "tasks": {"list": {}}}, as_task) == [
        "capability-removed",
        "capability-removed",
    ]  # tasks.cancel and tasks.requests.tools.call


def test_a_completions_capability_with_nothing_to_complete_is_not_missed() -> None:
    """exa-mcp-server 3.2.1 declared `completions` for one prompt without arguments and no template,
    3.4.0 does not: drift said breaking, though there was never anything to complete."""
    bare, with_argument = {"name": "help"}, {"name": "help", "arguments": [{"name": "topic"}]}
    template = {"uriTemplate": "docs://{page}", "name": "page"}

    def caps(prompts: tuple[dict[str, object], ...], templates: tuple[dict[str, object], ...] = ()) -> list[str]:
        before = snap(prompts=prompts, templates=templates, capabilities={"prompts": {}, "completions": {}})
        return rules((before, snap(prompts=prompts, templates=templates, capabilities={"prompts": {}})))

    assert caps((bare,)) == []
    assert caps((with_argument,)) == ["capability-removed"]
    assert caps((bare,), (template,)) == ["capability-removed"]


def test_each_extension_is_judged_on_its_own_and_none_breaks_a_generated_client() -> None:
    """mcp-proxy-for-aws in front of a server drops its `extensions` capability (MCP Apps'
    `io.modelcontextprotocol/ui`), and drift said `capability-removed`, breaking. An extension is in
    use only when the client declares it too, and generated clients and the hub declare none: a host
    that negotiates it loses it, so each identifier is its own finding, none of them breaking."""
    apps, tasks = "io.modelcontextprotocol/ui", "io.modelcontextprotocol/tasks"
    mcp_apps = {"mimeTypes": ["text/html;profile=mcp-app"]}
    both = {"extensions": {apps: mcp_apps, tasks: {}}}

    def found(before: dict[str, object], after: dict[str, object]) -> list[tuple[str, str, str]]:
        pair = snap(capabilities={"tools": {}, **before}), snap(capabilities={"tools": {}, **after})
        return [(f.rule, f.severity.value, f.path) for f in compare_snapshots(*pair)]

    at_apps, at_tasks = (
        "/capabilities/extensions/io.modelcontextprotocol~1ui",
        "/capabilities/extensions/io.modelcontextprotocol~1tasks",
    )
    removed = [
        ("capability-extension-removed", "dangerous", at_tasks),
        ("capability-extension-removed", "dangerous", at_apps),
    ]
    assert found(both, {}) == removed
    assert found(both, {"extensions": {}}) == removed
    assert found({}, both) == [
        ("capability-extension-added", "safe", at_tasks),
        ("capability-extension-added", "safe", at_apps),
    ]
    assert found(both, {"extensions": {apps: {"mimeTypes": []}, tasks: {}}}) == [
        ("capability-extension-changed", "dangerous", at_apps)
    ]
    assert found(both, {"extensions": {tasks: {}, apps: mcp_apps}}) == []
    assert found({"extensions": {}}, {}) == []
    message = compare_snapshots(snap(capabilities=both), snap(capabilities={}))[0].message
    assert tasks in message and "declare no extension" in message


def test_root_title_is_a_display_name() -> None:
    """FastMCP titles an input schema after the function: `GitAdd` becoming `addArguments` is safe."""
    found = compare_snapshots(
        snap((tool("git_add", obj({"x": S}, title="GitAdd")),)),
        snap((tool("git_add", obj({"x": S}, title="addArguments")),)),
    )
    assert [(f.rule, f.severity.value, f.path) for f in found] == [("title-changed", "safe", "/inputSchema/title")]
    nested = inputs({**S, "title": "City"}, {**S, "title": "Town"})
    assert rules(nested) == ["schema-text-changed"]


def test_new_output_schema_warns_that_the_return_type_changes() -> None:
    [found] = compare_snapshots(snap((tool(),)), snap((tool(out=obj({"x": S})),)))
    assert (found.rule, found.severity.value) == ("out-schema-added", "dangerous")
    assert "ToolResult" in found.message and "`.content`" in found.message


def test_closing_an_input_is_dangerous_not_breaking() -> None:
    [found] = compare_snapshots(
        snap((tool(inp=obj({"x": S})),)), snap((tool(inp=obj({"x": S}, additionalProperties=False)),))
    )
    assert (found.rule, found.severity.value) == ("in-closed", "dangerous")


def test_hints_moving_toward_trust_each_have_a_rule() -> None:
    """Effective values: an absent hint is the spec's cautious default, so writing it out is no change."""
    trusting = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
    found = compare_snapshots(snap((tool(),)), snap((tool(annotations=trusting),)))
    assert sorted((f.rule, f.severity.value) for f in found) == [
        ("annotation-destructive-withdrawn", "dangerous"),
        ("annotation-idempotent-claimed", "dangerous"),
        ("annotation-openworld-withdrawn", "dangerous"),
        ("annotation-readonly-claimed", "dangerous"),
    ]
    cautious = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
    assert compare_snapshots(snap((tool(),)), snap((tool(annotations=cautious),))) == []


def _renames(before: tuple[dict[str, object], ...], after: tuple[dict[str, object], ...]) -> list[tuple[str, str]]:
    found = compare_snapshots(snap(before), snap(after))
    return [(f.old_name or "", f.name) for f in found if f.rule == "tool-renamed"]


def test_a_name_that_extends_the_old_one_is_a_rename_despite_new_arguments() -> None:
    wait = tool("browser_wait", obj({"time": {"type": "number"}}, ("time",), additionalProperties=False))
    wait_for = tool(
        "browser_wait_for",
        obj({"time": {"type": "number"}, "text": S, "textGone": S}, additionalProperties=False),
    )
    assert _renames((wait,), (wait_for,)) == [("browser_wait", "browser_wait_for")]
    found = compare_snapshots(snap((wait,)), snap((wait_for,)))
    assert "'browser_wait_for' extends 'browser_wait'" in found[0].message
    assert ("in-became-optional", "/inputSchema/properties/time") in [(f.rule, f.path) for f in found]


def test_tools_merged_into_one_are_not_a_rename() -> None:
    index = {"type": "number"}
    tabs = (
        tool("browser_tab_list", description="List browser tabs"),
        tool("browser_tab_new", obj({"url": S}), description="Open a new tab"),
        tool("browser_tab_select", obj({"index": index}, ("index",)), description="Select a tab by index"),
        tool("browser_tab_close", obj({"index": index}), description="Close a tab"),
    )
    action = {"type": "string", "enum": ["list", "new", "close", "select"]}
    merged = tool(
        "browser_tabs",
        obj({"action": action, "index": index}, ("action",)),
        description="List, create, close, or select a browser tab.",
    )
    found = compare_snapshots(snap(tabs), snap((merged,)))
    assert sorted((f.rule, f.name) for f in found) == [
        ("tool-added-destructive", "browser_tabs"),
        *sorted(("tool-removed", str(t["name"])) for t in tabs),
    ]


def test_a_tool_kept_as_deprecated_beside_its_successor_is_not_renamed() -> None:
    schema = obj({"path": S}, ("path",))
    old = (tool("read_file", schema, description="Read a file."),)
    new = (
        tool("read_file", schema, description="Read a file. Deprecated: use read_text_file."),
        tool("read_text_file", schema, description="Read a file."),
    )
    found = compare_snapshots(snap(old), snap(new))
    assert sorted(f.rule for f in found) == ["description-changed", "tool-added-destructive"]
    # once the old one is gone, its shape-equal successor is its rename
    assert _renames(old, new[1:]) == [("read_file", "read_text_file")]


def test_names_equal_once_folded_are_a_rename_whatever_the_shape() -> None:
    old = (tool("getTinyImage", obj({}, additionalProperties=False)),)
    new = (tool("get-tiny-image", obj({"size": {"type": "integer"}}, ("size",))),)
    found = compare_snapshots(snap(old), snap(new))
    assert [(f.rule, f.old_name) for f in found][:2] == [
        ("tool-renamed", "getTinyImage"),
        ("in-required-added", "getTinyImage"),
    ]


def test_a_new_bound_that_leaves_almost_nothing_valid_is_breaking() -> None:
    A = {"type": "array", "items": S}
    N = {"type": "number"}
    impossible = [
        (S, {**S, "maxLength": 0}),
        (S, {**S, "minLength": 100000}),
        (A, {**A, "maxItems": 0}),
        ({**N, "maximum": 10}, {**N, "maximum": 10, "minimum": 20}),
        ({**S, "maxLength": 50}, {**S, "maxLength": 50, "minLength": 60}),
        ({**N, "minimum": 5}, {**N, "minimum": 5, "exclusiveMaximum": 5}),
    ]
    for before, after in impossible:
        found = compare_snapshots(*inputs(before, after))
        assert [(f.rule, f.severity.value) for f in found] == [("in-bound-impossible", "breaking")], after
        assert "None" not in found[0].message
    assert "leaves only the empty string valid" in compare_snapshots(*inputs(S, {**S, "maxLength": 0}))[0].message
    # an ordinary new bound stays dangerous, and a string argument's bound says nothing about a number
    assert rules(inputs(S, {**S, "maxLength": 200})) == ["in-bound-added"]
    assert rules(inputs(N, {**N, "maxLength": 0})) == ["in-bound-added"]


def test_a_new_bound_that_rejects_the_old_default_or_examples_is_breaking() -> None:
    found = compare_snapshots(*inputs({**S, "default": "Berlin"}, {**S, "default": "Berlin", "maxLength": 3}))
    assert [(f.rule, f.severity.value) for f in found] == [("in-bound-tightened", "breaking")]
    assert 'rejects the old default "Berlin"' in found[0].message
    N = {"type": "integer", "examples": [5, 50]}
    assert rules(inputs(N, {**N, "maximum": 10})) == ["in-bound-tightened"]
    assert rules(inputs(N, {**N, "maximum": 100})) == ["in-bound-added"]


def test_messages_never_show_python_none() -> None:
    pairs = [
        inputs(S, {**S, "minLength": 1}),
        inputs({**S, "minLength": 1}, S),
        (
            snap(resources=({"uri": "a://x", "name": "x"},)),
            snap(resources=({"uri": "a://x", "name": "x", "mimeType": "text/plain"},)),
        ),
        (snap(server_info={"name": "a"}), snap(server_info={"name": "a", "version": "1"})),
    ]
    for pair in pairs:
        for finding in compare_snapshots(*pair):
            assert "None" not in finding.message, finding


def test_resource_hints_and_a_first_mime_type_are_not_changes() -> None:
    """`lastModified` moves on every edit and `size` with the content: neither changes how a client reads."""
    before = {"uri": "file:///a", "name": "a", "size": 10, "annotations": {"lastModified": "2025-01-01T00:00:00Z"}}
    after = {"uri": "file:///a", "name": "a", "size": 12, "annotations": {"lastModified": "2025-02-01T00:00:00Z"}}
    assert rules((snap(resources=(before,)), snap(resources=(after,)))) == []
    template = {"uriTemplate": "users://{id}", "name": "user"}
    assert rules((snap(templates=(template,)), snap(templates=({**template, "mimeType": "text/plain"},)))) == []
    typed = {**template, "mimeType": "text/plain"}
    assert rules((snap(templates=(typed,)), snap(templates=({**typed, "mimeType": "application/json"},)))) == [
        "resource-mimetype-changed"
    ]


def test_schema_keywords_at_their_defaults_equal_absent_ones() -> None:
    for written in ({"minLength": 0}, {"deprecated": False}, {"readOnly": False}):
        assert rules(inputs(S, {**S, **written})) == [], written
    assert rules(inputs({"type": "array"}, {"type": "array", "minItems": 0})) == []


def test_a_description_changed_in_its_spacing_only_says_so() -> None:
    """awslabs.aws-documentation-mcp-server's descriptions are its functions' docstrings: indented
    under Python 3.12, dedented under 3.13. The finding said "review the new text", and its word diff
    showed only `...`."""
    old = tool("read_documentation", obj({"url": S}), description="Fetch a page.\n\n    ## Usage\n\n    Give a URL.")
    new = tool("read_documentation", obj({"url": S}), description="Fetch a page.\n\n## Usage\n\nGive a URL.")
    reworded = tool("read_documentation", obj({"url": S}), description="Fetch a page.\n\n## Usage\n\nGive any URL.")
    [spacing] = compare_snapshots(snap((old,)), snap((new,)))
    [words] = compare_snapshots(snap((old,)), snap((reworded,)))
    assert (spacing.rule, spacing.message) == (
        "description-changed",
        "tool description changed in its spacing only, its words are the same",
    )
    assert words.message == "tool description changed; a model reads it, review the new text"


def test_a_union_of_literals_is_the_enum_of_them() -> None:
    """zod writes a union of literals as `anyOf` of `const`s where pydantic writes an `enum`: the same
    values, so moving between the two reports nothing; a `oneOf` whose branches share a value refuses
    that value, so it is not that enum."""
    literals = {"anyOf": [{"type": "string", "const": "a"}, {"type": "string", "const": "b"}]}
    for before, after in (
        ({"type": "string", "enum": ["a", "b"]}, literals),
        ({"enum": ["a", "b"]}, {"oneOf": [{"const": "b"}, {"const": "a"}]}),
        ({"enum": [1, "b"]}, {"anyOf": [{"enum": [1]}, {"const": "b"}]}),
    ):
        assert rules(inputs(before, after)) == rules(outputs(before, after)) == [], (before, after)
    assert rules(inputs({"enum": ["a", "b"]}, {"oneOf": [{"enum": ["a", "b"]}, {"const": "b"}]})) != []
    assert rules(inputs({"enum": ["a", "b"]}, {"anyOf": [{"const": "a"}, {"type": "integer", "const": 2}]})) != []


def test_a_branch_added_to_a_tagged_input_one_of_widens_it() -> None:
    """A `oneOf` whose branches each require one property to hold a value of their own (a tag, as
    zod's discriminated union writes it) takes every old value after a new branch is added: no value
    can match two branches. Any other `oneOf` that gains a branch may now refuse an old value."""

    def branch(tag: str, required: bool = True, field: str = "size") -> dict[str, Any]:
        return {**obj({"kind": {"const": tag}, field: {"type": "number"}}), "required": ["kind"] if required else []}

    a, b, c = branch("a"), branch("b"), branch("c")
    assert rules(inputs({"oneOf": [a, b]}, {"oneOf": [a, b, c]})) == ["in-type-widened"]
    assert rules(inputs({"oneOf": [a, b, c]}, {"oneOf": [a, b]})) == ["in-union-narrowed"]
    for gained in (branch("a", field="other"), branch("c", required=False)):  # a tag taken; a tag not required
        assert "in-union-narrowed" in rules(inputs({"oneOf": [a, b]}, {"oneOf": [a, b, gained]})), gained
    untagged = {"oneOf": [obj({"x": {"type": "number"}}), obj({"y": {"type": "number"}})]}
    grown = {"oneOf": [*untagged["oneOf"], obj({"z": {"type": "number"}})]}
    assert rules(inputs(untagged, grown)) == ["in-union-narrowed"]


def test_a_boolean_that_replaces_a_number_is_a_change() -> None:
    """Python's `==` takes `True` for `1` and `[0]` for `[False]`, so a `const`, an `enum` value (at
    any depth) or a default that turned from a number into a boolean, or back, reported no drift,
    while the old value is now refused (an input) or a new kind of value comes back (an output).
    JSON Schema's own equality still holds `1` and `1.0` to be one value."""
    for before, after in (
        ({"const": 0}, {"const": False}),
        ({"enum": [1, "x"]}, {"enum": [True, "x"]}),
        ({"enum": [[1]]}, {"enum": [[True]]}),
        ({"enum": [{"k": 0}]}, {"enum": [{"k": False}]}),
        ({"type": "array", "items": {"const": 1}}, {"type": "array", "items": {"const": True}}),
    ):
        assert {"in-enum-value-removed", "in-type-narrowed"} & set(rules(inputs(before, after))), (before, after)
        assert {"out-type-widened", "out-enum-value-added"} & set(rules(outputs(before, after))), (before, after)
    assert rules(inputs({"type": "integer", "default": 1}, {"type": "integer", "default": True})) == [
        "in-default-changed"
    ]
    assert rules(inputs({"enum": [1, 2]}, {"enum": [1.0, 2]})) == rules(inputs({"const": 1}, {"const": 1.0})) == []
    removed = [finding.message for finding in findings(inputs({"enum": [1, 2]}, {"enum": [1.0, 3]}))]
    assert "argument 'x': enum values removed: 2" in removed  # not 1: it is 1.0
    entry = (snap((tool(level=1),)), snap((tool(level=True),)))  # a key of the tool MCP does not define
    assert rules(entry) == ["schema-uncomparable"]


def test_an_integers_bound_at_the_javascript_safe_limit_is_no_bound() -> None:
    """zod 4 writes `maximum: 9007199254740991` (and the negative `minimum`) on every `.int()` where
    zod 3 wrote nothing: server-sequential-thinking 2025.7.1 to 2025.11.25 and chrome-devtools-mcp
    1.10.1 to 1.11.0 each reported it as a new bound on every integer argument."""
    integer = {"type": "integer", "minimum": 1}
    zod4 = {**integer, "maximum": 9007199254740991}
    assert rules(inputs(integer, zod4)) == []
    assert rules(outputs(zod4, integer)) == []
    assert rules(inputs({"type": "integer"}, {"type": "integer", "minimum": -9007199254740991})) == []
    assert rules(inputs(integer, {**integer, "maximum": 9007199254740990})) == ["in-bound-added"]
    assert rules(inputs({"type": "number"}, {"type": "number", "maximum": 9007199254740991})) == ["in-bound-added"]
    assert rules(inputs({"type": "number"}, {"type": "integer", "maximum": 9007199254740991})) == ["in-type-narrowed"]


def test_an_integers_exclusive_bound_is_the_inclusive_one_it_equals() -> None:
    """mcp-server-fetch 2026.6.4 to 2026.10.19 re-spelled `max_length` (an integer) from
    `exclusiveMinimum: 0, exclusiveMaximum: 1000000` to `minimum: 1, maximum: 999999`: the same
    integers, reported as two breaking `in-bound-tightened`. A number's exclusive bound is still one."""
    old = {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1000000}
    new = {"type": "integer", "minimum": 1, "maximum": 999999}
    assert rules(inputs(old, new)) == rules(outputs(new, old)) == []
    nullable = {"anyOf": [{"type": "integer", "exclusiveMaximum": 10.5}, {"type": "null"}]}
    assert rules(inputs(nullable, {"type": ["integer", "null"], "maximum": 10})) == []
    assert (
        rules(inputs({"type": "integer", "maximum": 5, "exclusiveMaximum": 9}, {"type": "integer", "maximum": 5})) == []
    )
    [tightened] = findings(inputs(old, {**new, "maximum": 999998}))
    assert tightened.rule == "in-bound-tightened" and tightened.path.endswith("/maximum")
    assert "from exclusiveMaximum 1000000 to maximum 999998" in tightened.message  # as the server wrote them
    assert rules(inputs(old, {**old, "exclusiveMaximum": 1000001})) == ["in-bound-relaxed"]
    number = {"type": "number", "exclusiveMaximum": 10}
    assert rules(inputs(number, {"type": "number", "maximum": 9})) == ["in-bound-tightened"]


def test_fastmcps_boilerplate_description_of_a_wrapped_result_is_not_text_a_model_reads() -> None:
    """FastMCP 2 describes each wrapped result's schema "Generic wrapper for non-object return types.",
    FastMCP 3 does not: mcp-atlassian 0.22.1 to 0.23.0 reported 85 dangerous `schema-text-changed`
    for it, one per tool, though the method returns the `result` value and no one sees the wrapper."""

    def returns(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        return rules((snap((tool(out=before),)), snap((tool(out=after),))))

    wrapped = obj({"result": S}, ("result",), **{"x-fastmcp-wrap-result": True})
    described = {**wrapped, "description": "Generic wrapper for non-object return types."}
    assert returns(described, wrapped) == []
    assert returns(wrapped, described) == []
    assert returns(described, {**wrapped, "description": "The issue's key."}) == ["schema-text-changed"]
    not_wrapped = obj({"result": S, "n": {"type": "integer"}}, ("result",))
    assert returns({**not_wrapped, "description": described["description"]}, not_wrapped) == ["schema-text-changed"]


def test_an_object_that_became_one_of_several_keeps_its_properties() -> None:
    """notion-mcp-server 2.0.0 made a page's `parent` (`{page_id}`) one of three objects, the first the
    old one: drift said `page_id` was removed and the type widened to any, where the change is a
    `oneOf` edit (`{page_id, type}` now matches two branches) and no property went anywhere."""
    page = obj({"page_id": S}, ("page_id",))
    database = obj({"database_id": S}, ("database_id",))
    typed = obj({"type": {}}, ("type",))
    parent = {"oneOf": [page, database, typed], "description": "Where the page goes"}
    assert [(f.rule, f.path) for f in findings(inputs(page, parent))] == [
        ("in-union-narrowed", "/inputSchema/properties/x/oneOf"),
        ("schema-text-changed", "/inputSchema/properties/x/description"),
    ]
    assert rules(outputs(page, parent)) == ["out-loosened", "schema-text-changed"]
    assert rules(outputs(parent, page)) == ["schema-text-changed", "out-type-narrowed"]
    tagged = [obj({"kind": {"const": kind}, "v": S}, ("kind",)) for kind in ("a", "b")]
    assert rules(inputs(tagged[0], {"oneOf": tagged})) == ["model-renamed", "in-type-widened"]
