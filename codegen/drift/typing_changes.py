"""A regenerated method that gains or loses its types (`in-typing-changed`, `out-typing-changed`).

A tool's schema that no type is made from (a `$ref` to nothing, invalid JSON Schema, past the work
budget, one datamodel-code-generator fails on) gives its method `arguments: dict[str, Any]` or a
`ToolResult` return ([generate.md](../../docs/generate.md#an-output-schema-no-type-is-made-from)),
so a change that makes a typed tool's schema so, or such a schema typable again, changes the
method's signature while the schema rules may see no more than an optional property added. Whether a
method is typed is asked of the generator itself, for the tools whose schemas changed: a tool whose
schemas, before and after, are of the plain shapes the generator types for certain
(`plain_models.plainly_typed`, most real tools) is typed on both sides, and the rest are built as
`generate` builds them (`tool_workers.tool_specs`), both sides under the old snapshot's naming
rules, which the package regenerated in its place keeps (by rules 13 an output schema alone costs
only the result its type; by rules 1 to 12, the whole method).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from codegen.errors import StubgenError
from codegen.snapshot import Snapshot


def retyped_methods(
    old: Snapshot, new: Snapshot, method_names: Mapping[str, str] | None, add: Callable[..., None]
) -> dict[str, str]:
    """Report each tool kept under its name whose regenerated method takes typed arguments where it
    took `arguments: dict[str, Any]`, or the other way round, and each whose method returns
    `ToolResult` where it returned its output model or value, or the other way round, as
    `add(rule, kind, name, message, path, old, new)`. Return why the output schema a tool lists now
    gives no type, by tool: its method still returns `ToolResult` (`out-schema-added` says so)."""
    then, now = ({tool["name"]: tool for tool in side.tools} for side in (old, new))
    changed = [
        name
        for name in then
        if name in now and any(then[name].get(key) != now[name].get(key) for key in ("inputSchema", "outputSchema"))
    ]
    if not changed:
        return {}
    from codegen.generate.plain_models import plainly_typed

    rules = old.naming_rules  # `compare_snapshots` names the new catalog by the old one's rules
    changed = [name for name in changed if not (plainly_typed(then[name], rules) and plainly_typed(now[name], rules))]
    if not changed:
        return {}
    from codegen.generate.cache import Cache
    from codegen.generate.package_plan import plan_package
    from codegen.generate.tool_workers import tool_specs

    try:
        plans = [{plan.tool["name"]: plan for plan in plan_package(side, method_names).tools} for side in (old, new)]
    except StubgenError:  # a catalog or `method_names` the generator refuses: it says so itself
        return {}
    cache = Cache.default()  # what `generate` already made of a tool is read, not made again
    was = tool_specs(old.server, [plans[0][name] for name in changed], cache)
    became = tool_specs(new.server, [plans[1][name] for name in changed], cache)
    untyped_added: dict[str, str] = {}
    for name, before, after in zip(changed, was, became, strict=True):
        if before is None or after is None:  # a tool `generate` refuses: it says why
            continue
        if (before.input_kind == "untyped") != (after.input_kind == "untyped"):
            if after.input_kind == "untyped":
                message = (
                    f"the input schema gives no type now ({after.untyped_reason}): the regenerated method takes "
                    "`arguments: dict[str, Any]` where it took typed arguments; calls must pass one dict"
                )
            else:
                message = (
                    "the input schema gives a type again: the regenerated method takes typed arguments where it "
                    "took `arguments: dict[str, Any]`; calls passing `arguments=` must change"
                )
            add("in-typing-changed", "tool", name, message, "/inputSchema", before.input_kind, after.input_kind)
        if "outputSchema" not in then[name] and "outputSchema" in now[name] and after.output_kind == "result":
            untyped_added[name] = after.untyped_output or after.untyped_reason or ""
        if "outputSchema" not in then[name] or "outputSchema" not in now[name]:
            continue  # `out-schema-added` or `out-schema-removed` says what came or went
        untyped_before, untyped_after = (spec.output_kind == "result" for spec in (before, after))
        if untyped_before == untyped_after:
            continue
        returned, returns = before.return_annotation, after.return_annotation
        if untyped_after:
            reason = after.untyped_output or after.untyped_reason
            message = (
                f"the output schema gives no type now ({reason}): the regenerated method returns `{returns}` "
                f"where it returned `{returned}`; code reading the result's fields must read "
                "`result.raw.structured_content`"
            )
        else:
            message = (
                f"the output schema gives a type again: the regenerated method returns `{returns}` where it "
                f"returned `{returned}`; code reading `.content`, `.text` or `.raw` must change"
            )
        add("out-typing-changed", "tool", name, message, "/outputSchema", returned, returns)
    return untyped_added
