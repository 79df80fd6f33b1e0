"""How the benchmark times and weighs a call: wall time, repeats with competitors alternating,
the tracemalloc peak, medians and percentiles, the load average.

Every section times through ``timed`` (one call, after a garbage collection) or ``alternate``
(``repeat`` rounds, each competitor once per round, so a noisy moment hits all of them); the
before/after mode (``baseline.py``) times through ``timed`` too. Nothing here formats: ``report``
turns the figures into table cells.
"""

from __future__ import annotations

import gc
import math
import os
import resource
import statistics
import time
import tracemalloc


def timed(fn, *args):
    """(seconds, result) of one call ``fn(*args)``, after a garbage collection."""
    gc.collect()
    t0 = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - t0, result


def alternate(competitors: dict, repeat: int, log, what: str, keep=None, setup=None, after=None) -> tuple[dict, dict]:
    """Time every ``competitors[name]()`` once per round, in order, for ``repeat`` rounds.

    Returns (name -> list of seconds, name -> the result of its last round); only the names in
    ``keep`` (all when None) have their results kept, the others' are dropped at once.
    ``setup[name]()``, when given, runs untimed just before each timing of ``name``, and
    ``after[name](result)`` just after it."""
    times = {name: [] for name in competitors}
    last = {}
    for r in range(repeat):
        log(f"{what}, repeat {r + 1}/{repeat}")
        for name, fn in competitors.items():
            if setup and name in setup:
                setup[name]()
            secs, result = timed(fn)
            times[name].append(secs)
            if after and name in after:
                after[name](result)
            if keep is None or name in keep:
                last[name] = result
            del result
    return times, last


def traced_peak(fn, *args) -> int:
    """tracemalloc peak (bytes) while ``fn`` runs, its result kept alive until the end."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    gc.collect()
    return peak


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished, reaped children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def load1() -> float:
    """The load average over the last minute (each section reports it before and after)."""
    return os.getloadavg()[0]


def med(xs):
    """The median of a list, None for an empty one (a competitor that was not available)."""
    return statistics.median(xs) if xs else None


def pctl(xs, q: float):
    """Nearest-rank percentile (q in 0..1) of a non-empty list."""
    ys = sorted(xs)
    return ys[max(0, min(len(ys) - 1, math.ceil(q * len(ys)) - 1))]
