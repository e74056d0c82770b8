"""Intermediate model -> a package's files: the client from its templates, formatted piecewise
(`piecewise_black`), the facades, and each tool's models module under its header.

The facades (`__init__.py`, `models.py`) are written in the exploded one-item-per-line form black
itself leaves alone, and a test holds every generated file to being a black fixed point.
"""

from __future__ import annotations

from codegen.generate.cache import Cache
from codegen.generate.escaping import literal, quoted
from codegen.generate.headers import header_lines, with_header
from codegen.generate.modelgen import HEADER_PLACEHOLDER
from codegen.generate.piecewise_black import PieceKind, formatted, head_pieces
from codegen.generate.spec import ModelModule, PackageSpec, PromptSpec, ResourceSpec, TemplateSpec
from codegen.generate.templating import jinja_environment, method_macros, tool_members

__all__ = ["CONTRACT_DOC", "CONTRACT_NAME", "model_module_file", "render_package"]


CONTRACT_NAME = "_CONTRACT"
"""The name each tool's models module gives its contract; the client's methods pass it to the runtime."""
CONTRACT_DOC = "The tool's schemas from the snapshot: what the runtime checks arguments and results against."


def _by_method(entry: ResourceSpec | TemplateSpec | PromptSpec) -> str:
    return entry.method


def model_module_file(module: ModelModule) -> bytes:
    """A tool's models module: datamodel-code-generator's output under the tool's own header."""
    first, _, body = module.source.partition("\n")
    assert first == HEADER_PLACEHOLDER, "datamodel-code-generator did not start with the header placeholder"
    title = f"tool {quoted(module.tool)} (fingerprint {module.tool_fingerprint})"
    contract = f'\n\n{CONTRACT_NAME} = {literal(module.contract)}\n"""{CONTRACT_DOC}"""\n'
    return with_header(header_lines(title), body.rstrip("\n") + "\n" + contract)


def render_package(package: PackageSpec, cache: Cache | None = None) -> dict[str, bytes]:
    """Every file of the package, by path relative to the package folder (the runtime it imports is the
    output folder's, `runtime_folder`)."""
    cache = cache or Cache.disabled()
    templates = jinja_environment()
    helpers = method_macros()

    def members(sync: bool) -> list[tuple[PieceKind, str]]:
        return [
            ("member", str(member))
            for member in [
                *(
                    member
                    for tool in sorted(package.tools, key=lambda tool: tool.method)
                    for member in tool_members(tool, sync)
                ),
                *(helpers.resource_method(entry, sync) for entry in sorted(package.resources, key=_by_method)),
                *(helpers.template_method(entry, sync) for entry in sorted(package.templates, key=_by_method)),
                *(helpers.prompt_method(entry, sync) for entry in sorted(package.prompts, key=_by_method)),
                *(helpers.alias_method(alias, sync) for alias in package.aliases),
            ]
        ]

    head = head_pieces(templates.get_template("client.py.jinja").render(package=package))
    async_members = members(False)
    sync_twin: list[tuple[PieceKind, str]] = (
        [("module", str(helpers.sync_class(package))), *members(True)] if package.sync_client else []
    )
    pieces = formatted([*head, *async_members, *sync_twin], cache)
    head_text = pieces[: len(head)]
    async_methods = pieces[len(head) : len(head) + len(async_members)]
    sync_twin_text = pieces[len(head) + len(async_members) :]
    if len(head) > 1:  # the blank lines before the model imports and after the `if TYPE_CHECKING:` block
        head_text[0] += "\n"
        head_text[-1] = "\n" + head_text[-1]
    client = "".join(
        [
            *head_text,
            *("\n" + method for method in async_methods),
            *("\n\n" + text if index == 0 else "\n" + text for index, text in enumerate(sync_twin_text)),
        ]
    )

    def package_file(template: str) -> bytes:
        return with_header(package.header, templates.get_template(template).render(package=package))

    output = {
        "__init__.py": package_file("__init__.py.jinja"),
        "client.py": with_header(package.header, client),
        "models.py": package_file("models.py.jinja"),
        "_models/__init__.py": package_file("models_package.py.jinja"),
        "py.typed": b"",
    }
    for module in package.model_modules:
        output[f"_models/{module.module}.py"] = model_module_file(module)
    return dict(sorted(output.items()))
