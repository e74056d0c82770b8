"""The private event loop a sync client (or the hub's sync twin) runs its async session on.

This file is copied verbatim into each generated package and the hub, and imports only the
standard library (`asyncio` when a sync client first connects). Do not edit the copy: run
`mcp-stubgen sync` to refresh it.
"""

from __future__ import annotations

import contextvars
import os
import signal
import threading
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["SessionLoop"]

T = TypeVar("T")


class SessionLoop:
    """A private asyncio event loop where a sync client's async session lives.

    A call from a thread with no event loop of its own runs this loop right there until its answer
    comes: no thread hand-off, so a sync call costs little more than the async one. Between calls the
    loop idles, so what the server sends meanwhile (a ping, a log message, a request for sampling or
    elicitation) is read and served at the next call, or when the client closes. Where the calling
    thread cannot run the loop (its own event loop is running, or another thread is running this one
    for a call) the loop moves, for good, to a daemon thread of its own, and callers wait there for
    their answers; `threaded=True` starts that way, for a session that must follow its server between
    calls. The session is entered and left by one task of this loop (anyio wants a connection left by
    the task that entered it), which waits in between.
    """

    def __init__(self, owner: str, *, threaded: bool = False) -> None:
        """`owner` names what the loop serves in its errors (`weather: this sync client`)."""
        import asyncio

        self.owner = owner
        self.pid = os.getpid()
        """The process the loop, its session and a stdio server's pipes belong to."""
        self.loop = asyncio.new_event_loop()
        self.thread: threading.Thread | None = None
        """The loop's own thread, once the loop has moved there."""
        self._state = threading.Lock()
        self._driver: threading.Thread | None = None
        self._threaded = threaded
        self._closed = False
        self._closing: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None
        if threaded:
            self._start_thread()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """The coroutine's result, run on the loop; interrupting the wait (Ctrl-C) cancels it there."""
        import asyncio

        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            coroutine.close()
            raise RuntimeError(
                "a sync client was called on its own event loop (from a progress callback or a handler?), where "
                "it would wait for itself forever; call the async client (`.async_client`) there"
            )
        with self._state:
            if self._closed:
                coroutine.close()
                raise RuntimeError(
                    f"{self.owner} is closed: its `with` block has ended; call it inside the block, or connect again"
                )
            if os.getpid() != self.pid:
                coroutine.close()
                raise RuntimeError(self._forked())
            here = not self._threaded and running is None and self._driver is None
            if here:
                self._driver = threading.current_thread()
            else:
                self._threaded = True
                if self._driver is None and self.thread is None:
                    self._start_thread()
                future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        if here:
            try:
                return self._drive(coroutine)
            finally:
                with self._state:
                    self._driver = None
                    if (
                        self._threaded and self.thread is None
                    ):  # another thread's call waits on the loop
                        self._start_thread()
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def _drive(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run the loop in this thread until the coroutine is done. In the main thread Ctrl-C cancels
        the call, so the server is told (`notifications/cancelled`), and then raises `KeyboardInterrupt`;
        a second Ctrl-C raises at once, as `asyncio.run` does."""
        import asyncio

        task = self.loop.create_task(coroutine, context=contextvars.copy_context())
        interrupts = 0

        def on_interrupt(signum: int, frame: FrameType | None) -> None:
            nonlocal interrupts
            interrupts += 1
            if interrupts > 1 or task.done():
                raise KeyboardInterrupt
            task.cancel()
            self.loop.call_soon_threadsafe(
                lambda: None
            )  # wakes the loop if it waits for the server

        previous = None
        if threading.current_thread() is threading.main_thread():
            try:
                previous = signal.signal(signal.SIGINT, on_interrupt)
            except ValueError:  # an embedded interpreter that does not let Python handle signals
                previous = None
            if (
                previous is not None and previous is not signal.default_int_handler
            ):  # the caller's own decides
                signal.signal(signal.SIGINT, previous)
                previous = None
        try:
            return self.loop.run_until_complete(task)
        except asyncio.CancelledError:
            if interrupts and task.uncancel() == 0:
                raise KeyboardInterrupt from None
            raise
        except BaseException:  # a KeyboardInterrupt between steps: stop the call before raising
            if not task.done():
                task.cancel()
                self.loop.run_until_complete(asyncio.wait([task]))
            raise
        finally:
            if previous is not None:
                replaced = signal.signal(signal.SIGINT, previous)
                if replaced is not on_interrupt:  # the call installed a handler of its own: keep it
                    signal.signal(signal.SIGINT, replaced)

    def _start_thread(self) -> None:
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="mcp-stubgen sync client", daemon=True
        )
        self.thread.start()

    def enter(self, manager: AbstractAsyncContextManager[T]) -> T:
        """Enter `manager` in a task of the loop that stays inside it until `close`; its errors raise here."""
        return self.run(self._hold(manager))

    async def _hold(self, manager: AbstractAsyncContextManager[T]) -> T:
        import asyncio

        entered: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        closing = self._closing = asyncio.Event()

        async def hold() -> None:
            try:
                async with manager as value:
                    entered.set_result(value)
                    await closing.wait()
            except BaseException as error:
                if entered.done():
                    raise
                entered.set_exception(error)

        self._holder = asyncio.get_running_loop().create_task(hold())
        return await entered

    async def _leave(self, holder: asyncio.Task[None], closing: asyncio.Event) -> None:
        closing.set()
        await holder

    def _forked(self) -> str:
        """Why a forked child cannot call: the loop's thread, if it had one, did not come along (the
        call waited for ever), and the session and the server's pipes are the parent's, which the
        parent goes on using (the answers would go to either)."""
        return (
            f"{self.owner} was opened in process {self.pid}, and this is a child forked from it "
            f"(process {os.getpid()}): its session and the server connection stay the parent's; "
            "connect again in this process"
        )

    def close(self) -> None:
        """Leave the entered context (closing the session) from its task, then stop and close the loop.
        A forked child leaves them alone: they are its parent's, which closes them."""
        if os.getpid() != self.pid:
            with self._state:
                self._closed = True
            return
        try:
            if self._holder is not None and self._closing is not None:
                self.run(self._leave(self._holder, self._closing))
        finally:
            with self._state:
                self._closed = True
            if self.thread is not None:
                self.loop.call_soon_threadsafe(self.loop.stop)
                self.thread.join()
            self.loop.close()
