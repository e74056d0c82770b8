"""MCP Apps (`_meta.ui`) changes: who may see a tool, which UI it renders, and what that UI may reach.

The rest of `_meta` is volatile and never compared; `ui` is not. A tool that was for the app only and
is now shown to the model enters every agent's tool list unreviewed, a new `resourceUri` renders
other code in the host, and a wider content security policy or new iframe permissions let that
code reach more. Visibility applies to tools; the resource, CSP and permissions rules apply to any
entry that carries them (a UI resource declares its CSP and permissions on itself).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from codegen.drift.findings import pointer
from codegen.runtime._hub_catalog import model_visible

__all__ = ["compare_ui"]

_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
"""The CSP allowlists of MCP Apps' `_meta.ui.csp`: origins the app may fetch from, load from, frame, use as base."""
_LEGACY_RESOURCE_URI = "ui/resourceUri"
"""The flat `_meta` key early MCP Apps servers used before `_meta.ui.resourceUri`."""


def _shown(value: Any) -> str:
    return "absent" if value is None else repr(value)


def _ui(meta: Any) -> Mapping[str, Any]:
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return ui if isinstance(ui, Mapping) else {}


def _resource_uri(meta: Any) -> Any:
    uri = _ui(meta).get("resourceUri")
    if uri is None and isinstance(meta, Mapping):
        uri = meta.get(_LEGACY_RESOURCE_URI)
    return uri


def _domains(ui: Mapping[str, Any], key: str) -> set[str]:
    csp = ui.get("csp")
    values = csp.get(key) if isinstance(csp, Mapping) else None
    return {value for value in values if isinstance(value, str)} if isinstance(values, list) else set()


def _permissions(ui: Mapping[str, Any]) -> set[str]:
    permissions = ui.get("permissions")
    if isinstance(permissions, Mapping):
        return {str(name) for name, value in permissions.items() if value is not None and value is not False}
    return {str(name) for name in permissions if isinstance(name, str)} if isinstance(permissions, list) else set()


def compare_ui(kind: str, old_meta: Any, new_meta: Any, add: Callable[..., None]) -> None:
    """Findings for one entry's `_meta.ui`; `add(rule, message, path, before, after)` reports each."""
    old, new = _ui(old_meta), _ui(new_meta)
    if kind == "tool" and old.get("visibility") != new.get("visibility"):
        where = pointer("_meta", "ui", "visibility")
        before, after = old.get("visibility"), new.get("visibility")
        if model_visible(new_meta) and not model_visible(old_meta):
            message = "tool is now shown to the model (`_meta.ui.visibility` gained it); it was for the app only"
            add("ui-visible-to-model", message, where, before, after)
        else:
            message = f"`_meta.ui.visibility` changed from {_shown(before)} to {_shown(after)} (absent: model and app)"
            add("ui-visibility-changed", message, where, before, after)
    before_uri, after_uri = _resource_uri(old_meta), _resource_uri(new_meta)
    if before_uri != after_uri:
        message = (
            f"the UI resource changed from {_shown(before_uri)} to {_shown(after_uri)}: the host renders other code"
        )
        add("ui-resource-changed", message, pointer("_meta", "ui", "resourceUri"), before_uri, after_uri)
    widened = {key: sorted(_domains(new, key) - _domains(old, key)) for key in _CSP_KEYS}
    widened = {key: domains for key, domains in widened.items() if domains}
    if widened:
        listed = "; ".join(f"{key}: {', '.join(domains)}" for key, domains in widened.items())
        message = f"the app's content security policy now allows more: {listed}"
        add("ui-csp-widened", message, pointer("_meta", "ui", "csp"), old.get("csp"), new.get("csp"))
    granted = sorted(_permissions(new) - _permissions(old))
    if granted:
        message = f"the app now asks for the permissions {', '.join(granted)}"
        where = pointer("_meta", "ui", "permissions")
        add("ui-permissions-widened", message, where, old.get("permissions"), new.get("permissions"))
