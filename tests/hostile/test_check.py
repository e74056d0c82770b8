"""`generate --check` as a CI gate against a hostile committer: it proves a package current from the
snapshot and the generator only, never from what the files say about themselves, and never follows a
symlink out of a package folder."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from codegen.cache_dir import CACHE_ENV
from tests.conftest import write_config
from tests.regen_goldens import GOLDEN

PAYLOAD = "__import__('os').system('touch PWNED')\n"
SECRET = "TOPSECRET-8c1f0e2d"


def project(tmp_path: Path) -> Path:
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n\n'
                 '[tool.mcp-stubgen.servers.weather]\ncommand = "python"\n')  # fmt: skip
    (tmp_path / "snaps").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    return tmp_path / "pyproject.toml"


def forge(path: Path) -> None:
    """Append a payload to a generated file and make every claim its header makes about its own
    content true again (the proof line `# Inputs K, content H.` mcp-stubgen wrote before)."""
    data = path.read_bytes() + PAYLOAD.encode()
    head, _, rest = data.partition(b"\n")
    second, _, rest = rest.partition(b"\n")
    third, _, body = rest.partition(b"\n")
    claim = re.fullmatch(rb"# Inputs ([0-9a-f]{16}), content [0-9a-f]{16}\.", third)
    if claim is not None:
        first_lines = head + b"\n" + second + b"\n"
        content = hashlib.sha256(first_lines + b"\0" + body).hexdigest()[:16].encode()
        data = first_lines + b"# Inputs " + claim[1] + b", content " + content + b".\n" + body
    path.write_bytes(data)


def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a fresh clone in CI has: no cache at all."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "fresh-clone-cache"))


@pytest.mark.parametrize("forged", ["weather/client.py", "weather/_models/get_forecast.py", "hub/client.py"])
@pytest.mark.parametrize("cache", ["empty", "warm"])
def test_a_forged_file_with_a_re_stamped_header_fails_check(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forged: str, cache: str
) -> None:
    """Red before: `--check` trusted a content hash the edited file carried for itself."""
    config = project(tmp_path)
    assert run_cli("generate", "--config", config).exit_code == 0
    forge(tmp_path / "clients" / forged)
    if cache == "empty":
        empty_cache(tmp_path, monkeypatch)

    result = run_cli("generate", "--check", "--config", config)

    assert result.exit_code == 1, result.stderr
    assert f"-{PAYLOAD}" in result.stdout
    assert "1 generated package(s) out of date" in result.stderr


def test_check_from_a_fresh_clone_passes_a_current_package_and_then_proves_it_from_the_cache(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = project(tmp_path)
    assert run_cli("generate", "--config", config).exit_code == 0
    empty_cache(tmp_path, monkeypatch)
    assert run_cli("generate", "--check", "--config", config).exit_code == 0
    assert any((tmp_path / "fresh-clone-cache").rglob("*")), "the rendering was recorded for the next check"
    assert run_cli("generate", "--check", "--config", config).exit_code == 0
    forge(tmp_path / "clients" / "weather" / "models.py")
    assert run_cli("generate", "--check", "--config", config).exit_code == 1


@pytest.mark.parametrize("cache", ["empty", "warm"])
@pytest.mark.parametrize("link", ["weather/README.txt", "weather/py.typed", "weather/_models", "hub/README.txt"])
def test_check_never_follows_a_symlink_and_names_it(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str, cache: str
) -> None:
    """Red before: `README.txt -> <a file of secrets>` put the secrets into the diff."""
    config = project(tmp_path)
    assert run_cli("generate", "--config", config).exit_code == 0
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "environ").write_text(f"TOKEN={SECRET}\n")
    (secrets / "get_forecast.py").write_text(f"TOKEN = {SECRET!r}\n")
    path = tmp_path / "clients" / link
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    path.symlink_to(secrets if link.endswith("_models") else secrets / "environ")
    if cache == "empty":
        empty_cache(tmp_path, monkeypatch)

    result = run_cli("generate", "--check", "--config", config)

    assert result.exit_code == 1
    assert SECRET not in result.stdout + result.stderr
    assert str(secrets) not in result.stdout + result.stderr
    assert f"clients/{link} is not a regular file (a symlink?): not followed; remove it" in result.stdout

    assert run_cli("generate", "--config", config).exit_code == 0
    assert not path.is_symlink()
    assert (secrets / "environ").read_text() == f"TOKEN={SECRET}\n", "the link's target is left alone"
    assert run_cli("generate", "--check", "--config", config).exit_code == 0


def test_check_names_a_file_whose_name_breaks_lines_on_one_line(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A file a pull request adds to a package, named to start a GitHub workflow command: its name
    reached the diff's header raw, a line of its own in the CI log that the Action runs `--check` in."""
    config = project(tmp_path)
    assert run_cli("generate", "--config", config).exit_code == 0
    (tmp_path / "clients" / "weather" / "x\n::error file=README.md::forged\x1b[31m.py").write_text("")
    result = run_cli("generate", "--check", "--config", config)
    assert result.exit_code == 1
    assert "/clients/weather/x\\n::error file=README.md::forged\\x1b[31m.py\n+++ /dev/null\n" in result.stdout
    assert not any(line.startswith("::") for line in result.stdout.splitlines())
