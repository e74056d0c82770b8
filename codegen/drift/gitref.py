"""`drift --against REF`: a committed snapshot as it was at a git ref, read with `git show` (no
checkout), the way `buf breaking --against` reads the base of a pull request."""

from __future__ import annotations

import functools
import subprocess
from dataclasses import dataclass
from pathlib import Path

from codegen.errors import StubgenError

_TIMEOUT = 60.0


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=_TIMEOUT, check=False)
    except FileNotFoundError:
        raise StubgenError("--against needs git, and no `git` command was found on PATH") from None
    except subprocess.TimeoutExpired:
        raise StubgenError(f"git {args[0]} took longer than {_TIMEOUT:.0f}s in {cwd}") from None


@dataclass(frozen=True)
class GitRef:
    """A commit-ish resolved in the repository holding the snapshots."""

    name: str
    commit: str | None
    """None for `HEAD` in a repository with no commit yet: it holds no snapshot, so every one is new."""
    root: Path
    """The repository's top folder, resolved."""

    @classmethod
    def resolve(cls, name: str, folder: Path) -> GitRef:
        """The ref `name` in the repository containing `folder`; a clear error outside a repository or
        for a ref git does not know (a shallow clone may lack it: fetch it first)."""
        start = folder if folder.is_dir() else folder.parent
        while not start.is_dir():  # the snapshots folder may be gone from the working tree
            start = start.parent
        top = _git(["rev-parse", "--show-toplevel"], start)
        if top.returncode != 0:
            raise StubgenError(f"--against {name}: {start} is not inside a git repository")
        if name.startswith("-"):
            raise StubgenError(f"--against {name}: not a git ref")
        root = Path(top.stdout.decode().strip()).resolve()
        commit = _git(["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], start)
        if commit.returncode != 0 and name in ("HEAD", "@") and _unborn(start):
            return cls(name, None, root)  # the pre-commit hook on a repository's first commit
        if commit.returncode != 0:
            raise StubgenError(f"--against {name}: unknown git ref; {_fetch_advice(name, start)}")
        return cls(name, commit.stdout.decode().strip(), root)

    def read(self, path: Path) -> bytes | None:
        """The file's bytes at this ref, or None when the ref has no such file (a server added since)."""
        resolved = path.resolve()
        try:
            inside = resolved.relative_to(self.root).as_posix()
        except ValueError:
            where = f"{path} is outside" if resolved == path.absolute() else f"{path} is a link to {resolved}, outside"
            raise StubgenError(
                f"--against {self.name}: {where} the git repository {self.root}, so git has no version of it"
            ) from None
        if self.commit is None:
            return None
        shown = _git(["show", f"{self.commit}:{inside}"], self.root)
        if shown.returncode == 0:
            return shown.stdout
        exists = _git(["cat-file", "-e", f"{self.commit}:{inside}"], self.root)
        if exists.returncode != 0:
            return None
        error = shown.stderr.decode(errors="replace").strip()
        raise StubgenError(f"--against {self.name}: cannot read {inside} ({error})")


def _fetch_advice(name: str, folder: Path) -> str:
    """How to fetch a ref a (shallow CI) clone lacks, as a command that works in one: a remote's
    branch into its remote-tracking ref, a tag or branch by name, or the history before a commit."""
    if any(mark in name for mark in "~^@:"):
        shallow = _git(["rev-parse", "--is-shallow-repository"], folder).stdout.strip() == b"true"
        if shallow:
            return "this clone is shallow and lacks the commits it names: fetch them first, e.g. `git fetch --deepen=1`"
        return "check the name with `git log --oneline`"
    remote, _, branch = name.partition("/")
    remotes = _git(["remote"], folder).stdout.decode(errors="replace").split()
    if branch and remote in remotes:
        return f"fetch it first (a shallow CI clone has only its own commit): `git fetch --depth=1 {remote} {branch}:refs/remotes/{name}`"
    return (
        "fetch it first (a shallow CI clone has only its own commit): `git fetch --depth=1 origin tag "
        f"{name}` for a tag, or `git fetch --depth=1 origin {name}:refs/remotes/origin/{name}` and "
        f"`--against origin/{name}` for a branch"
    )


def _unborn(folder: Path) -> bool:
    """Whether the repository's current branch has no commit yet (`git init`, nothing committed)."""
    head = _git(["symbolic-ref", "--quiet", "HEAD"], folder)
    if head.returncode != 0:
        return False
    branch = head.stdout.decode().strip()
    return _git(["rev-parse", "--verify", "--quiet", branch], folder).returncode != 0


@functools.cache
def _work_tree(folder: Path) -> Path | None:
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, timeout=_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(top.stdout.decode().strip()).resolve() if top.returncode == 0 else None


def report_path(path: Path) -> str:
    """A path as reports name files: relative to the git work tree around the working directory, as
    code scanning and GitHub annotations expect whichever folder drift runs in; outside one,
    relative to the working directory; `/`-separated."""
    cwd = Path.cwd().resolve()
    resolved = (cwd / path).resolve()
    for base in (_work_tree(cwd), cwd):
        if base is None:
            continue
        try:
            return resolved.relative_to(base).as_posix()
        except ValueError:
            continue
    return resolved.as_posix()
