"""The adversarial corpus through the generator: every payload in every name and free text either
gives a package that compiles, imports without running the payload and type-checks, or one error line."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.errors import StubgenError
from codegen.generate import render_snapshot
from codegen.snapshot import Snapshot
from tests.hostile.corpus import INJECTIONS, NAMES, PAYLOADS, catalog, chunks, generate_all, import_all, run_mypy


@pytest.mark.generated_mypy
def test_every_payload_in_every_position(tmp_path: Path) -> None:
    """Eight payloads to a catalog, each as a tool/property/prompt/resource name and as every text;
    hostile server ids too. All of them generate: none of this is a reason to refuse a catalog."""
    snapshots = [catalog(f"h{index}", pairs) for index, pairs in enumerate(chunks(PAYLOADS, 8))]
    snapshots += [
        catalog(f"{payload} {index}", [("tool", "text")]) for index, payload in enumerate(INJECTIONS[:4] + NAMES[:3])
    ]
    outcome = generate_all(snapshots, tmp_path)
    import_all(outcome.generated, tmp_path, outcome)
    assert outcome.injections == []
    assert outcome.crashes == []
    assert outcome.errors == []
    assert len(outcome.generated) == len(snapshots)
    assert run_mypy(outcome.generated[:4], tmp_path) == ""


def test_a_lone_surrogate_is_refused_with_its_location() -> None:
    """No server can send one (the SDK's JSON parser rejects it) and pydantic cannot hold one in a
    model, so a hand-edited snapshot with one is an error naming where it is, not a broken package."""
    for pairs in ([("bad\ud800name", "text")], [("tool", "text \udfff")]):
        with pytest.raises(StubgenError) as caught:
            render_snapshot(catalog("surrogates", pairs))
        message = str(caught.value)
        assert message.startswith("server 'surrogates': ") and "lone surrogate" in message
        assert "\n" not in message
        message.encode("utf-8")  # printable: the surrogate itself is escaped


def test_a_template_longer_than_the_sdk_allows_is_one_short_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Strict, the error; otherwise the warning that leaves the template out: one short line each."""
    snapshot = Snapshot(
        server="long",
        protocol_version="2025-06-18",
        capabilities={},
        resource_templates=({"uriTemplate": "x://{id}/" + "y" * 10_000, "name": "n" * 10_000},),
    )
    with pytest.raises(StubgenError, match=r"^server 'long': resource template 'nnn.*\.\.\.': .*8192$") as caught:
        render_snapshot(snapshot, strict=True)
    assert len(str(caught.value)) < 200
    capsys.readouterr()
    client = render_snapshot(snapshot)["client.py"].decode()
    warning = capsys.readouterr().err
    assert warning.startswith(f"warning: {caught.value}; it has no method") and len(warning) < 400, warning
    assert "y" * 100 not in client
