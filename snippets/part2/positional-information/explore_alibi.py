"""6.5 explorable: the ALiBi slope of each of 8 heads against distance: the bias -m d and the
weights of a query that sees 16 keys whose content scores are equal. Every setting is computed
here (a grid); the browser shows the chosen one."""
import numpy as np

from esm import alibi_bias, alibi_slopes, check_close, softmax
from esm.explore import Control, bar, explorable, out

H, T = 8, 16
m = alibi_slopes(H)                               # head h = 0..7 has slope m[h]
dist = np.arange(T)                               # distance of the key behind the query


def sig2(x):
    """Two significant figures, never in exponent form (the smallest weight is about 2e-4)."""
    s = f"{x + 0.0:.2g}"
    assert "e" not in s, s
    return s


states = {}
for h in range(H):
    w = softmax(-m[h] * dist)                     # equal content scores: the bias alone decides
    row = alibi_bias(T, m[h])[T - 1, ::-1]        # the last query's row, nearest key first
    assert np.array_equal(row, -m[h] * dist)
    half = int(np.searchsorted(np.cumsum(w), 0.5)) + 1
    states[(h,)] = [f"1/{round(1 / m[h])}", sig2(w[0]), sig2(w[-1]), str(half),
                    *[v for j in range(T) for v in (f"{100 * w[j]:.1f}%", sig2(-m[h] * j), sig2(w[j]))]]
    assert 1 / m[h] == round(1 / m[h])            # the slopes are 1/2, 1/4, ..., 1/256 exactly
# The weights by a second route: exp(-m d) over its sum, written out, for head 0.
ref = np.exp(-m[0] * dist) / np.exp(-m[0] * dist).sum()
print(check_close("head 0: softmax of the bias = exp(-m d) / sum over d of exp(-m d), written out", softmax(-m[0] * dist),
                  ref, atol=1e-15))
names = [f"head {h} (m = 1/{round(1 / m[h])})" for h in range(H)]
controls = [Control("head", names, default=0, kind="select", shown=[f"head {h}" for h in range(H)])]
dft = states[(0,)]
rows = ['<span class="esm-explore__head">distance</span><span class="esm-explore__head">weight (equal content '
        'scores)</span><span class="esm-explore__head">bias / weight</span>']
for j in range(T):
    o = 4 + 3 * j
    rows.append(f'<span>{j}</span>{bar(o, dft[o])}<span>{out(o + 1, dft[o + 1])} / {out(o + 2, dft[o + 2])}</span>')
body = (f'<p class="esm-explore__sum" aria-live="polite">Slope m = {out(0, dft[0])}: the nearest key gets weight {out(1, dft[1])}, '
        f'the key {T - 1} tokens back {out(2, dft[2])}; half the weight lies on the {out(3, dft[3])} nearest '
        f'key(s).</p><div class="esm-explore__rows">{"".join(rows)}</div>')
print(explorable(controls, body, states=states,
                 caption=f"The last of {T} queries, its keys at distances 0 to {T - 1}, all with the same content "
                         "score: the weights are the softmax of the bias −m·distance alone."))
