"""Which host op, of one thread, contains a point in time: the innermost of nested intervals.

The autograd profiler attributes device tasks to host ops this way when a task has no launch event,
and the HTML report names the host op of each launch in a trace file.
"""
import bisect


def index_by_thread(items):
    """{thread: (starts, [(start, end, item)])} of (thread, start, end, item) tuples, sorted by start."""
    by_thread = {}
    for thread, start, end, item in items:
        by_thread.setdefault(thread, []).append((start, end, item))
    index = {}
    for thread, intervals in by_thread.items():
        intervals.sort(key=lambda iv: iv[0])
        index[thread] = ([iv[0] for iv in intervals], intervals)
    return index


def innermost(index, thread, t):
    """The item of the innermost interval of `thread` (in index_by_thread's index) containing t, or None."""
    starts, intervals = index.get(thread, ((), ()))
    i = bisect.bisect_right(starts, t) - 1
    while i >= 0:  # sorted by start: the latest start whose interval still contains t is the innermost
        if intervals[i][1] >= t:
            return intervals[i][2]
        i -= 1
    return None
