"""The model classes of a regenerated package, as user code names them (`model-renamed`).

Drift compares schemas with their `$ref`s resolved, so renaming a `$defs` entry, or moving an inline
object into `$defs`, means nothing to the other rules; but a tool's nested models are named after
their `$defs` keys (`GetRouteInputPoint`), and code that builds or annotates one stops type-checking
when its class takes another name. The names are the generator's own: each changed tool's models
are generated, which happens only for a tool whose schemas changed and hold a reference.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping

from codegen.drift.normalize import JSON, canonical
from codegen.errors import StubgenError
from codegen.identifiers import model_stems, plan_names
from codegen.snapshot import Snapshot


def renamed_models(
    old: Snapshot, new: Snapshot, method_names: Mapping[str, str] | None, add: Callable[..., None]
) -> None:
    """Report each tool kept under its name whose regenerated models lose a class name and gain
    another, as `add(rule, kind, name, message, path, old, new)`. A class that is only gone went
    with its property, which the schema rules report."""
    now_tools = {tool["name"]: tool for tool in new.tools}
    changed = [
        (before, now_tools[before["name"]])
        for before in old.tools
        if before["name"] in now_tools and _references_changed(before, now_tools[before["name"]])
    ]
    if not changed:
        return
    try:
        old_stems, new_stems = _stems(old, method_names), _stems(new, method_names)
    except StubgenError:  # a catalog or `method_names` the generator refuses: it says so itself
        return
    for before, after in changed:
        name = before["name"]
        was = _class_names(old.server, before, old_stems[name], old.naming_rules)
        now = _class_names(new.server, after, new_stems[name], new.naming_rules)
        gone, came = sorted(was - now), sorted(now - was)
        if gone and came:
            message = (
                f"the regenerated models are named {', '.join(came)} where they were {', '.join(gone)}; "
                "code that builds or annotates the old names must change"
            )
            add("model-renamed", "tool", name, message, "", gone, came)


_REFERENCE = re.compile(r'"\$ref":("(?:[^"\\]|\\.)*")')


def _references_changed(old: JSON, new: JSON) -> bool:
    """Whether the tool's references changed: which definitions it has and which it points to where
    (a `$ref` added or gone, or pointing elsewhere). Models are named after the definitions they come
    from, so this is the one way a name changes that the schema rules, which see through references,
    do not report; a tool whose references stayed as they were is not generated."""
    schemas = [[tool.get("inputSchema", {}), tool.get("outputSchema", {})] for tool in (old, new)]
    if schemas[0] == schemas[1]:  # most tools: compared in C, key order aside, without writing them out
        return False
    texts = [canonical(both) for both in schemas]
    return _REFERENCE.findall(texts[0]) != _REFERENCE.findall(texts[1]) or _definitions(old) != _definitions(new)


def _definitions(tool: JSON) -> list[list[str]]:
    """The names of each schema's root definitions (`$defs`, draft-07 `definitions`)."""
    return [
        sorted(schema.get(key) or {}) if isinstance(schema, dict) and isinstance(schema.get(key), dict) else []
        for schema in (tool.get("inputSchema"), tool.get("outputSchema"))
        for key in ("$defs", "definitions")
    ]


def _stems(snapshot: Snapshot, method_names: Mapping[str, str] | None) -> dict[str, str]:
    """Each tool's model stem, as the package generated from `snapshot` has it."""
    named = plan_names(snapshot, method_names).tools
    stems = model_stems([tool.python for tool in named], snapshot.naming_rules)
    return {tool["name"]: stem for tool, stem in zip(snapshot.tools, stems, strict=True)}


def _class_names(server: str, tool: JSON, stem: str, naming_rules: int) -> frozenset[str]:
    return _class_names_of(server, canonical(tool), stem, naming_rules)


@functools.lru_cache(maxsize=256)
def _class_names_of(server: str, tool_text: str, stem: str, naming_rules: int) -> frozenset[str]:
    """The classes of the tool's models that its method takes or returns, directly or in a field; none
    when the generator would give it the untyped method, or cannot build its models (`generate`
    reports why). A definition nothing the method uses reaches is generated too, but no caller names it."""
    from codegen.generate.guard import check_tool_schemas  # the generator loads only when a reference changed
    from codegen.generate.model_reader import names_in, read_models
    from codegen.generate.modelgen import ModelJob, annotation_text, model_source

    try:
        tool = json.loads(tool_text)
        if check_tool_schemas(server, tool) is not None:
            return frozenset()
        classes, _imports = read_models(model_source(server, ModelJob(tool, stem, naming_rules)))
    except Exception:  # whatever stops the generator, `generate` itself reports
        return frozenset()
    reached: set[str] = set()
    waiting = [f"{stem}Input", f"{stem}Output"]
    while waiting:
        name = waiting.pop()
        model = classes.get(name)
        if model is None or name in reached:
            continue
        reached.add(name)
        nodes = [annotation for _python, annotation in model.fields.values()]
        nodes += [node for node in (model.extra, model.alias_of) if node is not None]
        waiting += [used for node in nodes for used in names_in(annotation_text(node))]
        waiting += [used for base in model.bases for used in names_in(base)]
    return frozenset(reached)
