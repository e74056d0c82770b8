"""Saved code-mode scripts: type-checked against the stubs the committed snapshots give (`check-scripts`, `drift`)."""
