"""The private event loop thread a sync client (or the hub's sync twin) runs its async session on.

This file is copied verbatim into each generated package and the hub, and imports only the
standard library (`asyncio` when a sync client first connects). Do not edit the copy: run
`mcp-stubgen sync` to refresh it.
"""

from __future__ import annotations

import threading
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio
    import concurrent.futures

__all__ = ["LoopThread"]

T = TypeVar("T")


class LoopThread:
    """A private asyncio event loop on a daemon thread, where a sync client's async session lives.

    The session is entered, used and left by tasks of this loop only (anyio wants a connection left
    by the task that entered it), and the calling thread waits for each answer. So a sync client
    works from any thread, one running an event loop of its own included; only a call from this
    loop's own thread (a progress callback calling the client again) would wait for itself, and
    raises instead.
    """

    def __init__(self) -> None:
        import asyncio

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="mcp-stubgen sync client", daemon=True)
        self.thread.start()
        self._submit = asyncio.run_coroutine_threadsafe
        self._closing: asyncio.Event | None = None
        self._holder: concurrent.futures.Future[None] | None = None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """The coroutine's result, run on the loop; interrupting the wait (Ctrl-C) cancels it there."""
        if self.loop.is_closed():
            coroutine.close()
            raise RuntimeError("this sync client is closed: its `with` block has ended")
        if threading.current_thread() is self.thread:
            coroutine.close()
            raise RuntimeError(
                "a sync client was called on its own event loop thread (from a progress callback?), where it "
                "would wait for itself forever; call the async client (`.async_client`) there"
            )
        future = self._submit(coroutine, self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def enter(self, manager: AbstractAsyncContextManager[T]) -> T:
        """Enter `manager` in a task of the loop that stays inside it until `close`; its errors raise here."""
        import asyncio
        import concurrent.futures

        entered: concurrent.futures.Future[T] = concurrent.futures.Future()

        async def hold() -> None:
            self._closing = asyncio.Event()
            try:
                async with manager as value:
                    entered.set_result(value)
                    await self._closing.wait()
            except BaseException as error:
                if entered.done():
                    raise
                entered.set_exception(error)

        self._holder = self._submit(hold(), self.loop)
        return entered.result()

    def close(self) -> None:
        """Leave the entered context (closing the session), then stop the loop and its thread."""
        try:
            if self._holder is not None and self._closing is not None:
                self.loop.call_soon_threadsafe(self._closing.set)
                self._holder.result()
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join()
            self.loop.close()
