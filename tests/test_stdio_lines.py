"""The runtime's stdio reader (`_stdio.Lines`) on its own: lines cut at any point arrive whole and in
order, and a line past the limit is never held whole: the request it answers gets an error answer,
whichever order the server writes an answer's members in."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from codegen.runtime._stdio import Lines


def fed(lines: Lines, data: bytes, chunk: int = 1 << 16) -> list[str | bytes]:
    return [line for start in range(0, len(data), chunk) for line in lines.feed(data[start : start + chunk])]


def long_answer(request_id: object, size: int, id_last: bool) -> bytes:
    result = {"content": [{"type": "text", "text": "x" * size}]}
    if id_last:  # as the TypeScript SDK writes an answer
        return json.dumps({"result": result, "jsonrpc": "2.0", "id": request_id}).encode()
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()


@pytest.mark.parametrize("id_last", [False, True], ids=["id-first", "id-last"])
@pytest.mark.parametrize("request_id", [7, "call-7"])
def test_an_answer_past_the_limit_becomes_its_requests_error_answer(request_id: object, id_last: bool) -> None:
    warned: list[int] = []
    lines = Lines(limit=1000, warn=warned.append)
    before = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n'
    after = b'{"jsonrpc":"2.0","id":8,"result":{}}\n'
    read = fed(lines, before + long_answer(request_id, 5000, id_last) + b"\n" + after, chunk=300)
    assert read[0] == before.decode().strip() and read[2] == after.decode().strip() and len(read) == 3
    answer = json.loads(read[1])
    assert answer["id"] == request_id and answer["error"]["code"] == -32700
    assert answer["error"]["message"].startswith("its answer is longer than 1,000 characters (5,")
    assert warned == []


def test_a_line_at_the_limit_arrives_whole() -> None:
    line = long_answer(1, 900, id_last=False)
    lines = Lines(limit=len(line))
    assert fed(lines, line + b"\n" + line + b"\n", chunk=97) == [line.decode(), line.decode()]


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage", "params": {"text": "x" * 5000}},
        {"method": "notifications/message", "params": {"data": "x" * 5000}, "jsonrpc": "2.0"},
        {"jsonrpc": "2.0", "result": {"text": "x" * 5000}},
        {"log": "x" * 5000},
    ],
    ids=["request", "notification", "answer-without-id", "not-json-rpc"],
)
def test_a_long_line_that_answers_no_request_is_left_out_with_its_length(message: dict[str, object]) -> None:
    warned: list[int] = []
    lines = Lines(limit=1000, warn=warned.append)
    text = json.dumps(message).encode()
    assert fed(lines, text + b"\n" + b'{"jsonrpc":"2.0","id":1,"result":{}}\n', chunk=512) == [
        '{"jsonrpc":"2.0","id":1,"result":{}}'
    ]
    assert warned == [len(text)]


def test_a_line_without_end_is_never_held_whole() -> None:
    """50 MiB without a newline, then one: what is held stays near the limit (1 MiB here)."""
    lines = Lines(limit=1 << 20)
    chunk = b"x" * (1 << 16)
    tracemalloc.start()
    try:
        for _ in range(800):
            assert lines.feed(chunk) == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    assert lines.feed(b'\n{"jsonrpc":"2.0","id":2,"result":{}}\n') == ['{"jsonrpc":"2.0","id":2,"result":{}}']


@pytest.mark.parametrize("chunk", [1, 2, 64])
def test_a_byte_order_mark_before_the_first_line_is_dropped_and_only_there(chunk: int) -> None:
    first, second = b'{"jsonrpc":"2.0","id":1,"result":{}}', b'\xef\xbb\xbf{"jsonrpc":"2.0","id":2,"result":{}}'
    read = fed(Lines(), b"\xef\xbb\xbf" + first + b"\n" + second + b"\n", chunk=chunk)
    assert read == [first.decode(), second.decode()]
