"""The shortlist on requests and catalogs it was not developed on (issue 25).

`tests/held_out_tasks.py` over a hub generated from real servers' snapshots, and the held-out split
of the public BFCL v4 benchmark (`benchmarks/bfcl_shortlist.py`), whose data the `bfcl-eval` package
ships: both must keep their floor, so a ranking change that only helps the suite's own tasks fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bfcl_shortlist import INSTALL, Question, load, load_dev, normalised, score
from benchmarks.fit_ranking import SHIPPED_PENALTY, as_table, examples, fit
from codegen.generate import generate_package
from codegen.generate.cache import Cache
from codegen.generate.hub import generate_hub
from codegen.runtime._hub_catalog import HubTool
from codegen.runtime._hub_search import _RERANK_WEIGHTS, SearchIndex
from codegen.snapshot import load_snapshot
from tests.conftest import REPO
from tests.held_out_tasks import FIFTH_TASKS, FOURTH_TASKS, LATER_TASKS, TASKS, THIRD_TASKS
from tests.test_hub_agent import forget, import_hub

CATALOGS = [
    REPO / "golden" / "everything" / "snapshot.json",
    REPO / "golden" / "time" / "snapshot.json",
    REPO / "golden" / "weather" / "snapshot.json",
    REPO / "golden" / "notes" / "snapshot.json",
    REPO / "tests" / "fixtures" / "history" / "filesystem-2025.11.25.json",
    REPO / "tests" / "fixtures" / "catalogs" / "fetch.json",
    REPO / "tests" / "fixtures" / "catalogs" / "playwright.json",
]
MORE_CATALOGS = [
    REPO / "tests" / "fixtures" / "catalogs" / "more" / f"{server}.json"
    for server in ("memory", "github", "sequential_thinking", "git", "sqlite", "chrome_devtools")
]
"""Six more real servers (`tests/held_out_tasks.py` names their packages): the third and later rounds' hub."""
FIFTH_CATALOGS = [
    REPO / "tests" / "fixtures" / "catalogs" / "more" / f"{server}.json"
    for server in ("slack", "google_maps", "puppeteer", "brave_search", "notion")
]
"""Five more (`FIFTH_TASKS` names their packages): the fifth round's hub of 18 servers."""


@pytest.fixture(scope="module")
def generated_pieces() -> Cache:
    """One in-memory cache for the module's packages and hubs, as `generate` passes its own to both: each
    hub reuses its servers' models and methods instead of generating them again (half the hubs' CPU)."""
    return Cache.disabled()


@pytest.fixture(scope="module")
def held_out_hub(generated_pieces: Cache, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The hub over the held-out catalogs, generated and imported as `heldouthub.hub`."""
    out = tmp_path_factory.mktemp("generated") / "heldouthub"
    snapshots = [load_snapshot(path) for path in CATALOGS]
    for snapshot in snapshots:
        generate_package(snapshot, out, cache=generated_pieces)
    generate_hub([(snapshot, {}) for snapshot in snapshots], out, cache=generated_pieces)
    yield import_hub(out, "heldouthub").Hub
    forget("heldouthub")


@pytest.fixture(scope="module")
def enlarged_hub(held_out_hub: Any, generated_pieces: Cache, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The hub over all 13 real catalogs, imported as `enlargedhub.hub`: the held-out hub's folder
    with the six more servers' packages generated into it, and the hub over all of them."""
    out = tmp_path_factory.mktemp("generated") / "enlargedhub"
    shutil.copytree(Path(sys.modules[held_out_hub.__module__].__file__ or "").parents[1], out)
    more = [load_snapshot(path) for path in MORE_CATALOGS]
    for snapshot in more:
        generate_package(snapshot, out, cache=generated_pieces)
    generate_hub([(snapshot, {}) for snapshot in [*map(load_snapshot, CATALOGS), *more]], out, cache=generated_pieces)
    yield import_hub(out, "enlargedhub").Hub
    forget("enlargedhub")


@pytest.fixture(scope="module")
def hub_of_eighteen(
    enlarged_hub: Any, generated_pieces: Cache, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """The hub over all 18 real catalogs, imported as `hubofeighteen.hub`: the enlarged hub's folder with
    the five more servers' packages generated into it, and the hub over all of them."""
    out = tmp_path_factory.mktemp("generated") / "hubofeighteen"
    shutil.copytree(Path(sys.modules[enlarged_hub.__module__].__file__ or "").parents[1], out)
    fifth = [load_snapshot(path) for path in FIFTH_CATALOGS]
    for snapshot in fifth:
        generate_package(snapshot, out, cache=generated_pieces)
    everything = [*map(load_snapshot, CATALOGS), *map(load_snapshot, MORE_CATALOGS), *fifth]
    generate_hub([(snapshot, {}) for snapshot in everything], out, cache=generated_pieces)
    yield import_hub(out, "hubofeighteen").Hub
    forget("hubofeighteen")


def _answered(hub: Any, tasks: list[tuple[str, tuple[str, ...]]]) -> tuple[int, list[Any]]:
    """How many tasks find one of their tools in the first five, and the misses."""
    misses = []
    for task, expected in tasks:
        assert set(expected) <= set(hub.tools), expected
        first_five = [tool.qualified_name for tool in hub.shortlist(task, 5)]
        if not set(expected) & set(first_five):
            misses.append((task, expected, first_five))
    return len(tasks) - len(misses), misses


def test_each_round_over_the_enlarged_hub_keeps_its_floor(enlarged_hub: Any) -> None:
    """Every round over the 151 tools of 13 real servers: floors at what the ranking reaches, so a
    regression fails. The third round was measured once before the ranking changed (39 of 54 in the
    first five) and then used to find what failed: in-sample since (42 after, 46 after branch
    `realtasks2`). The fourth was written after those changes and measured once on them: 17 of 22
    (main's ranking before them: 15); its misses were then used too, so it is in-sample since (18)."""
    assert (len(THIRD_TASKS), len(FOURTH_TASKS)) == (54, 22)
    floors = {
        "TASKS": (TASKS, 20),  # 18 of 26 before the third round's changes; 22 over the first seven servers
        "LATER_TASKS": (LATER_TASKS, 25),  # 23 of 33 before the third round's changes, 24 before the fourth's
        "THIRD_TASKS": (THIRD_TASKS, 46),
        "FOURTH_TASKS": (FOURTH_TASKS, 18),
    }
    for name, (tasks, floor) in floors.items():
        answered, misses = _answered(enlarged_hub, tasks)
        assert answered >= floor, f"{name}: {answered} of {len(tasks)} within five; missed:\n" + "\n".join(
            map(str, misses)
        )


def test_the_fifth_round_over_eighteen_servers_keeps_its_floor(hub_of_eighteen: Any) -> None:
    """The fifth round over 199 tools of 18 real servers, written after the fourth round's fixes and
    committed before the shortlist ran on it; measured once: 26 of 33 in the first five (main's
    ranking before those fixes, run afterwards: 26 too). A floor at it, so a regression fails."""
    assert len(FIFTH_TASKS) == 33 and len(hub_of_eighteen.tools) == 199
    answered, misses = _answered(hub_of_eighteen, FIFTH_TASKS)
    assert answered >= 26, f"FIFTH_TASKS: {answered} of 33 within five; missed:\n" + "\n".join(map(str, misses))


def test_requests_written_before_ranking_find_their_tool_in_the_first_five(held_out_hub: Any) -> None:
    _, misses = _answered(held_out_hub, TASKS)
    # 20 of 26 when first measured (the ranking before issue 25: 21); 22 since the second change
    # ('grab' joined get/fetch in the general-English table after the first look at the issue's own request)
    assert len(TASKS) == 26
    assert len(misses) <= 4, "missed within five:\n" + "\n".join(map(str, misses))


def test_requests_written_before_the_second_ranking_change_find_their_tool_in_the_first_five(
    held_out_hub: Any,
) -> None:
    _, misses = _answered(held_out_hub, LATER_TASKS)
    # measured once, when the ranking was done: 24 of 33 (the ranking before: 23)
    assert len(LATER_TASKS) == 33
    assert len(misses) <= 9, "missed within five:\n" + "\n".join(map(str, misses))


def test_what_a_server_says_about_itself_reaches_its_tools() -> None:
    """A tool whose own text never says "browser" is found for a request about the browser when its
    server's instructions say what it drives."""

    def tool(server: str, name: str, description: str) -> HubTool:
        return HubTool(f"{server}__{name}", server, server, name, description, {"type": "object"})

    tools = [tool("pages", "open", "Open the URL given."), tool("docs", "open", "Open a document by its path.")]
    about = {"pages": "Drives a real web browser: navigate, click, type."}
    assert [found.qualified_name for found in SearchIndex(tools, about).search("open this in the browser", 2)] == [
        "pages__open",
        "docs__open",
    ]
    assert [found.qualified_name for found in SearchIndex(tools).search("open this in the browser", 2)] == [
        "docs__open",
        "pages__open",
    ]


def _tool(name: str, description: str, properties: dict[str, Any] | None = None) -> HubTool:
    schema = {"type": "object", "properties": properties or {}}
    return HubTool(f"demo__{name}", "demo", "demo", name, description, schema)


def _ranked(tools: list[HubTool], query: str) -> list[str]:
    return [found.tool for found in SearchIndex(tools).search(query, len(tools))]


def test_a_word_the_catalog_lacks_finds_the_words_it_is_a_form_or_a_typo_of() -> None:
    tools = [
        _tool("forecast", "The weather forecast for a city."),
        _tool("weight", "Convert a weight between units."),
        _tool("health", "Check the health of a service."),
        _tool("search", "Search the catalog."),
    ]
    assert _ranked(tools, "will the wheather be nice")[0] == "forecast"  # one letter added
    assert _ranked(tools, "how much does my parcel weigh")[0] == "weight"  # begins the catalog's word
    assert _ranked(tools, "is the service healthy")[0] == "health"  # begins with the catalog's word
    # too short to tell a typo from another word: `tiger` does not find `timer`
    assert SearchIndex([_tool("timer", "Start a timer.")]).search("tiger", 5) == []
    # one word in the request that is two in the catalog, and two that are one
    profile = [_tool("first", "Set the colour."), _tool("second", "Set the user's name.")]
    assert _ranked(profile, "set my username")[0] == "second"
    calendar = [_tool("first", "Set the calendar's colour."), _tool("second", "Set the calendar's timezone.")]
    assert _ranked(calendar, "set the calendar's time zone")[0] == "second"


def test_an_opening_question_word_and_a_value_ask_for_the_parameter_they_name() -> None:
    tools = [
        _tool("treaty_text", "The text of a treaty.", {"treaty": {"type": "string"}}),
        _tool("treaty_date", "A treaty.", {"treaty": {"type": "string"}, "date": {"type": "string"}}),
        _tool("treaty_parties", "A treaty.", {"treaty": {"type": "string"}, "person": {"type": "string"}}),
        _tool("page_text", "The text of a page.", {"name": {"type": "string"}}),
        _tool("page_text_at", "The text of a page.", {"url": {"type": "string"}}),
    ]
    assert _ranked(tools, "When was the treaty signed?")[0] == "treaty_date"
    assert _ranked(tools, "Who signed the treaty?")[0] == "treaty_parties"
    assert _ranked(tools, "the treaty signed on March 3rd")[0] == "treaty_date"
    # a question word inside a sentence opens no question: "who" here asks for nobody
    assert _ranked(tools, "the treaty text for a reader who likes history")[0] == "treaty_text"
    assert _ranked(tools, "the text of https://example.org/about")[0] == "page_text_at"


def test_a_file_name_in_a_request_asks_for_a_file_path() -> None:
    """A file's name (`budget.xlsx`, `todo.txt`) is a value, as a URL or a date is: it asks for a tool
    that takes a file's path, though the request never says "file" (a third-round miss, issue 25)."""
    tools = [
        _tool("head", "The first lines of a file.", {"path": {"type": "string", "description": "Where the file is."}}),
        _tool("server_logs", "The server's recent log lines.", {"count": {"type": "integer"}}),
        _tool("stage", "Add changes to the next commit.", {"paths": {"type": "array", "description": "Files to add."}}),
    ]
    assert _ranked(tools, "what's in budget.xlsx")[0] == "head"
    assert _ranked(tools, "show me todo.txt")[0] == "head"


def test_a_word_the_catalog_says_only_in_other_words_finds_them_at_its_own_weight() -> None:
    """`folder` is in no tool, `directory` is: the general-English table's word stands for the
    request's in full, not at a synonym's half weight beside words every tool has (a miss once
    the hub held more servers whose tools create things, issue 25)."""
    tools = [
        _tool("create_directory", "Create a directory.", {"path": {"type": "string"}}),
        _tool("create_entities", "Create new entities, each with a name.", {"entities": {"type": "array"}}),
        _tool("add_note", "Add a new note.", {"text": {"type": "string"}}),
    ]
    assert _ranked(tools, "make a new folder called archive")[0] == "create_directory"
    assert _ranked(tools, "a new folder")[0] == "create_directory"


def test_a_long_text_a_server_gives_about_itself_says_each_word_less() -> None:
    """A server whose instructions run to pages mentions many things in passing; one that says in a
    line what it is should win a request about that thing (issue 25: the `everything` server's 197
    words of instructions raised its tools for requests about other servers)."""

    def tool(server: str, description: str) -> HubTool:
        return HubTool(f"{server}__open", server, server, "open", description, {"type": "object"})

    tools = [tool("web", "Open the given address."), tool("docs", "Open the given document.")]
    about = {
        "web": "Browses web pages.",
        "docs": "Reads documents. " + " ".join(f"topic{number}" for number in range(150)) + " It also lists pages.",
    }
    assert [found.qualified_name for found in SearchIndex(tools, about).search("open the page", 2)] == [
        "web__open",
        "docs__open",
    ]


def test_general_english_words_for_dropping_remembering_and_a_history() -> None:
    """Third-round misses (issue 25) whose words are general English for the catalog's: `drop` is
    `delete`, `remember` is `memory`, a `history` is a `log`."""
    graph = [
        _tool("delete_observations", "Delete observations from entities.", {"observations": {"type": "array"}}),
        _tool("add_observations", "Add observations to entities.", {"observations": {"type": "array"}}),
        _tool("drag_and_drop", "Drag an element and drop it onto another.", {"target": {"type": "string"}}),
    ]
    assert _ranked(graph, "Tom no longer likes coffee, drop that observation")[0] == "delete_observations"
    repository = [
        _tool("log", "Shows the commit logs.", {"max_count": {"type": "integer"}}),
        _tool("status", "Shows the working tree status."),
        _tool("show", "Shows the contents of a commit.", {"revision": {"type": "string"}}),
    ]
    assert _ranked(repository, "show the history of this repository")[0] == "log"
    memory = [_tool("search_nodes", "Search the memory for facts about a person.")]
    assert _ranked(memory, "what do you remember about Jane") == ["search_nodes"]


def test_a_servers_own_name_finds_its_tools_among_those_that_match(enlarged_hub: Any) -> None:
    """Third-round misses (issue 25): the `memory` server's tools say only "entities" and "knowledge
    graph", so they followed every tool that matched a word of the request in passing (a form's
    "remember me", a log's dates); its name is a word of each of its tools now. A server named by a
    word that stands for anything (`everything`) is not found by that word: a stopword."""

    def first_five(request: str) -> list[str]:
        return [tool.qualified_name for tool in enlarged_hub.shortlist(request, 5)]

    assert {"memory__search_nodes", "memory__open_nodes"} & set(first_five("what do you remember about my sister Jane"))
    assert "memory__read_graph" in first_five("show me everything you've stored in your memory")
    assert "filesystem__directory_tree" in first_five("give me a nested view of everything under src")


def test_general_english_words_for_forgetting_linking_phones_and_size() -> None:
    """Third- and fourth-round misses (issue 25) whose words are general English for the catalog's:
    to `forget` is to delete, to `link` is to relate, a `phone` is `mobile`, `how big` asks for a size."""
    graph = [
        _tool("delete_entities", "Delete entities and their relations.", {"entityNames": {"type": "array"}}),
        _tool("create_relations", "Create relations between entities.", {"relations": {"type": "array"}}),
        _tool("open_nodes", "Open nodes by their names.", {"names": {"type": "array"}}),
        _tool("resource_links", "Return links to resources.", {"count": {"type": "integer"}}),
    ]
    assert _ranked(graph, "forget all you know about Bob")[0] == "delete_entities"
    assert "create_relations" in _ranked(graph, "link Paris to France as its capital")[:2]  # beside the links
    page = [
        _tool("emulate", "Emulate features of the page.", {"viewport": {"type": "string", "description": "mobile"}}),
        _tool("reload", "Reload the page.", {"url": {"type": "string"}}),
    ]
    assert _ranked(page, "make the page look like it's on an iPhone")[0] == "emulate"
    files = [
        _tool("file_info", "Metadata of a file: its size and times.", {"path": {"type": "string"}}),
        _tool("screencast", "Record a video of the screen.", {"path": {"type": "string"}}),
    ]
    assert "file_info" in _ranked(files, "how large is the video in my downloads")
    assert "file_info" in _ranked(files, "how big is the video in my downloads")


def test_words_of_every_script_are_searched() -> None:
    tools = [
        _tool("cafe", "Find a café nearby."),
        _tool("weather", "查询城市的天气预报"),
        _tool("news", "오늘의 뉴스 검색"),
        _tool("translate", "Переводит текст"),
    ]
    assert _ranked(tools, "cafe near me")[0] == "cafe"
    assert _ranked(tools, "北京明天的天气")[0] == "weather"
    assert _ranked(tools, "뉴스 보여줘")[0] == "news"
    assert _ranked(tools, "текст")[0] == "translate"


def test_words_a_conversation_wraps_a_request_in_find_nothing() -> None:
    tools = [
        _tool("contact_support", "Open a help desk ticket with the support team.", {"topic": {"type": "string"}}),
        _tool("current_weather", "The current weather in a city.", {"city": {"type": "string"}}),
        _tool("quiz", "Tell a trivia question you may know the answer to."),
    ]
    # `help`, `know` and `tell` ask the assistant; only `weather` says what for
    assert (
        _ranked(tools, "Can you help me? I want to know the weather in Oslo, tell me please.")[0] == "current_weather"
    )
    assert (
        _ranked(tools, "I'm curious, could you help: lastly, what's the weather like in Lima?")[0] == "current_weather"
    )


def test_a_request_that_names_a_tool_finds_it_first() -> None:
    tools = [
        _tool("get_current_time", "The time now in a timezone.", {"timezone": {"type": "string"}}),
        _tool("time_zone_current_time", "The current time in a time zone.", {"time_zone": {"type": "string"}}),
        _tool("getWeather", "The weather in a city."),
        _tool("weather_now", "The current weather now in a city."),
    ]
    assert _ranked(tools, "use get_current_time for the current time in the Asia/Tokyo time zone")[0] == (
        "get_current_time"
    )
    assert _ranked(tools, "Call getWeather: what is the current weather now in Oslo?")[0] == "getWeather"
    assert _ranked(tools, "demo__getWeather for the current weather now in Oslo")[0] == "getWeather"
    # a name of one word is only a word
    assert _ranked([*tools, _tool("now", "Anything.")], "the current weather now")[0] == "weather_now"


def test_the_issues_own_requests_find_their_tool_in_the_first_five(held_out_hub: Any) -> None:
    for task, expected in TASKS[:3]:
        first_five = [tool.qualified_name for tool in held_out_hub.shortlist(task, 5)]
        assert set(expected) & set(first_five), (task, first_five)


BFCL = tuple[list[HubTool], dict[str, list[Question]], SearchIndex]
"""A BFCL catalog's tools, its questions by split or group, and the index over its tools."""


def _bfcl(tools_and_questions: Callable[[], tuple[list[HubTool], dict[str, list[Question]]]]) -> BFCL:
    if importlib.util.find_spec("bfcl_eval") is None:
        if os.environ.get("CI"):
            pytest.fail(f"bfcl-eval is missing: {INSTALL}")
        pytest.skip(f"bfcl-eval is not installed: {INSTALL}")
    tools, questions = tools_and_questions()
    return tools, questions, SearchIndex(tools)


@pytest.fixture(scope="module")
def bfcl() -> BFCL:
    """The reported catalog (`load`), read and indexed once for the tests that score or read it."""
    return _bfcl(load)


@pytest.fixture(scope="module")
def bfcl_dev() -> BFCL:
    """The development catalog (`load_dev`), read and indexed once for the tests that score or fit on it."""
    return _bfcl(load_dev)


def test_bfcl_splits_keep_their_floors(bfcl: BFCL) -> None:
    """BFCL v4: all 894 functions of both splits in one catalog, each question's function among the
    first one, five and ten. `live_multiple` was never used to develop the ranking (held out);
    `multiple` was (in-sample). Floors at what the ranking holds, so a regression fails."""
    _, questions, index = bfcl
    held_out = score(index, questions["live_multiple"])
    assert held_out.questions == 1053
    assert held_out.hits[1] >= 0.705, held_out.hits  # 0.710 (0.694 before the learned model)
    assert held_out.hits[5] >= 0.88, held_out.hits  # 0.882
    assert held_out.hits[10] >= 0.92, held_out.hits  # 0.925
    in_sample = score(index, questions["multiple"])
    assert in_sample.questions == 200
    assert in_sample.hits[1] >= 0.82, in_sample.hits  # 0.825
    assert in_sample.hits[5] >= 0.96, in_sample.hits  # 0.965


def test_bfcl_development_split_keeps_its_floor_and_asks_nothing_held_out(bfcl: BFCL, bfcl_dev: BFCL) -> None:
    """The development split (`--split dev`): BFCL's other single-turn sets over a catalog of their
    own functions, none of its questions a `live_multiple` question. In-sample: floors so a regression fails."""
    tools, questions, index = bfcl_dev
    asked = {normalised(question.text) for group in questions.values() for question in group}
    held_out = {normalised(question.text) for question in bfcl[1]["live_multiple"]}
    assert asked and not asked & held_out
    assert {tool.qualified_name for tool in tools} >= {
        question.answer for group in questions.values() for question in group
    }
    live = score(index, questions["dev_live"])
    assert live.questions == 314
    assert live.hits[1] >= 0.52, live.hits  # 0.522 (0.510 before the learned model; 0.522 under cross-validation)
    assert live.hits[5] >= 0.825, live.hits  # 0.831
    written = score(index, questions["dev_synthetic"])
    assert written.questions == 1246
    assert written.hits[1] >= 0.615, (
        written.hits
    )  # 0.620 (0.611 before the learned model; 0.619 under cross-validation)
    assert written.hits[5] >= 0.89, written.hits  # 0.896


def test_the_learned_model_puts_first_the_tool_a_requests_rare_words_and_values_fit(bfcl_dev: BFCL) -> None:
    """Misses of the lexical ranking on the development split's user-contributed questions (fixed on
    main's ranking: a car rental, a Java timeout, a Java test method, another fetch tool came first):
    the tool whose rare words, name and parameters the request fits was second to fifth. The learned
    model reorders the lexical ranking's first five, so it comes first; which five does not change."""
    _, questions, index = bfcl_dev
    requests = {
        "Make the volume 20": "bfcl__set_volume",
        "set a timer for 10 seconds using the timeout command. You should use timeout 10.": (
            "bfcl__cmd_controller_execute"
        ),
        'is vs code running, using the command tasklist /FI "IMAGENAME eq Code.exe"': "bfcl__cmd_controller_execute",
        "retrieve data from 'https://api.example.com/v1/data' with a limit of 50 items?": "bfcl__requests_get",
    }
    for request, expected in requests.items():
        assert [tool.qualified_name for tool in index.search(request, 1)] == [expected], request
    for question in questions["dev_live"][:100]:
        lexical = [index.tools[position].qualified_name for position in index.lexical(index.scored(question.text), 10)]
        found = [tool.qualified_name for tool in index.search(question.text, 10)]
        assert set(found[:5]) == set(lexical[:5]) and found[5:] == lexical[5:], question.text


def test_the_shipped_weights_are_what_the_fitting_script_fits(bfcl_dev: BFCL) -> None:
    """`_RERANK_WEIGHTS` are `benchmarks/fit_ranking.py`'s fit on the development split, to the digit."""
    tools, questions, _ = bfcl_dev
    assert as_table(fit(examples((tools, questions)), SHIPPED_PENALTY)) == _RERANK_WEIGHTS


async def test_search_tools_answers_at_each_detail_grouped_by_server(held_out_hub: Any) -> None:
    hub = held_out_hub(**{tool.client: object() for tool in held_out_hub.tools.values()})
    query = {"query": "open this address in a browser tab", "limit": 5}
    answers = {
        detail: await hub.call("search_tools", {**query, "detail": detail}) for detail in ("names", "summaries", "full")
    }
    full = answers["full"].structured_content
    names = [entry["name"] for entry in full["tools"]]
    assert len(names) == 5 and "playwright__browser_navigate" in names
    assert full["tools"] == [next(d for d in held_out_hub.tool_definitions() if d["name"] == name) for name in names]
    assert answers["names"].structured_content["tools"] == [{"name": name} for name in names]
    navigate = held_out_hub.describe("playwright__browser_navigate")
    assert {"name": "playwright__browser_navigate", "summary": "Navigate to a URL"} in answers[
        "summaries"
    ].structured_content["tools"], navigate.description
    # every level groups the same tools by server, servers in the order of their best tool
    for answer in answers.values():
        grouped = answer.structured_content["servers"]
        assert [name for group in grouped for name in group["tools"]] == sorted(
            names,
            key=lambda name: ([group["server"] for group in grouped].index(name.split("__")[0]), names.index(name)),
        )
        assert json.loads(answer.content[0].text) == answer.structured_content

    described = await hub.call("search_tools", {"query": "fetch a page", "names": ["fetch__fetch"], "detail": "full"})
    assert described.structured_content["tools"] == held_out_hub.tool_definitions(names=["fetch__fetch"])
    with pytest.raises(LookupError, match="fetch__fetchh"):
        await hub.call("search_tools", {"query": "x", "names": ["fetch__fetchh"]})


def test_definitions_and_search_answers_keep_their_bytes_across_processes(held_out_hub: Any) -> None:
    """A provider's prompt cache survives only if the tool list is the same bytes on every run."""
    package_root = Path(sys.modules[held_out_hub.__module__].__file__ or "").parents[2]
    script = (
        "import json, asyncio\n"
        "from heldouthub.hub import Hub\n"
        "hub = Hub(**{tool.client: object() for tool in Hub.tools.values()})\n"
        "found = asyncio.run(hub.call('search_tools', {'query': 'list the files in a folder', 'detail': 'summaries'}))\n"
        "print(json.dumps([Hub.tool_definitions(f) for f in ('openai', 'anthropic', 'gemini')]))\n"
        "print(found.content[0].text)\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            cwd=package_root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1


def test_the_translation_model_learns_words_a_request_and_its_tool_do_not_share_under_any_hash_seed() -> None:
    """`benchmarks/translation_model.py` (IBM Model 1, not shipped: `benchmarks/README.md`): a request
    word that no tool says reaches the tool word it comes with, and the floats are the same bytes
    whatever `PYTHONHASHSEED` is, since a table that ships must be."""
    script = (
        "import json\n"
        "from benchmarks.translation_model import learned\n"
        "from codegen.runtime._hub_search import terms\n"
        "pairs = [(sorted(set(terms(q))), sorted(set(terms(t)))) for q, t in [\n"
        "    ('the multiplication of 3 and 2', 'multiply two numbers'),\n"
        "    ('what is the multiplication of 7 by 9', 'multiply two numbers'),\n"
        "    ('sum of 3 and 2', 'add two numbers'),\n"
        "    ('the total of 4 and 5', 'add two numbers'),\n"
        "    ('divide 9 by 3', 'divide two numbers'),\n"
        "    ('subtract 2 from 7', 'subtract two numbers'),\n"
        "    ('arrange these from the smallest to the largest', 'sort an array ascending'),\n"
        "    ('arrange the names from the largest', 'sort an array descending'),\n"
        "    ('reverse the list', 'reverse an array'),\n"
        "]]\n"
        "model = learned(pairs)\n"
        "print(json.dumps([model.expansions, model.translations], sort_keys=True))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            cwd=REPO,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1
    expansions, translations = json.loads(outputs.pop())
    assert translations["multiplication"][0][0] == "multiply", translations["multiplication"]
    assert "multiply" in dict(expansions["multiplication"]), expansions["multiplication"]
    assert translations["arrang"][0][0] == "sort", translations["arrang"]
