"""Fix of the debugging exercise on a position table (6.3): wrapping the index with % gave positions
4 and 5 the rows of positions 0 and 1. The fix refuses positions past the table, and the caller keeps
a window of the last T_MAX tokens; the same check now passes."""
import numpy as np

from esm import check_equal, check_true, glue

T_MAX, d = 4, 3
P = np.arange(T_MAX * d, dtype=float).reshape(T_MAX, d)     # a learned table: one row per position 0..3


def check_positions(rows):
    """The property the model relies on: every position of the input gets its own row."""
    distinct = len({tuple(r) for r in rows})
    return check_equal(f"each of the {len(rows)} positions gets its own position row (distinct rows)", distinct, len(rows))


def positions(T):
    if T > T_MAX:
        raise ValueError(f"an input of {T} tokens is longer than the {T_MAX} positions the table was trained on")
    return P[np.arange(T)]


def embed_positions(ids):
    """The caller keeps the last T_MAX tokens (a sliding window) instead of inventing positions."""
    ids = ids[-T_MAX:]
    return ids, positions(len(ids))


def run_fixed():
    return check_positions(embed_positions(np.array([7, 3, 9, 1, 4, 2]))[1])


print(run_fixed())
ids = embed_positions(np.array([7, 3, 9, 1, 4, 2]))[0]
print(check_equal("the window keeps the last 4 tokens", ids.tolist(), [9, 1, 4, 2]))
try:
    positions(6)
    refused = False
except ValueError:
    refused = True
print(check_true("the fixed lookup refuses positions past the table instead of reusing rows", refused,
                 "positions(6) raised ValueError"))

# (a) with the broken wrap-around, position t reads row t mod T_MAX: how many positions share a row with another?
T_HI = 12


def sharing(T):
    rows = np.arange(T) % T_MAX
    return int(sum(np.sum(rows == rows[t]) > 1 for t in range(T)))


print(check_equal("(a) positions sharing a row: 0 up to T_max, 2(T - T_max) below 2 T_max, then all T (T = 1..12)",
                  [sharing(T) for T in range(1, T_HI + 1)],
                  [0 if T <= T_MAX else (2 * (T - T_MAX) if T < 2 * T_MAX else T) for T in range(1, T_HI + 1)]))
# (b) a causal model's output at every position of a 10-token text, from windows of at most T_MAX tokens.
N_TEXT = 10


def calls_and_context(stride):
    """Run windows [start, start + T_MAX) with the given stride (the last one ends at the text's end); each position
    takes its output from the window in which it sees the most earlier tokens. Returns (calls, earlier tokens seen)."""
    starts = list(range(0, N_TEXT - T_MAX + 1, stride))
    if starts[-1] + T_MAX < N_TEXT:
        starts.append(starts[-1] + stride if stride == T_MAX else N_TEXT - T_MAX)
    seen = {}
    for start in starts:
        for t in range(start, min(start + T_MAX, N_TEXT)):
            positions(min(start + T_MAX, N_TEXT) - start)     # the fixed lookup: it raises past the table
            seen[t] = max(seen.get(t, -1), t - start)
    return len(starts), [seen[t] for t in range(N_TEXT)]


calls_slide, ctx_slide = calls_and_context(1)
calls_block, ctx_block = calls_and_context(T_MAX)
print(check_equal("(b) sliding by one: 10 - T_max + 1 calls, and position t sees min(t, T_max - 1) earlier tokens",
                  (calls_slide, ctx_slide), (N_TEXT - T_MAX + 1, [min(t, T_MAX - 1) for t in range(N_TEXT)])))
print(check_equal("(b) windows that do not overlap: ceil(10 / T_max) calls, and position t sees t mod T_max earlier tokens",
                  (calls_block, ctx_block), (-(-N_TEXT // T_MAX), [t % T_MAX for t in range(N_TEXT)])))
print(glue("pt_calls_slide", calls_slide), glue("pt_ctx_slide", ctx_slide[8]), glue("pt_calls_block", calls_block),
      glue("pt_ctx_block", ctx_block[8]), glue("pt_T_hi", T_HI), sep="")
