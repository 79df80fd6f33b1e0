"""For tests of what an explorer schedules on the kernel's event loop (tests/test_step_pane.py,
tests/test_svg_charts.py).

In a full ``pytest tests`` run the browser tests' Playwright (its sync API) keeps an asyncio loop
"running" in the main thread for the whole session. Code that schedules work on the running loop
(as in a kernel) would then wait for Playwright's next call, and ``asyncio.run`` refuses to start.
A test decorated with :func:`without_a_running_loop` runs in a thread of its own, where no loop
runs, whatever ran before it.
"""

from __future__ import annotations

import functools
import threading

__all__ = ["without_a_running_loop"]


def without_a_running_loop(test):
    """Run ``test`` in a thread of its own (no running event loop there); its failure is raised
    in the caller's thread."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        failure = []

        def body():
            try:
                test(*args, **kwargs)
            except BaseException as exc:
                failure.append(exc)

        t = threading.Thread(target=body, name=f"test {test.__name__}")
        t.start()
        t.join()
        if failure:
            raise failure[0]

    return run
