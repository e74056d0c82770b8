"""The snapshot file's shape as pydantic models: what `parse_snapshot` validates a file against, and
what `snapshot.schema.json` is generated from.

Kept apart from `format` so that a command can start its servers before pydantic is imported
(about 0.1 s): the models load only once a snapshot is read.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from codegen.snapshot.format import JSON


class _WireEntry(BaseModel):
    """An entry as the server sent it; unknown keys are kept, only the keys we index by are checked."""

    model_config = ConfigDict(extra="allow")


class ToolEntry(_WireEntry):
    name: str
    inputSchema: JSON


class ResourceEntry(_WireEntry):
    uri: str
    name: str


class ResourceTemplateEntry(_WireEntry):
    uriTemplate: str
    name: str


class PromptEntry(_WireEntry):
    name: str
    arguments: list[JSON] | None = None


class PythonNames(BaseModel):
    """The names a generated package gave, kept so they stay with their entities (`identifiers.plan_names`)."""

    model_config = ConfigDict(extra="forbid")

    tools: dict[str, str] = {}
    resources: dict[str, str] = {}
    resourceTemplates: dict[str, str] = {}
    prompts: dict[str, str] = {}
    taskStarters: dict[str, str] = {}


class ArgumentNames(BaseModel):
    """The keywords a generated package gave to arguments, kept so they stay with their arguments
    (`identifiers.plan_arguments`)."""

    model_config = ConfigDict(extra="forbid")

    tools: dict[str, dict[str, str]] = {}
    prompts: dict[str, dict[str, str]] = {}


class SnapshotFile(BaseModel):
    """The on-disk shape; `snapshot.schema.json` is generated from this model."""

    model_config = ConfigDict(extra="forbid", title="mcp-stubgen snapshot")

    format: Literal[1, 2, 3, 4, 5, 6] = Field(
        description=(
            "Snapshot format version: 6 when `skippedLists` is present, else 5 when `argumentNames` or `namingRules` is present, else 4 when `pythonNames` is, else 3 "
            "when `clientCapabilities` or `parseTextJson` is, else 2 when `missingMethods` is, else 1."
        )
    )
    server: str = Field(description="The id this project gives the server (its key in the config).")
    protocolVersion: str
    serverInfo: JSON | None = None
    capabilities: JSON
    instructions: str | None = None
    tools: list[ToolEntry] = []
    resources: list[ResourceEntry] = []
    resourceTemplates: list[ResourceTemplateEntry] = []
    prompts: list[PromptEntry] = []
    missingMethods: list[str] = Field(
        default=[],
        description=(
            "List methods the server declared (through its capabilities) but answered with -32601 Method "
            "not found; their entries are recorded as empty. Absent when there are none."
        ),
    )
    skippedLists: list[Literal["prompts/list", "resources/list", "resources/templates/list", "tools/list"]] = Field(
        default=[],
        description=(
            "List methods the server declared but the snapshot did not call, as its `skip_lists` setting says "
            "(for a server whose listing of one kind fails); their entries are not recorded. Absent when none."
        ),
    )
    clientCapabilities: list[Literal["elicitation", "roots", "sampling"]] = Field(
        default=[],
        description=(
            "Client capabilities declared in the handshake (the server's `client_capabilities` in the "
            "config): some servers list tools only to clients that declare them. Absent when none."
        ),
    )
    parseTextJson: bool = Field(
        default=False,
        description=(
            "The server's `parse_text_json` setting: the generated client reads a result from its one JSON "
            "text block when a tool with an `outputSchema` sends no `structuredContent`. Absent when false."
        ),
    )
    pythonNames: PythonNames = Field(
        default=PythonNames(),
        description=(
            "The Python names the committed package gave its tools, resources, templates, prompts and task "
            "starters (by name, URI, URI template, name and tool name), carried over from the snapshot this "
            "one replaced so that each name keeps calling the same entity. Absent when the naming rules "
            "alone give the same names."
        ),
    )
    namingRules: Literal[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] = Field(
        default=1,
        description=(
            "The naming rules the package's names follow: 2 keeps a digit with the letters beside it in snake_case "
            "names (`get_s3_object`), where 1 splits it off (`get_s_3_object`); 3 keeps it in class names too "
            "(`Neo4jClient`), where 1 and 2 split it off (`Neo4JClient`); 4 names a union's members as its variants "
            "(`PickInputVariant`), where 1 to 3 name them by the union's name twice (`PickInputPickInput`); 5 keeps "
            "letters of scripts other than Latin (`统计字数`, `получить_погоду`), which 1 to 4 drop (`tool`), and names "
            "a tagged union's members by their tags (`DrawInputShapeCircle`), where 1 to 4 name them by place "
            "(`DrawInputShape`, `DrawInputShape1`); 6 types a constrained plain value inside a model (an array's item, a "
            "union's member) as that value (`list[Annotated[int, Field(ge=1)]]`), where 1 to 5 make it a class; 7 spells "
            "the Latin letters that have no ASCII form (`straße` -> `strasse`, `smørbrød` -> `smorbrod`), which 1 to 6 "
            "leave out (`strae`, `smrbrd`), and names resources or templates whose names read alike after their URIs "
            "(`read_flights_v2` for `ui://widget/flights-v2.html`), which 1 to 6 tell apart by sort order alone "
            "(`read_flights_2`); 8 makes a nested input object's property whose `const` is also its default a "
            "required field, which 1 to 7 keep optional; 9 types an array whose `const` is an array as that value's "
            "list (`list[int]`), where 1 to 8 add a one-member `Enum`; 10 types in code mode's stubs what 1 to 9 leave "
            "`Any` (an argument's tuple is a `tuple[...]`, a `const` no `Literal` holds its value's type); 11 types a "
            "set of more than 1,000 values (an `enum`, or an `anyOf` or `oneOf` of `const`s) as their JSON type "
            "(`str`), where 1 to 10 write a `Literal` of up to 10,000; 12 writes a model field's default that is one "
            "string or number too long for its line as `Field(default=...)`, which 1 to 11 write bare, and spells the "
            "hub's names as 7 spells methods (`lager__grosse` for `größe`), where 1 to 11 map such a letter to `_` "
            "(`lager__gro_e`); 13 keeps a tool's typed arguments when only its output schema cannot be typed (its "
            "method returns `ToolResult`), where 1 to 12 make the whole method untyped (`arguments: dict[str, Any]`); "
            "14 gives the client of a server that declares `completions` the methods `complete_prompt` and "
            "`complete_template`, which no other member is named from 14, and re-exports `HandshakeTimeoutError` "
            "(and `Completion`) from the package, names no model takes from 14, and has code mode's function of a "
            "tool whose client method returns `ToolResult` though it lists an output schema return the result's "
            "text, where 1 to 13 type it from that schema. "
            "4 to 14 are always present; 1 to 3 only when a "
            "name has a letter "
            "beside a digit, the one place they differ. Absent "
            "means 1 where a name has a letter beside a digit (written before this field existed), else 3. A "
            "snapshot keeps the rules of the one it replaces."
        ),
    )
    argumentNames: ArgumentNames = Field(
        default=ArgumentNames(),
        description=(
            "The keywords the committed package gave the arguments of its tools (input properties, by tool "
            "name) and prompts (by prompt name), carried over from the snapshot this one replaced so that each "
            "keyword keeps sending the same argument. Only entries whose keywords the naming rules alone would "
            "change are present; absent when there are none."
        ),
    )


def snapshot_json_schema() -> JSON:
    return SnapshotFile.model_json_schema()


def first_error(document: JSON) -> str | None:
    """Where and why `document` is not a snapshot file (`at /pointer: message`), or None when it is one."""
    try:
        SnapshotFile.model_validate(document)
    except ValidationError as error:
        first = error.errors()[0]
        return f"at /{'/'.join(str(part) for part in first['loc'])}: {first['msg']}"
    return None
