"""Requests as users phrase them, held out from the shortlist's development (issue 25).

Written from the servers' tool lists before any of them was ranked, and never tuned against: the
shortlist's code and word lists must not echo this wording. The hub is made of real catalogs: the
golden snapshots (`everything`, `time`, `weather`, `notes`), the test suite's `server-filesystem`
snapshot, and snapshots of `mcp-server-fetch` 2026.10.24 (PyPI) and `@playwright/mcp` 0.0.83 (npm) in
`tests/fixtures/catalogs/`. A task counts as answered when one of its tools is among the first five.
"""

from __future__ import annotations

TASKS: list[tuple[str, tuple[str, ...]]] = [
    # the issue's own examples
    (
        "what files are inside my projects directory",
        ("filesystem__list_directory", "filesystem__list_directory_with_sizes", "filesystem__directory_tree"),
    ),
    ("open this address in a browser tab", ("playwright__browser_navigate", "playwright__browser_tabs")),
    ("grab a page's contents as plain text", ("fetch__fetch",)),
    # filesystem
    ("create a new folder named archive", ("filesystem__create_directory",)),
    ("move notes.md into the archive folder", ("filesystem__move_file",)),
    ("change one word in my essay without rewriting the whole file", ("filesystem__edit_file",)),
    ("when was budget.xlsx created", ("filesystem__get_file_info",)),
    ("look for any files ending in .csv below this path", ("filesystem__search_files",)),
    ("put this paragraph into a file called draft.txt", ("filesystem__write_file",)),
    ("print the first 20 lines of server.log", ("filesystem__read_text_file", "filesystem__read_file")),
    # fetch
    ("download the article at this link and give it to me as markdown", ("fetch__fetch",)),
    ("what does the example.com homepage say", ("fetch__fetch", "playwright__browser_navigate")),
    # browser
    ("click the sign in button on the page", ("playwright__browser_click",)),
    ("take a screenshot of what the browser shows", ("playwright__browser_take_screenshot",)),
    ("type my email into the login field", ("playwright__browser_type", "playwright__browser_fill_form")),
    ("go back to the previous page", ("playwright__browser_navigate_back",)),
    ("press the Enter key", ("playwright__browser_press_key",)),
    ("choose Germany from the country dropdown", ("playwright__browser_select_option",)),
    ("what errors did the web page log to the console", ("playwright__browser_console_messages",)),
    ("shut the browser down", ("playwright__browser_close",)),
    # everything, time, weather, notes
    ("add up two numbers for me", ("everything__get-sum",)),
    ("send me back exactly the text I gave you", ("everything__echo",)),
    ("convert 9am Paris time to Sydney time", ("time__convert_time",)),
    ("what's the current time in UTC", ("time__get_current_time",)),
    ("is it going to be sunny in Rome tomorrow", ("weather__get_forecast",)),
    ("write down that the meeting moved to Friday", ("notes__add_note",)),
]

LATER_TASKS: list[tuple[str, tuple[str, ...]]] = [
    # filesystem
    ("overwrite todo.txt with an empty list", ("filesystem__write_file",)),
    ("which directories can you reach on this machine", ("filesystem__list_allowed_directories",)),
    ("give me a nested view of everything under src", ("filesystem__directory_tree",)),
    ("compare these two source files side by side", ("filesystem__read_multiple_files",)),
    ("load the png logo from disk", ("filesystem__read_media_file",)),
    ("where on disk is my tax return pdf", ("filesystem__search_files",)),
    ("how large is the video in my downloads", ("filesystem__get_file_info", "filesystem__list_directory_with_sizes")),
    # browser
    ("move the mouse over the menu so the submenu appears", ("playwright__browser_hover",)),
    ("accept the confirmation popup", ("playwright__browser_handle_dialog",)),
    ("attach my CV to the job application form", ("playwright__browser_file_upload",)),
    ("make the browser window smaller", ("playwright__browser_resize",)),
    ("switch the site to dark mode", ("playwright__browser_emulate_media",)),
    ("run some javascript on this page", ("playwright__browser_evaluate", "playwright__browser_run_code_unsafe")),
    (
        "which requests did the page send to the API",
        ("playwright__browser_network_requests", "playwright__browser_network_request"),
    ),
    ("wait until the loading spinner is gone", ("playwright__browser_wait_for",)),
    ("drag the card into the done column", ("playwright__browser_drag",)),
    ("find the word pricing on the current page", ("playwright__browser_find",)),
    ("open a second tab", ("playwright__browser_tabs",)),
    # fetch
    ("pull the text of a news article off the internet", ("fetch__fetch",)),
    ("read the web page at this url for me", ("fetch__fetch", "playwright__browser_navigate")),
    # time, weather, notes
    ("what's 5pm Tokyo time in Berlin", ("time__convert_time",)),
    ("what's the date today in New York", ("time__get_current_time",)),
    ("how hot will it be in Madrid on Saturday", ("weather__get_forecast",)),
    ("what is 25 C in F", ("weather__celsius_to_fahrenheit",)),
    ("broadcast a warning about flooding", ("weather__send_alert",)),
    ("look up the note I wrote about the dentist", ("notes__search",)),
    ("save a reminder to call mom", ("notes__add_note",)),
    # everything
    ("print all the env vars the server sees", ("everything__get-env",)),
    ("what is 12 plus 30", ("everything__get-sum",)),
    ("zip up report.txt", ("everything__gzip-file-as-resource",)),
    ("ask the client's LLM to write a haiku", ("everything__trigger-sampling-request",)),
    ("which roots did the client give you", ("everything__get-roots-list",)),
    ("ask the user to fill in a form", ("everything__trigger-elicitation-request",)),
]
"""More requests over the same hub, written from its tool lists and committed before the ranking of
issue 25's second round (unknown words, question words, value formats) was run on any of them;
measured once it was done, never tuned against."""

THIRD_TASKS: list[tuple[str, tuple[str, ...]]] = [
    # memory (a knowledge graph)
    (
        "I keep forgetting things, can you remember that Alice works at Acme?",
        ("memory__create_entities", "memory__add_observations", "memory__create_relations", "notes__add_note"),
    ),
    ("what do you remember about my sister Jane", ("memory__search_nodes", "memory__open_nodes")),
    ("forget everything you know about Bob", ("memory__delete_entities",)),
    ("show me everything you've stored in your memory", ("memory__read_graph",)),
    ("link Paris to France as its capital", ("memory__create_relations",)),
    ("Tom no longer likes coffee, drop that fact", ("memory__delete_observations",)),
    ("add to what you know about Project Apollo that it launched in 1969", ("memory__add_observations",)),
    # github
    ("report a bug on the octocat/hello-world project saying the login page crashes", ("github__create_issue",)),
    ("what's the status of issue 42 in our repo", ("github__get_issue",)),
    ("leave a comment on ticket 17 saying thanks", ("github__add_issue_comment",)),
    ("open a PR from my feature branch into main", ("github__create_pull_request",)),
    ("merge pull request 8", ("github__merge_pull_request",)),
    ("find GitHub projects about weather apps", ("github__search_repositories",)),
    ("close issue 5", ("github__update_issue",)),
    ("make a copy of someone else's repository under my account", ("github__fork_repository",)),
    ("which files did pull request 12 change", ("github__get_pull_request_files",)),
    ("find people on GitHub named Linus", ("github__search_users",)),
    ("start a new project on GitHub called recipes", ("github__create_repository",)),
    ("have the CI checks passed on PR 30", ("github__get_pull_request_status",)),
    ("approve pull request 3", ("github__create_pull_request_review",)),
    ("where is the function parse_config used in code on GitHub", ("github__search_code",)),
    ("get the README from the github repo torvalds/linux", ("github__get_file_contents",)),
    (
        "Hey, could you check which pull requests are still waiting on our repo?",
        ("github__list_pull_requests",),
    ),
    # git (a local repository)
    (
        "what have I changed since my last commit",
        ("git__git_status", "git__git_diff_unstaged", "git__git_diff_staged", "git__git_diff"),
    ),
    ("save my work with the message fix typo", ("git__git_commit",)),
    ("show the history of this repository", ("git__git_log", "github__list_commits")),
    ("switch to the release branch", ("git__git_checkout",)),
    ("unstage all my files", ("git__git_reset",)),
    ("include report.md in the next commit", ("git__git_add",)),
    ("which branches are there", ("git__git_branch",)),
    ("start a new branch called experiment", ("git__git_create_branch", "github__create_branch")),
    ("show me commit abc123", ("git__git_show",)),
    # sqlite
    ("what tables are in my database", ("sqlite__list_tables",)),
    ("show me all customers from Ohio in the database", ("sqlite__read_query",)),
    ("what columns does the orders table have", ("sqlite__describe_table",)),
    ("add a row for a new customer named Ana", ("sqlite__write_query",)),
    ("set up a table to keep track of invoices", ("sqlite__create_table",)),
    ("jot down a business finding: sales dip in July", ("sqlite__append_insight", "notes__add_note")),
    # sequential thinking
    ("think this problem through step by step before answering", ("sequential_thinking__sequentialthinking",)),
    # a browser: Chrome DevTools, and Playwright where it can do the same
    (
        "why is this website so slow to load",
        ("chrome_devtools__performance_start_trace", "chrome_devtools__performance_analyze_insight"),
    ),
    ("check my site for accessibility problems", ("chrome_devtools__lighthouse_audit",)),
    ("record a video of the page", ("chrome_devtools__screencast_start",)),
    ("reload the page", ("chrome_devtools__navigate_page", "playwright__browser_navigate")),
    ("which tabs do I have open", ("chrome_devtools__list_pages", "playwright__browser_tabs")),
    ("double-click the photo", ("chrome_devtools__click", "playwright__browser_click")),
    ("pretend I'm on a slow 3G phone connection", ("chrome_devtools__emulate",)),
    ("what fonts and colours does the header use", ("chrome_devtools__get_css_styles",)),
    ("find out why the page uses so much memory", ("chrome_devtools__take_heapsnapshot",)),
    ("close this tab", ("chrome_devtools__close_page", "playwright__browser_tabs", "playwright__browser_close")),
    ("pretend I'm in London so the site shows local results", ("chrome_devtools__emulate",)),
    # filesystem, weather, time
    ("rename report.docx to final.docx", ("filesystem__move_file",)),
    ("what's the weather looking like this weekend in Oslo", ("weather__get_forecast",)),
    ("What time is it in Tokyo right now?", ("time__get_current_time",)),
    ("delete the line about the password in config.txt", ("filesystem__edit_file",)),
]
"""A third round (issue 25, branch `realtasks`), over the hub enlarged by six more real servers'
catalogs in `tests/fixtures/catalogs/more/` (a folder of their own: the benchmarks read every catalog in
`tests/fixtures/catalogs/` as a fixed set): `@modelcontextprotocol/server-memory` 2026.8.31,
`@modelcontextprotocol/server-github` 2025.4.8 and `@modelcontextprotocol/server-sequential-thinking`
2026.8.31 (npm, as `tests/npm` pins them), `mcp-server-git` 2026.10.19 and `mcp-server-sqlite`
2025.4.25 (PyPI, under `mcp` 1.30.0) and `chrome-devtools-mcp` 1.11.0 (npm). Written from the tool
lists, phrased as a user would, and committed before the shortlist was run on any of them (commit
`243fbc6`); measured once there: 39 of 54 in the first five, 24 first. Then its misses were used to
change the ranking (a file's name asks for a file path, synonyms stand in full for a word the catalog
lacks, a long server text weighs less, three general-English groups), so it is in-sample since: 42
of 54. Its memory and GitHub requests resemble some of `tests/shortlist_eval.py`'s (the same tools,
phrased alike by chance: that file was not read before this round was written), which the ranking
was developed against: those may flatter it. Over the servers that set never had (git, sqlite,
sequential thinking, Chrome DevTools), 21 of their 27 in the first five at the one measurement."""

FOURTH_TASKS: list[tuple[str, tuple[str, ...]]] = [
    # memory
    (
        "could you stash a fact for later: my flight is on the 3rd",
        ("memory__create_entities", "memory__add_observations", "notes__add_note"),
    ),
    ("how is Alice related to Bob", ("memory__search_nodes", "memory__open_nodes", "memory__read_graph")),
    # github
    ("reopen issue 88 on GitHub", ("github__update_issue",)),
    ("list the open bugs in the octo/app repo", ("github__list_issues", "github__search_issues")),
    (
        "what did reviewers say about pull request 14",
        ("github__get_pull_request_reviews", "github__get_pull_request_comments"),
    ),
    (
        "upload three files to the docs folder of my GitHub repo in one go",
        ("github__push_files", "github__create_or_update_file"),
    ),
    # git
    ("what did I change in the files I already staged", ("git__git_diff_staged",)),
    ("show the last five commits", ("git__git_log", "github__list_commits")),
    ("throw away what I staged", ("git__git_reset",)),
    # sqlite
    ("Quick question: how many orders came in last month?", ("sqlite__read_query",)),
    ("remove all rows where the price is zero", ("sqlite__write_query",)),
    # sequential thinking
    ("help me plan a tricky migration one step at a time", ("sequential_thinking__sequentialthinking",)),
    # a browser
    (
        "fill in the username and password fields and tick remember me",
        ("chrome_devtools__fill_form", "playwright__browser_fill_form"),
    ),
    ("how good is my page's SEO", ("chrome_devtools__lighthouse_audit",)),
    ("stop recording the screen", ("chrome_devtools__screencast_stop",)),
    (
        "make the page look like it's on an iPhone",
        ("chrome_devtools__emulate", "chrome_devtools__resize_page", "playwright__browser_resize"),
    ),
    ("hit the Escape key", ("chrome_devtools__press_key", "playwright__browser_press_key")),
    ("switch over to the second tab", ("chrome_devtools__select_page", "playwright__browser_tabs")),
    (
        "grab the text of https://example.org/news",
        ("fetch__fetch", "playwright__browser_navigate", "chrome_devtools__navigate_page"),
    ),
    # filesystem, weather, time
    (
        "show me what's in the photos folder along with how big each file is",
        ("filesystem__list_directory_with_sizes",),
    ),
    ("what will the weather be like in Lisbon on Monday", ("weather__get_forecast",)),
    ("what time is it in Sydney when it's noon in London", ("time__convert_time",)),
]
"""A fourth round over the same 13 servers, written after the ranking's changes from the third
round's misses and committed before the shortlist was run on any of them: measured once there, 17 of
22 in the first five. Then its misses and the third round's remaining ones were used to change the
ranking (branch `realtasks2`: a server's id as a word of its tools, indefinite pronouns as stopwords,
`how big`/`how large` asking for a size, forget/delete, link/relation and phone/mobile as general
English), so it is in-sample since: 18 of 22 (the third round 46 of 54)."""

FIFTH_TASKS: list[tuple[str, tuple[str, ...]]] = [
    # slack
    ("tell the team in the #general channel that lunch is at noon", ("slack__slack_post_message",)),
    ("what have people been saying in the marketing channel lately", ("slack__slack_get_channel_history",)),
    ("give a thumbs up to Maria's message", ("slack__slack_add_reaction",)),
    ("answer Tom in the thread about the launch", ("slack__slack_reply_to_thread",)),
    ("who is in our Slack workspace", ("slack__slack_get_users",)),
    ("what's Priya's job title on Slack", ("slack__slack_get_user_profile",)),
    ("which chat channels can I join", ("slack__slack_list_channels",)),
    # maps and local search
    ("how do I drive from Boston to New York", ("google_maps__maps_directions",)),
    (
        "how far is it from the airport to my hotel",
        ("google_maps__maps_distance_matrix", "google_maps__maps_directions"),
    ),
    (
        "find a good pizza place near Union Square",
        ("google_maps__maps_search_places", "brave_search__brave_local_search"),
    ),
    ("what's the street address for these GPS coordinates", ("google_maps__maps_reverse_geocode",)),
    ("what are the coordinates of the Eiffel Tower", ("google_maps__maps_geocode", "google_maps__maps_search_places")),
    ("how high above sea level is Denver", ("google_maps__maps_elevation",)),
    (
        "is the bakery on Main Street open on Sundays",
        ("google_maps__maps_place_details", "brave_search__brave_local_search"),
    ),
    # web search
    ("search the web for the latest news about electric cars", ("brave_search__brave_web_search",)),
    # notion
    ("make a new page in Notion for my trip plans", ("notion__API-post-page",)),
    ("find my Notion page called Reading List", ("notion__API-post-search",)),
    ("add a comment on the Notion page saying looks good", ("notion__API-create-a-comment",)),
    ("rename the title of my Notion page", ("notion__API-patch-page",)),
    (
        "show me what's written on my Notion page about recipes",
        ("notion__API-retrieve-page-markdown", "notion__API-retrieve-a-page", "notion__API-get-block-children"),
    ),
    (
        "add a to-do line at the bottom of my Notion page",
        ("notion__API-patch-block-children", "notion__API-update-page-markdown"),
    ),
    # a browser: Puppeteer, Playwright or Chrome DevTools
    (
        "fill in my name on the signup form",
        (
            "puppeteer__puppeteer_fill",
            "playwright__browser_type",
            "playwright__browser_fill_form",
            "chrome_devtools__fill",
            "chrome_devtools__fill_form",
        ),
    ),
    (
        "take a picture of the web page I'm on",
        (
            "puppeteer__puppeteer_screenshot",
            "playwright__browser_take_screenshot",
            "chrome_devtools__take_screenshot",
        ),
    ),
    # the thirteen servers before
    ("move the Q3 report into the old folder", ("filesystem__move_file",)),
    ("what time is it in Mumbai", ("time__get_current_time",)),
    ("will it rain in Seattle this week", ("weather__get_forecast",)),
    ("which branch am I on", ("git__git_status", "git__git_branch")),
    ("list every table in the shop database", ("sqlite__list_tables",)),
    ("read me the contents of notes.txt", ("filesystem__read_text_file", "filesystem__read_file")),
    (
        "get me the text of this blog post: https://blog.example.com/post",
        (
            "fetch__fetch",
            "playwright__browser_navigate",
            "chrome_devtools__navigate_page",
            "puppeteer__puppeteer_navigate",
        ),
    ),
    ("who opened issue 12 on GitHub", ("github__get_issue",)),
    ("think carefully about my budget problem in steps", ("sequential_thinking__sequentialthinking",)),
    (
        "note down that my passport expires in May",
        ("notes__add_note", "memory__create_entities", "memory__add_observations"),
    ),
]
"""A fifth round (issue 25, branch `realtasks2`) over 18 real servers: the 13 above and five more
snapshotted offline over stdio into `tests/fixtures/catalogs/more/`: `@modelcontextprotocol/server-slack`
2025.4.25, `server-google-maps` 0.6.2, `server-puppeteer` 2025.5.12 and `server-brave-search` 0.6.2,
and `@notionhq/notion-mcp-server` 2.5.2 (npm; dummy tokens, no network). Written from the tool lists
after the ranking's changes from the fourth round's misses, and committed before the shortlist was
run on any of them; 24 of its 33 requests accept a tool of the five new servers."""
