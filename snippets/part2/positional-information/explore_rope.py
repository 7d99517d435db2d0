"""6.4 explorable: a query at position t and a key at position s, rotated by RoPE; the score
depends on s - t only. Every setting is computed here (a grid); the browser shows the chosen one."""
import numpy as np

from esm import check_close, rope_rotate
from esm.explore import Control, bar, explorable, out

rng = np.random.default_rng(6)
d, P = 16, 12                                      # one head's d_k (as in the demo above), positions 0..11
q, k = rng.normal(0, 1, d), rng.normal(0, 1, d)
score = np.array([[rope_rotate(q, t) @ rope_rotate(k, s) for s in range(P)] for t in range(P)])   # [t, s]
# The same scores by the relative route, q^T R_(s-t) k: rotate k alone by the offset.
relative = np.array([[q @ rope_rotate(k, s - t) for s in range(P)] for t in range(P)])
print(check_close(f"(R_t q)^T (R_s k) = q^T R_(s-t) k for all {P * P} pairs of positions", score, relative, atol=1e-12))
big = float(np.abs(score).max())


def span(x):
    """Inset of a bar from the middle axis to x (right for positive, left for negative)."""
    half = 50 * x / big
    return f"0 {50 - max(half, 0):.2f}% 0 {50 + min(half, 0):.2f}%"


states = {(t, s): [str(s - t), f"{score[t, s]:.3f}", f"{relative[t, s]:.3f}",
                   *[v for s2 in range(P) for v in (span(score[t, s2]), f"{score[t, s2]:.3f}")],
                   *["1" if s2 == s else "0" for s2 in range(P)]]           # the chosen key's row marked
          for t in range(P) for s in range(P)}
controls = [Control("query position t", range(P), default=2, say=[f"t = {t}" for t in range(P)]),
            Control("key position s", range(P), default=5, say=[f"s = {s}" for s in range(P)])]
assert d == 16   # the d_k of the demo above (rope.py), which the text quotes
dft = states[(2, 5)]
rows = ['<span class="esm-explore__head">key at</span><span class="esm-explore__head">score '
        '(R<sub>t</sub>q)·(R<sub>s′</sub>k) of the query at t with a key at s′</span>'
        '<span class="esm-explore__head">score</span>']
for s2 in range(P):
    o = 3 + 2 * s2
    rows.append(f'<span data-o="{3 + 2 * P + s2}" data-a="data-on" data-on="{dft[3 + 2 * P + s2]}">s′ = {s2}</span><span class="esm-explore__axis-box">{bar(o, dft[o], prop="inset")}</span>'
                f'{out(o + 1, dft[o + 1])}')
body = (f'<p class="esm-explore__sum" aria-live="polite">Offset s − t = {out(0, dft[0])}. Score (R<sub>t</sub>q)·(R<sub>s</sub>k) = '
        f'{out(1, dft[1])}; the offset alone, q·(R<sub>s−t</sub>k) = {out(2, dft[2])}.</p>'
        f'<div class="esm-explore__rows">{"".join(rows)}</div>')
print(explorable(controls, body, states=states,
                 caption=f"A random query and key (d_k = {d}) rotated by their positions. Moving t shifts the "
                         "whole column of scores along the keys: each score depends on s′ − t only. With a random "
                         "q and k no peak at offset 0 is expected; rows with s′ > t would be masked in a causal "
                         "model; ◀ marks s."))
