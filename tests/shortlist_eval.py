"""Tasks as users phrase them, each with the hub tools that do it, over the real servers the suite installs.

The servers: the npm `server-everything`, `server-memory`, `server-filesystem` and `server-github`,
`mcp-server-time` from PyPI, and the bundled `weather` and `notes` examples (the tools of 7 servers). A
task counts as answered when one of its tools is among the shortlist's first five. Written from what a
user would type, not from the tools' own words; more than one tool is listed only where a person
would accept either.
"""

from __future__ import annotations

TASKS: list[tuple[str, tuple[str, ...]]] = [
    # github
    ("open a bug report about the crash", ("github__create_issue",)),
    ("leave a comment on issue 42 saying it's fixed", ("github__add_issue_comment",)),
    ("close the ticket about the login page", ("github__update_issue",)),
    ("start a new branch for the feature", ("github__create_branch",)),
    ("propose my changes for review by opening a PR", ("github__create_pull_request",)),
    ("approve the pull request", ("github__create_pull_request_review",)),
    ("make a new repo for my side project", ("github__create_repository",)),
    ("copy someone else's repository into my account", ("github__fork_repository",)),
    ("show me the README of the project on GitHub", ("github__get_file_contents",)),
    ("what's the status of issue 17", ("github__get_issue",)),
    ("which files did this PR touch", ("github__get_pull_request_files",)),
    ("have the CI checks passed on my pull request", ("github__get_pull_request_status",)),
    ("show the recent commits on main", ("github__list_commits",)),
    ("what open bugs are there in the repo", ("github__list_issues", "github__search_issues")),
    ("merge the PR now that it's approved", ("github__merge_pull_request",)),
    ("upload these three files to the repo in one commit", ("github__push_files",)),
    ("find where parse_config is defined across GitHub", ("github__search_code",)),
    ("find github users named octocat", ("github__search_users",)),
    ("look for repositories about machine learning", ("github__search_repositories",)),
    ("change the title and labels of an issue", ("github__update_issue",)),
    ("bring my PR branch up to date with main", ("github__update_pull_request_branch",)),
    ("read the review comments left on the pull request", ("github__get_pull_request_comments",)),
    # filesystem
    ("make a folder called reports", ("filesystem__create_directory",)),
    ("show me the whole folder structure as a tree", ("filesystem__directory_tree",)),
    ("replace a line in the config file", ("filesystem__edit_file",)),
    ("how big is this file and when was it last modified", ("filesystem__get_file_info",)),
    ("which folders am I allowed to access", ("filesystem__list_allowed_directories",)),
    (
        "what's inside the downloads folder",
        ("filesystem__list_directory", "filesystem__list_directory_with_sizes", "filesystem__directory_tree"),
    ),
    ("list the files in this folder sorted by size", ("filesystem__list_directory_with_sizes",)),
    ("rename report.txt to final.txt", ("filesystem__move_file",)),
    ("open the notes text file and show me what it says", ("filesystem__read_text_file", "filesystem__read_file")),
    ("show me this photo", ("filesystem__read_media_file",)),
    ("read all three log files at once", ("filesystem__read_multiple_files",)),
    ("find every PDF under my documents", ("filesystem__search_files",)),
    ("save this text to a new file", ("filesystem__write_file",)),
    # memory
    (
        "remember that Alice works at Acme",
        ("memory__create_entities", "memory__create_relations", "memory__add_observations"),
    ),
    ("forget everything about Bob", ("memory__delete_entities",)),
    ("record that Alice manages Bob", ("memory__create_relations",)),
    ("what do you know about Alice", ("memory__search_nodes", "memory__open_nodes", "memory__read_graph")),
    ("dump the entire knowledge graph", ("memory__read_graph",)),
    ("add the fact that Alice likes coffee to what you know about her", ("memory__add_observations",)),
    ("drop the observation that Carol moved to Paris", ("memory__delete_observations",)),
    ("Alice no longer manages Bob, remove that link", ("memory__delete_relations",)),
    # time
    ("what time is it in Tokyo right now", ("time__get_current_time",)),
    ("if it's 3pm in New York what time is it in London", ("time__convert_time",)),
    # weather
    ("will it rain in Oslo this weekend", ("weather__get_forecast",)),
    ("how many degrees Fahrenheit is 30 Celsius", ("weather__celsius_to_fahrenheit",)),
    ("warn everyone that a storm is coming", ("weather__send_alert",)),
    ("which cities starting with Ber have a forecast", ("weather__search",)),
    # notes
    ("jot down a note to buy milk", ("notes__add_note",)),
    ("find my notes tagged travel", ("notes__search",)),
    # everything
    ("repeat back what I say", ("everything__echo",)),
    ("add 17 and 25", ("everything__get-sum",)),
    ("show me the environment variables", ("everything__get-env",)),
    ("compress this file with gzip", ("everything__gzip-file-as-resource",)),
    ("do some deep research on solar panels", ("everything__simulate-research-query",)),
    ("turn on logging", ("everything__toggle-simulated-logging",)),
    ("run a long task and report progress", ("everything__trigger-long-running-operation",)),
    ("give me a small picture of the logo", ("everything__get-tiny-image",)),
]
