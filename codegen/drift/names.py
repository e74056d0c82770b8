"""`method-retargeted`: a Python name of the generated client that would now call another entity;
`argument-retargeted`: a keyword of a generated method that would now send another argument.

The generator keeps a name with its entity (`identifiers.plan_names`, from the snapshot's
`pythonNames`), so this fires only when that promise cannot hold: the entity is gone and a newcomer
takes its name, a `method_names` entry gives it away, or the new snapshot was not written by a
version that carries names. Either way the same line of application code now calls something else,
with a signature that may well type-check. Keywords are kept the same way (`identifiers.plan_arguments`,
from the snapshot's `argumentNames`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from codegen.drift.findings import Kind
from codegen.errors import StubgenError
from codegen.identifiers import entry_keywords, plan_names, same_keywords
from codegen.snapshot import Snapshot

_KIND: dict[str, tuple[Kind, str]] = {
    "tools": ("tool", "tool {!r}"),
    "resources": ("resource", "resource {!r}"),
    "resourceTemplates": ("template", "template {!r}"),
    "prompts": ("prompt", "prompt {!r}"),
    "taskStarters": ("tool", "tool {!r} started as a task"),
}
"""A name plan's kind as drift names the entity, and how a message describes what a name reaches."""


def retargeted_names(
    old: Snapshot,
    new: Snapshot,
    method_names: Mapping[str, str] | None,
    renamed: Mapping[tuple[Kind, str | None], str],
    add: Callable[..., None],
) -> None:
    """Report each name of the old client that the new one gives to a different entity, as
    `add(rule, kind, name, message, path, old, new)` about the entity the name used to reach.
    `renamed` maps (kind, old name) to the new name of each entity found renamed: a name that follows
    its entity to the new name reaches the same entity, and `*-renamed` already says so."""
    try:
        before, after = plan_names(old, method_names).targets(), plan_names(new, method_names).targets()
    except StubgenError:  # a catalog or `method_names` the generator refuses: it says so itself
        return
    for python, target in sorted(before.items()):
        moved = after.get(python)
        if moved is None or moved == target:
            continue
        kind, key = target
        if moved[0] == kind and renamed.get((_KIND[kind][0], key)) == moved[1]:
            continue
        was = _KIND[kind][1].format(key)
        now = _KIND[moved[0]][1].format(moved[1])
        message = f"`{python}` called {was} and would now call {now}; code calling `{python}` reaches the other one"
        add("method-retargeted", _KIND[kind][0], key, message, "", was, now)


def retargeted_keywords(old: Snapshot, new: Snapshot, add: Callable[..., None]) -> None:
    """Report each keyword of an old tool or prompt method that the new one gives to a different
    argument of the same entry, as `add(rule, kind, name, message, path, old, new)`: unchanged calls
    passing that keyword would send their value as the other argument. An entry that is gone or
    renamed has its own finding; one whose arguments are as they were is not named again."""
    for kind, before_entries, after_entries in (
        ("tools", old.tools, new.tools),
        ("prompts", old.prompts, new.prompts),
    ):
        now_entries = {entry["name"]: entry for entry in after_entries}
        for entry in before_entries:
            name = entry["name"]
            after = now_entries.get(name)
            if after is None or same_keywords(old, new, kind, entry, after):
                continue
            sends = {python: wire for wire, python in entry_keywords(new, kind, after).items()}
            for wire, python in sorted(entry_keywords(old, kind, entry).items()):
                moved = sends.get(python)
                if moved is None or moved == wire:
                    continue
                message = (
                    f"keyword `{python}` sent argument {wire!r} and would now send {moved!r}; "
                    f"calls passing `{python}=` send their value as the other argument"
                )
                add("argument-retargeted", _KIND[kind][0], name, message, "", wire, moved)
