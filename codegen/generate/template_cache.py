"""Compiled templates kept in the user's cache folder, so a run does not compile them from source again.

Jinja compiles each template to Python code on first use in a process, which was about a third of a
warm `generate`. The compiled code is stored per template source (a hash of the Jinja version, the
template's name and its text names the file), so an edited template, another checkout's templates or a
new Jinja never read stale code, and the rendered bytes are the same as a compile from source. A
missing, unreadable, damaged or unwritable entry is compiled from source as before.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

from codegen.fsutil import atomic_write_bytes

_FOLDER = "templates-v1"


class TemplateBytecodeCache(BytecodeCache):
    def __init__(self, cache_dir: Path) -> None:
        self.folder = cache_dir / _FOLDER

    def get_bucket(self, environment: jinja2.Environment, name: str, filename: str | None, source: str) -> Bucket:
        key = hashlib.sha256(f"{jinja2.__version__}\0{name}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
        bucket = Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            bucket.bytecode_from_string((self.folder / bucket.key).read_bytes())
        except Exception:  # a damaged entry is only a miss: compile from source
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            atomic_write_bytes(self.folder / bucket.key, bucket.bytecode_to_string(), durable=False)
