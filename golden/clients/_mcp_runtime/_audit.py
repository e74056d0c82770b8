"""An audit of catalog text: what a server wrote for the model to read, checked for the marks of a
prompt injection before anyone trusts it.

Four kinds of finding, each a pattern honest catalogs do not need: instructions aimed at the model
("ignore previous instructions", "always call this first", "do not tell the user"), requests for the
caller's credentials, invisible characters (Unicode tags U+E0000-E007F, bidi controls, zero-width
characters), and markup that imitates a system prompt (`<system>`, `<|im_start|>`, `[INST]`,
`### System:`). `mcp-stubgen drift` and `snapshot` report findings at generate time; a generated hub
calls the same functions at run time before it offers a tool added live. Every pattern has bounded
gaps, so a check takes time linear in the text whatever a server sends.

This file imports only the standard library.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["TextFinding", "audit_text", "audit_tool"]


@dataclass(frozen=True)
class TextFinding:
    """One suspicious passage: its kind and a short, printable excerpt."""

    kind: str
    """"model-instruction", "credential-request", "invisible-character" or "system-markup"."""
    excerpt: str
    """A short excerpt; invisible and non-printable characters are shown as \\uXXXX escapes."""
    why: str
    """The words that matched, quoted, and why such words matter, so a reviewer can judge whether
    this text means them: honest servers write some of them too ("Always call this first")."""


MODEL_INSTRUCTION: Final = "model-instruction"
CREDENTIAL_REQUEST: Final = "credential-request"
INVISIBLE_CHARACTER: Final = "invisible-character"
SYSTEM_MARKUP: Final = "system-markup"

_GAP = r"[^.\n]{0,40}?"
"""Up to 40 characters within one sentence: enough for "the user's", bounded so matching stays linear."""

_MODEL_INSTRUCTIONS: Final = (
    (
        "override",
        (
            r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?"
            r"(?:previous|prior|above|earlier|preceding|former|other|system)\s+"
            r"(?:instructions?|prompts?|messages?|rules?|directions?|directives?|guidelines?|context|guidance)"
            r"|\bignore\s+previous\b"
        ),
        "tells the model to set aside the instructions it was given",
    ),
    (
        "goes_first",
        (
            r"\balways\s+(?:call|use|run|invoke|execute)\s+this\b" + _GAP + r"\bfirst\b"
            r"|\bbefore\s+(?:calling\s+|using\s+|running\s+|invoking\s+)?(?:any|all|every)\s+other\s+tools?\b"
        ),
        (
            "orders the model to call this tool before any other, as a poisoned tool does to run first; an "
            "honest setup tool may ask it too, so judge whether it should always run first"
        ),
    ),
    (
        "conceals",
        (
            r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|mention|reveal|show|disclose)\b"
            + _GAP
            + r"\b(?:(?:the|your|any)\s+users?|users)\b"  # hiding from the one asking (or from users at all);
            # "never tell a user a message was scheduled" is a rule of honesty
            r"|\bwithout\s+(?:telling|informing|notifying|asking)\s+the\s+user\b"
            r"|\b(?:keep|hide)\s+this\s+(?:secret\s+|hidden\s+)?from\s+the\s+user\b"
        ),
        "tells the model to keep something from the user",
    ),
    ("persona", r"\byou\s+are\s+now\s+(?:a|an|in)\b", "tells the model to take another role"),
    ("new_orders", r"\bnew\s+instructions\s*:", "gives the model new instructions"),
)
"""Each kind of order aimed at the model: its group name, its pattern and why it matters."""
_MODEL_INSTRUCTION = re.compile(
    "|".join(f"(?P<{name}>{pattern})" for name, pattern, _ in _MODEL_INSTRUCTIONS), re.IGNORECASE
)
_SECRET = (
    r"(?:passwords?|passphrases?|passcodes?|api[\s_-]?keys?|secret(?:\s+keys?)?|private[\s_-]?keys?|ssh[\s_-]?keys?"
    r"|(?:access|auth|authentication|bearer|session|refresh|oauth|github|personal\s+access)[\s_-]?tokens?"
    r"|credentials|seed\s+phrase|recovery\s+phrase|mnemonic|session\s+cookies?"
    r"|~?/?\.ssh/?|id_(?:rsa|ed25519|ecdsa)|\.aws/credentials|\.netrc)"
)
_CREDENTIAL_REQUEST = re.compile(
    r"\b(?P<verb>pass|provide|include|send|enter|supply|give|share|put|paste|attach|append|add|read|copy|forward)\b"
    + r"(?!:)"  # `read:org` names a token's scope
    + _GAP
    + r"(?<!\w)(?<!\{)(?<!\{ )"  # "{ service: { credentials } }" sketches an argument's shape
    + r"(?<!--)"  # "agentcore add credential --name <n> --api-key <key>" shows a command's option
    + f"(?P<secret>{_SECRET})"
    + r"(?!\w)(?![\s_-]*protect)"  # "add password protection" names a feature, not a secret to send
    + r"|\b(?:your|the\s+user'?s)\s+"
    + _SECRET
    + r"\b"
    + _GAP
    + r"\b(?:here|in\s+this\s+(?:field|parameter|argument)|as\s+(?:the\s+)?(?:argument|parameter|value))\b",
    re.IGNORECASE,
)
_OPTION_LEAD = re.compile(
    r"\bwhether\s+(?:to|[\w-]+(?:\s+[\w-]+)?\s+(?:should|will|would|must|may|can))\s+$",
    re.IGNORECASE,
)
"""What an option's description says before its verb ("Whether Grafana should forward credentials
such as cookies": mcp-grafana's `withCredentials`, a boolean): what someone else does with a secret,
not a request to send one. Checked on at most `_OPTION_LEAD_REACH` characters before the verb."""
_OPTION_LEAD_REACH: Final = 60
_TO_THE_SERVERS_SETTING = re.compile(
    r"\s+(?:via|through|in|with|using)\s+(?:the\s+|an?\s+)?"
    r"(?:`?[A-Z][A-Z0-9]*_[A-Z0-9_]+`?(?![\w`])(?!\s+(?:argument|parameter|param|field|input)s?\b)"
    r"(?!,?\s+(?:in|of|to|with)\s+(?:the\s+|this\s+|each\s+|every\s+|your\s+)?(?:call|request|tool|argument|parameter)s?\b)"
    r"|env(?:ironment)?\s+var(?:iable)?s?\b)"
)
"""What follows a secret given to the server's own settings ("users with a SynBioHub account can
supply the auth token via SYNBIOHUB_API_TOKEN": ToolUniverse's SynBioHub tools): an environment
variable, named in capitals with an underscore or called one, and not then called an argument of
the call ("via AUTH_TOKEN parameter", "in API_KEY in every request" are still requests)."""

_CONTENT_LEAD = re.compile(
    r"(?<!\byou\s)\b(?:can|may|might|could|will|would)\s+(?:also\s+|even\s+|often\s+)?$",
    re.IGNORECASE,
)
"""What comes before "include" when it tells what something holds rather than asks for it ("The full
meeting object is large and can include the invite HTML and the meeting passcode": ms-365-mcp-server's
`get-online-meeting`), as "includes" does; "you can include your API key" is still a request."""
_CONTENT_LEAD_REACH: Final = 30

_REFUSAL_LEAD = re.compile(
    r"\b(?:never|do\s+not|don'?t|must\s+not|mustn'?t|should\s+not|shouldn'?t|not\s+to)\s+$",
    re.IGNORECASE,
)
"""What comes just before the verb when the text forbids sending a secret ("Never pass credentials.":
officeagent-mcp 1.2.0's `register_document` and instructions), the opposite of a request; one that
names whose secret ("do not pass your password anywhere but here") is still read as a request."""
_REFUSAL_LEAD_REACH: Final = 20

_OWNED = re.compile(r"\b(?:your|users?'?s?)\b", re.IGNORECASE)
"""Whose secret a request names: the caller's ("your", "the user's") is asked for even in a switch."""

_TO_A_SECRET = re.compile(
    r"\b(?:to|into)[\s-]+(?:an?|the|this|that)[\s-]+(?:\w+[\s-]+)?$", re.IGNORECASE
)
"""What comes just before a secret that is where something goes, not what is sent: "Add selected
repository to an organization secret" (GitHub's REST API, whose tools manage secrets as objects)."""

_SYSTEM_MARKUPS: Final = (
    (
        "chat_token",
        r"<\|[a-z_]{2,40}\|>",
        "is a chat template's special token, which can end this text and open a turn of its own",
    ),
    (
        "prompt_tag",
        r"</?\s*(?:system|system[_-]prompt|instructions?|important|admin|assistant)\s*>",
        (
            "is a tag that opens or closes a section of a prompt, which can make what follows read as the "
            "host's own prompt"
        ),
    ),
    (
        "llama_markup",
        r"(?-i:\[/?INST\])|<</?SYS>>",
        "is Llama's prompt markup, which can open a turn of its own",
    ),
    (
        "role_heading",
        r"(?:^|\n)[ \t]*#{1,6}[ \t]*(?:system|instructions?|assistant)[ \t]*(?:prompt[ \t]*)?:",
        (
            "is a heading spelt like a chat template's role header, ### System: or Alpaca's ### Instruction:, "
            "which can make what follows read as a new prompt section; in a text laid out in Markdown "
            "sections it may be only a heading"
        ),
    ),
)
"""Each kind of markup that imitates a prompt's own structure: its group name, pattern and why it matters."""
_SYSTEM_MARKUP = re.compile(
    "|".join(f"(?P<{name}>{pattern})" for name, pattern, _ in _SYSTEM_MARKUPS), re.IGNORECASE
)
"""Llama's `[INST]` is matched in its own capitals only: Lean's instance binders are `[inst]`
("instance [inst] binders", lean-lsp-mcp's `lean_minimal_hypotheses`), and a chat template does
not read a lower-case tag as its own."""

_OPENING_SECTION = re.compile(r"\s*(<\s*instructions?\s*>)", re.IGNORECASE)
_CLOSING_SECTION = re.compile(r"</\s*instructions?\s*>", re.IGNORECASE)
"""An `<instructions>` tag that opens a text, and the tag that closes it, are the text's own section
(dbt-mcp's `<instructions>Queries the dbt Semantic Layer ...</instructions><examples>...`, prompt
structure as model vendors teach it); one that follows the text's own words is still markup."""

_ZERO_WIDTH_JOINER: Final = "\u200d"
_BLACK_FLAG: Final = "\U0001f3f4"
_CANCEL_TAG: Final = "\U000e007f"
_FLAG_TAG = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7}\U000e007f")
"""A subdivision flag (England is U+1F3F4 then "gbeng" in tag letters then CANCEL TAG): the one honest
use of tag characters, kept out of the findings."""


def _is_invisible(char: str) -> bool:
    """Characters that render as nothing or reorder what is shown: Unicode tags, bidi controls,
    zero-width characters and the other format characters (category Cf), and the variation selectors
    that can carry hidden bytes after an emoji."""
    code = ord(char)
    if 0xE0000 <= code <= 0xE007F or 0xE0100 <= code <= 0xE01EF:
        return True
    if code in (
        0x115F,
        0x1160,
        0x3164,
        0xFFA0,
        0x180E,
    ):  # Hangul fillers, Mongolian vowel separator
        return True
    return unicodedata.category(char) == "Cf"


def _is_pictograph(char: str) -> bool:
    return unicodedata.category(char) == "So" or char == "\ufe0f"


def _invisible_positions(text: str) -> list[int]:
    """Indexes of invisible characters, leaving out the honest ones: a zero-width joiner between two
    emoji (a family, a profession) and the tags of a subdivision flag."""
    if text.isascii():  # no ASCII character is invisible: most text, checked at C speed
        return []
    flag_spans = [match.span() for match in _FLAG_TAG.finditer(text)] if _BLACK_FLAG in text else []
    positions = []
    for index, char in enumerate(text):
        if not _is_invisible(char):
            continue
        if (
            char == _ZERO_WIDTH_JOINER
            and 0 < index < len(text) - 1
            and _is_pictograph(text[index - 1])
            and _is_pictograph(text[index + 1])
        ):
            continue
        if any(start < index < end for start, end in flag_spans):
            continue
        positions.append(index)
    return positions


def _shown(text: str) -> str:
    """`text` on one printable line: every invisible or non-printable character as its escape."""
    return "".join(
        char if char.isprintable() and not _is_invisible(char) else _escape(char) for char in text
    )


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def _excerpt(text: str, start: int, end: int, margin: int = 20, longest: int = 100) -> str:
    """The passage `text[start:end]` with a little context, shown in at most `longest` characters."""
    before = max(0, start - margin)
    after = min(len(text), end + margin)
    shown = _shown(text[before:after])
    cut = len(shown) > longest
    return ("…" if before else "") + shown[:longest] + ("…" if cut or after < len(text) else "")


def _runs(text: str, positions: list[int]) -> Iterator[tuple[int, int]]:
    """Positions with nothing but whitespace between them as (start, end) spans: a hidden message is
    one finding, not one per character, also when spaces stand between its characters
    (mcp-server-everything-wrong's `joke_teller` hides 35 spaced U+200E, which were 35 findings)."""
    start = previous = -1
    for index in positions:
        gap = text[previous + 1 : index]
        if start < 0 or (gap and not gap.isspace()):
            if start >= 0:
                yield start, previous + 1
            start = index
        previous = index
    if start >= 0:
        yield start, previous + 1


def _describes_an_option(text: str, start: int) -> bool:
    """Whether the words just before `start` are an option's "Whether X should" or "Whether to"."""
    return _OPTION_LEAD.search(text, max(0, start - _OPTION_LEAD_REACH), start) is not None


def _names_a_setting(text: str, end: int) -> bool:
    """Whether the words just after `end` give the secret to an environment variable."""
    return _TO_THE_SERVERS_SETTING.match(text, end) is not None


def _tells_what_it_holds(text: str, match: re.Match[str]) -> bool:
    """Whether the request matched is "can include", "may include" and the like: what a value holds."""
    start = match.start("verb")
    return (
        match.group("verb").lower() == "include"
        and _CONTENT_LEAD.search(text, max(0, start - _CONTENT_LEAD_REACH), start) is not None
    )


def _is_a_destination(text: str, match: re.Match[str]) -> bool:
    """Whether the secret a request matched is what the verb's object goes to ("add X to a secret")."""
    secret = match.start("secret")
    return secret >= 0 and _TO_A_SECRET.search(text, match.start(), secret) is not None


def _forbids(text: str, match: re.Match[str]) -> bool:
    """Whether a request's verb is forbidden ("never pass", "do not include"), not asked for."""
    verb = match.start("verb")
    return (
        verb >= 0
        and _REFUSAL_LEAD.search(text, max(0, verb - _REFUSAL_LEAD_REACH), verb) is not None
    )


def _own_section_tags(text: str) -> tuple[int, ...]:
    """Where the `<instructions>` tag that opens `text` starts, and the tag that closes it, if any."""
    opening = _OPENING_SECTION.match(text)
    if opening is None:
        return ()
    closing = _CLOSING_SECTION.search(text, opening.end())
    return (opening.start(1),) if closing is None else (opening.start(1), closing.start())


_WHY: Final = {name: why for name, _, why in (*_MODEL_INSTRUCTIONS, *_SYSTEM_MARKUPS)}
_CREDENTIAL_WHY: Final = (
    "asks for a secret to be sent in a call, where the server receives it: expected only of a tool whose "
    "job is to store or set that secret, never of one that needs it to sign in, which the server's own "
    "settings are for"
)
_INVISIBLE_WHY: Final = (
    "renders as nothing or reorders the text, so what a person reviews is not what the model reads"
)


def audit_text(text: str, *, switch: bool = False) -> list[TextFinding]:
    """Every finding in one piece of catalog text, in the order they occur within each kind.

    `switch` says the text describes a boolean option, whose value cannot carry a secret: a secret it
    names without saying whose ("Pass credentials to all domains", kubectl-mcp-server's
    `helm_repo_add`, helm's `--pass-credentials`) is what turning it on does, not a request; "your"
    or "the user's" secret is still one.

    Words are matched after NFKC normalisation and with invisible characters removed, so neither
    full-width letters nor a zero-width space inside "ig\u200bnore" hides an instruction (the
    invisible character is a finding of its own)."""
    findings = []
    for start, end in _runs(text, _invisible_positions(text)):
        findings.append(
            TextFinding(INVISIBLE_CHARACTER, _excerpt(text, start, end), _INVISIBLE_WHY)
        )
    visible = (
        text
        if text.isascii()
        else unicodedata.normalize("NFKC", "".join(c for c in text if not _is_invisible(c)))
    )
    own_sections = _own_section_tags(visible)
    for kind, pattern in (
        (MODEL_INSTRUCTION, _MODEL_INSTRUCTION),
        (CREDENTIAL_REQUEST, _CREDENTIAL_REQUEST),
        (SYSTEM_MARKUP, _SYSTEM_MARKUP),
    ):
        for match in pattern.finditer(visible):
            if kind == CREDENTIAL_REQUEST and (
                _describes_an_option(visible, match.start())
                or _names_a_setting(visible, match.end())
                or _is_a_destination(visible, match)
                or _tells_what_it_holds(visible, match)
                or ((switch or _forbids(visible, match)) and _OWNED.search(match.group()) is None)
            ):
                continue
            if kind == SYSTEM_MARKUP and match.start() in own_sections:
                continue
            said = _shown(match.group().strip())
            why = _WHY[match.lastgroup or ""] if kind != CREDENTIAL_REQUEST else _CREDENTIAL_WHY
            findings.append(
                TextFinding(
                    kind,
                    _excerpt(visible, match.start(), match.end()),
                    f'"{said[:80]}{"…" if len(said) > 80 else ""}" {why}',
                )
            )
    return findings


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


_SCHEMA_TEXT_KEYS: Final = ("title", "description")


def _schema_texts(schema: Any, where: str) -> Iterator[tuple[str, str, bool]]:
    """Every `title`, `description` and string `enum` member in a JSON Schema, with its location and
    whether it describes a boolean switch. Walked with an explicit stack: a server's schema may be
    nested deeper than Python's recursion limit."""
    stack: list[tuple[Any, str]] = [(schema, where)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                if not isinstance(key, str):
                    continue
                child = f"{path}/{_pointer_token(key)}"
                if key in _SCHEMA_TEXT_KEYS and isinstance(value, str):
                    yield child, value, key == "description" and node.get("type") == "boolean"
                elif key == "enum" and isinstance(value, list):
                    for index, member in enumerate(value):
                        if isinstance(member, str):
                            yield f"{child}/{index}", member, False
                elif isinstance(value, Mapping | list):
                    stack.append((value, child))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, Mapping | list):
                    stack.append((item, f"{path}/{index}"))


def _tool_texts(tool: Mapping[str, Any]) -> Iterator[tuple[str, str, bool]]:
    for key in ("name", "title", "description"):
        value = tool.get(key)
        if isinstance(value, str):
            yield key, value, False
    annotations = tool.get("annotations")
    if isinstance(annotations, Mapping) and isinstance(annotations.get("title"), str):
        yield "annotations/title", annotations["title"], False
    for key in ("inputSchema", "outputSchema"):
        schema = tool.get(key)
        if isinstance(schema, Mapping):
            found = sorted(_schema_texts(schema, key))
            yield from found


def audit_tool(tool: Mapping[str, Any]) -> list[tuple[str, TextFinding]]:
    """Findings in every text of one tool definition (`tools/list` shape), each with where it was:
    "name", "title", "description", "annotations/title", or a JSON-pointer-like path into a schema
    such as "inputSchema/properties/note/description"."""
    return [
        (where, finding)
        for where, text, switch in _tool_texts(tool)
        for finding in audit_text(text, switch=switch)
    ]
