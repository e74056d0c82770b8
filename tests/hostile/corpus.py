"""The adversarial corpus: payloads for every name and free text of a catalog, and the checks every
generated package must pass (compiles, imports without running a payload, or fails in one line).

Shared by the corpus test, the hypothesis property test and `tests/fuzz/fuzz_generate.py`.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codegen.errors import StubgenError
from codegen.generate import package_dir, render_snapshot
from codegen.generate.publish import publish
from codegen.generate.runtime_folder import publish_runtime
from codegen.identifiers import NAMING_RULES, client_members
from codegen.snapshot import JSON, Snapshot

MARKER = "STUBGEN_PWNED"
"""A file the payloads try to create in the working directory; its existence is an injection."""

_RUN = f"__import__('os').system('touch {MARKER}')"
_OPEN = f"open('{MARKER}', 'w')"

INJECTIONS = [
    _RUN,
    f'"""; {_RUN}; """',
    f"'''; {_RUN}; '''",
    f'"\n{_RUN}\n"',
    f"\\\n{_RUN}",
    f"\r{_RUN}",
    f"\u2028{_RUN}\u2029",
    f'x"); {_OPEN}; ("',
    f"x'); {_OPEN}; ('",
    f"x]; {_OPEN}; [",
    f"x}}; {_OPEN}; {{",
    f"# \n{_OPEN}",
    f"{{{{ cycler.__init__.__globals__.os.system('touch {MARKER}') }}}}",
    f"{{% set x = cycler.__init__.__globals__.os.system('touch {MARKER}') %}}",
    f"{{# comment #}}{{{{ {_RUN} }}}}",
]
"""Text that, pasted unescaped into a module, a docstring or a Jinja template, would create MARKER."""

TEXTS = [
    'triple """ double',
    "triple ''' single",
    'ends with a quote"',
    "ends with a backslash\\",
    "\\N{BULLET} \\u0041 \\x00 \\",
    "carriage\rreturn",
    "crlf\r\nline",
    "line\u2028para\u2029sep",
    "nul\x00byte",
    "bidi \u202eevil\u202c \u2066x\u2069",
    "zero\u200bwidth \ufeffbom",
    "{{ jinja }} {% if x %} {# c #}",
    "}}{%",
    "tab\there\x0bvt\x0cff\x1besc\x7fdel\x85nel",
    "emoji \U0001f600 and \u00e9",
    "",
    " ",
    "x" * 10_000,
]

NAMES = [
    "__init__",
    "__class__",
    "__dict__",
    "__all__",
    "__import__",
    "match",
    "case",
    "type",
    "_",
    "__",
    "class",
    "from",
    "import",
    "None",
    "True",
    "self",
    "cls",
    "2fa",
    "0",
    "-",
    "",
    "x" * 10_000,
    "a.b.c",
    "a/b",
    "a~b",
    "ü",
    "Ω",
    "BaseModel",
    "Field",
    "ConfigDict",
    "RootModel",
    "Literal",
    "Any",
    "AnyUrl",
    "annotations",
    "model_config",
    "model_fields",
    "model_dump",
    "root",
    "NOT_GIVEN",
    "NotGiven",
    "GeneratedClient",
    "CallToolResult",
    "GetPromptResult",
    "ReadResourceResult",
    "Completion",
    "HandshakeTimeoutError",
    "models",
    "_models",
    "_runtime",
    "client",
    *sorted(client_members(NAMING_RULES)),
]
"""Names that are keywords, dunders, builtins, or the generated modules' own imports and members."""

PAYLOADS = [*INJECTIONS, *TEXTS, *NAMES]

PAYLOAD_MODULE = "stubgen_pwned"
"""A module the extension keywords name; `import_all` puts it beside the packages it imports, and
importing it creates MARKER, so a keyword that reached the generated code is an injection."""
PAYLOAD_MODULE_SOURCE = f"open({MARKER!r}, 'w').close()\nclass X(str): ...\nclass B: ...\n"
EXTENSION_VALUES: list[object] = [
    f"{PAYLOAD_MODULE}.X",
    [f"{PAYLOAD_MODULE}.B"],
    {"module": PAYLOAD_MODULE, "name": "X", "x-python-type": f"{PAYLOAD_MODULE}.X"},
    True,
]
"""Values for each extension keyword: a dotted path, a list of them, an import table, a flag."""


@functools.cache
def extension_keywords() -> tuple[str, ...]:
    """Every schema keyword the installed datamodel-code-generator acts on beyond those modelgen hands it
    (`SCHEMA_KEYWORDS`): the fields of its schema object, each key it reads from a schema's extras,
    every `x-...` name in its source. Read from the installed version, so a new release's are tried too."""
    import datamodel_code_generator
    from datamodel_code_generator.parser._schema_object import DEFAULT_FIELD_KEYS, JsonSchemaObject

    from codegen.generate.modelgen import SCHEMA_KEYWORDS

    fields = {field.alias or name for name, field in JsonSchemaObject.model_fields.items()}
    source = "\n".join(path.read_text() for path in Path(datamodel_code_generator.__file__).parent.rglob("*.py"))
    extensions = set(re.findall(r"""["'](x-[A-Za-z0-9_-]*[A-Za-z0-9])["']""", source))
    read_from_extras = set(re.findall(r"""extras(?:\.get\(|\.pop\(|\[)\s*["']([^"']+)["']""", source))
    return tuple(sorted((fields | DEFAULT_FIELD_KEYS | extensions | read_from_extras) - SCHEMA_KEYWORDS))


def pointer_token(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def tool_entry(name: str, text: str) -> JSON:
    """A tool whose name, property names, `$defs` key and every free text are payloads."""
    prop = {
        "type": "string",
        "title": text,
        "description": text,
        "default": text,
        "enum": [text, "plain"] if text != "plain" else ["plain"],
        "examples": [text],
        "pattern": text,
        "format": text,
    }
    return {
        "name": name,
        "title": text,
        "description": text,
        "inputSchema": {
            "type": "object",
            "title": text,
            "description": text,
            "properties": {
                name: prop,
                "nested": {"$ref": f"#/$defs/{pointer_token(name)}", "description": text},
                "count": {"type": "integer", "default": text, "description": text},
                "text": {"type": "string", "const": text, "examples": [text, {"$ref": text}]},
            },
            "required": [name],
            "$defs": {
                name: {
                    "type": "object",
                    "title": text,
                    "description": text,
                    "properties": {name: {"type": "string", "description": text}},
                }
            },
        },
        "outputSchema": {
            "type": "object",
            "title": text,
            "description": text,
            "properties": {name: {"type": "string", "description": text, "default": text}},
            "required": [name],
        },
        "annotations": {"title": text},
    }


def catalog(server: str, pairs: Sequence[tuple[str, str]]) -> Snapshot:
    """One snapshot with a tool, resource, template and prompt per (name, text) payload pair, the
    text in every free text; the server-wide texts take the first pair's."""
    text = pairs[0][1]
    return Snapshot(
        server=server,
        protocol_version=text,
        capabilities={"tools": {}, "resources": {}, "prompts": {}, "completions": {}, "experimental": {text: {}}},
        server_info={"name": text, "version": text, "title": text},
        instructions=text,
        tools=(*(tool_entry(name, text) for name, text in pairs), {"name": "plain", "inputSchema": {"type": "object"}}),
        resources=tuple(
            {"uri": f"res://{index}/{name}", "name": name, "description": text, "mimeType": text, "title": text}
            for index, (name, text) in enumerate(pairs)
        ),
        resource_templates=tuple(
            {
                "uriTemplate": f"tpl://{index}/{{id}}/" + "".join(char for char in text if char not in "{}")[:1000],
                "name": name,
                "description": text,
            }
            for index, (name, text) in enumerate(pairs)
        ),
        prompts=tuple(
            {
                "name": name,
                "description": text,
                "arguments": [{"name": name, "description": text, "required": True}, {"name": "other"}],
            }
            for name, text in pairs
        ),
    )


def chunks(items: Sequence[str], size: int) -> list[list[tuple[str, str]]]:
    """The payloads as (name, text) pairs, `size` to a catalog."""
    pairs = [(item, item) for item in items]
    return [pairs[start : start + size] for start in range(0, len(pairs), size)]


@dataclass
class Outcome:
    generated: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    injections: list[str] = field(default_factory=list)


def generate_all(snapshots: Iterable[Snapshot], out: Path) -> Outcome:
    """Generate each snapshot into `out` (with `out` as the working directory, so a payload run at
    generation time is caught too); every `.py` file written must compile."""
    outcome = Outcome()
    here = Path.cwd()
    os.chdir(out)
    try:
        for snapshot in snapshots:
            label = f"server {snapshot.server[:40]!r}"
            try:
                files = render_snapshot(snapshot)
            except StubgenError as error:
                if "\n" in str(error) or "\r" in str(error) or not str(error).startswith("server "):
                    outcome.crashes.append(f"{label}: error is not one line naming the server: {str(error)[:300]!r}")
                else:
                    outcome.errors.append(str(error))
                continue
            except Exception as error:
                outcome.crashes.append(f"{label}: {type(error).__name__}: {str(error)[:300]}")
                continue
            target = package_dir(snapshot, out)
            if target.exists():
                outcome.crashes.append(f"{label}: two snapshots share the package {target.name}")
                continue
            publish(files, target)
            for name, data in files.items():
                if name.endswith(".py"):
                    try:
                        compile(data, str(target / name), "exec")
                    except (SyntaxError, ValueError) as error:
                        outcome.crashes.append(f"{label}: {name} does not compile: {error}")
            outcome.generated.append(target)
            if (out / MARKER).exists():
                outcome.injections.append(f"{label}: generation ran a payload")
                (out / MARKER).unlink()
    finally:
        os.chdir(here)
    return outcome


IMPORT_CHECK = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    try:
        package = importlib.import_module(name)
        importlib.import_module(name + ".client")
        for member in package.__all__:
            getattr(package, member)
    except BaseException as error:
        failed.append(f"{name}: {type(error).__name__}: {str(error)[:300]}")
print("\\n".join(failed))
"""


def import_all(packages: Sequence[Path], out: Path, outcome: Outcome) -> None:
    """Import every package (and each name in its `__all__`) in one fresh interpreter with `out` as
    its working directory and `PAYLOAD_MODULE` importable; an import failure is a crash, the marker
    file an injection."""
    if not packages:
        return
    (out / f"{PAYLOAD_MODULE}.py").write_text(PAYLOAD_MODULE_SOURCE)
    publish_runtime(out)
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_CHECK, *(f"{out.name}.{path.name}" for path in packages)],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": os.pathsep.join((str(out.parent), str(out)))},
    )
    if result.returncode != 0:
        outcome.crashes.append(f"import check failed: {result.stderr[-2000:]}")
    outcome.crashes.extend(line for line in result.stdout.splitlines() if line.strip())
    if (out / MARKER).exists():
        outcome.injections.append("importing the generated packages ran a payload")
        (out / MARKER).unlink()


def run_mypy(packages: Sequence[Path], out: Path) -> str:
    """`mypy --strict` over several packages of the output folder `out` (and its runtime) in one run;
    returns its report when it fails."""
    publish_runtime(out)
    names = [argument for path in packages for argument in ("-p", f"{out.name}.{path.name}")]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", *names],
        cwd=out.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    return "" if result.returncode == 0 else result.stdout[-5000:] + result.stderr[-2000:]
