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
