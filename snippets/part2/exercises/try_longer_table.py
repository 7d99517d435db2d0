"""Try this: give exercise 16's fixed model a table twice as long (T_MAX = 4 to 8) and run its 10-token
text again: sliding windows need fewer calls and give position 8 seven earlier tokens, while windows
that do not overlap still leave it blind, because position 8 now opens the second window."""
import numpy as np

from esm import check_equal, table

T_MAX, d = 8, 3                                   # changed: was T_MAX = 4
P = np.arange(T_MAX * d, dtype=float).reshape(T_MAX, d)
N_TEXT = 10


def positions(T):
    if T > T_MAX:
        raise ValueError(f"an input of {T} tokens is longer than the {T_MAX} positions the table was trained on")
    return P[np.arange(T)]


def calls_and_context(stride):
    """The exercise's windows of at most T_MAX tokens over the text, moved by `stride` (the last one ends at
    the text's end): the number of calls, and for each position the most earlier tokens it sees."""
    starts = list(range(0, N_TEXT - T_MAX + 1, stride))
    if starts[-1] + T_MAX < N_TEXT:
        starts.append(starts[-1] + stride if stride == T_MAX else N_TEXT - T_MAX)
    seen = {}
    for start in starts:
        for t in range(start, min(start + T_MAX, N_TEXT)):
            positions(min(start + T_MAX, N_TEXT) - start)
            seen[t] = max(seen.get(t, -1), t - start)
    return len(starts), [seen[t] for t in range(N_TEXT)]


calls_slide, ctx_slide = calls_and_context(1)
calls_block, ctx_block = calls_and_context(T_MAX)
print(table(("windows", "calls", "earlier tokens seen at positions 0 to 9"),
            [("sliding by one", calls_slide, ", ".join(map(str, ctx_slide))),
             ("not overlapping", calls_block, ", ".join(map(str, ctx_block)))]))
print(check_equal(f"T_max = {T_MAX}, sliding by one: 10 - T_max + 1 calls, and position 8 sees T_max - 1 earlier tokens",
                  (calls_slide, ctx_slide[8]), (N_TEXT - T_MAX + 1, T_MAX - 1)))
print(check_equal(f"T_max = {T_MAX}, windows that do not overlap: 2 calls, and position 8, which opens the second "
                  "window, sees no earlier token", (calls_block, ctx_block[8]), (2, 0)))
