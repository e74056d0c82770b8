"""The catalog-text audit (`codegen.runtime._audit`) over a whole snapshot: every text a server
wrote for a model to read, in its tools, resources, templates, prompts and instructions.

`snapshot` names what it finds in its summary; `drift` reports what a change brought in.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from codegen.runtime._audit import TextFinding, audit_text, audit_tool
from codegen.snapshot.format import Snapshot

EntityKind = Literal["server", "tool", "resource", "template", "prompt"]

_ENTRY_TEXT_KEYS = ("name", "title", "description")


@dataclass(frozen=True)
class CatalogFinding:
    """One suspicious passage and the entity it is in (`where` is a JSON pointer into the entity)."""

    kind: EntityKind
    name: str
    where: str
    finding: TextFinding

    def describe(self) -> str:
        """One line: the entity, the place, the kind of finding, the excerpt, and the words that
        matched with why they matter."""
        return (
            f"{self.kind} {self.name!r} {self.where}: {self.finding.kind}: {self.finding.excerpt}; {self.finding.why}"
        )


def _entry_texts(entry: Mapping[str, Any], keys: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for key in keys:
        if isinstance(entry.get(key), str):
            yield key, entry[key]


def _prompt_texts(prompt: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    yield from _entry_texts(prompt, _ENTRY_TEXT_KEYS)
    arguments = prompt.get("arguments")
    for index, argument in enumerate(arguments if isinstance(arguments, list) else []):
        if isinstance(argument, Mapping):
            for key, text in _entry_texts(argument, _ENTRY_TEXT_KEYS):
                yield f"arguments/{index}/{key}", text


def entity_findings(kind: EntityKind, entry: Mapping[str, Any]) -> list[tuple[str, TextFinding]]:
    """(JSON pointer, finding) for every suspicious passage in one catalog entry."""
    if kind == "tool":
        return [(f"/{where}", finding) for where, finding in audit_tool(entry)]
    if kind == "prompt":
        texts = list(_prompt_texts(entry))
    else:
        texts = list(_entry_texts(entry, (*_ENTRY_TEXT_KEYS, "uri" if kind == "resource" else "uriTemplate")))
    return [(f"/{where}", finding) for where, text in texts for finding in audit_text(text)]


ENTRIES: tuple[tuple[EntityKind, str, str], ...] = (
    ("tool", "tools", "name"),
    ("resource", "resources", "uri"),
    ("template", "resource_templates", "uriTemplate"),
    ("prompt", "prompts", "name"),
)
"""Each kind of entry: its kind, the snapshot attribute listing it, the key naming it."""


def catalog_findings(snapshot: Snapshot, since: Snapshot | None = None) -> list[CatalogFinding]:
    """Every finding in the snapshot, in catalog order: instructions first, then each kind's entries.

    With `since`, only the findings that snapshot did not have in the same entity at the same place:
    an entry whose definition did not change is not read again, so drift over a large catalog audits
    only what moved. The instructions are the server's whatever id each snapshot gave it, as its
    entries are: two snapshots of one server taken under two names (over stdio and over HTTP) have
    the same instructions, which are no new finding."""
    found = []
    earlier = since.instructions if since is not None else None
    if since is None or earlier != snapshot.instructions:
        before = set(audit_text(earlier or ""))
        found += [
            CatalogFinding("server", snapshot.server, "/instructions", finding)
            for finding in audit_text(snapshot.instructions or "")
            if finding not in before
        ]
    for kind, attribute, key in ENTRIES:
        previous = {} if since is None else {entry[key]: entry for entry in getattr(since, attribute)}
        for entry in getattr(snapshot, attribute):
            was = previous.get(entry[key])
            if was == entry:
                continue
            seen = set() if was is None else set(entity_findings(kind, was))
            found += [
                CatalogFinding(kind, entry[key], where, finding)
                for where, finding in entity_findings(kind, entry)
                if (where, finding) not in seen
            ]
    return found
