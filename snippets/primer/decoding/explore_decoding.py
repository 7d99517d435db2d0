"""P12 explorable: temperature, k and the top-p threshold xi on the tiny model's next-token
distribution. The figure shows tau = 0.5, k = 5, xi = 0.9 (the settings of the demo above);
the browser computes the other settings from these logits (docs/javascripts/explore.js), and a
browser test compares them with numpy's (tests/browser/test_explore.py)."""
import collections

import numpy as np

from esm import TINY, check_equal, gpt_forward, softmax, tiny_gpt
from esm.explore import Control, bar, explorable, out

z = gpt_forward(np.array([3, 14, 15, 9, 26, 5, 35, 8]), tiny_gpt())[-1]   # the context of the demo above
V, N = TINY["V"], 12                                   # the 12 most likely tokens are shown
order = np.argsort(-z, kind="stable")                  # most likely first, at every temperature
taus = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0]
ks = [*range(1, N + 1), V]
xis = [round(0.05 * i, 2) for i in range(1, 21)]


def state(tau, k, xi):
    """Tokens kept, their mass, per shown token p_tau, q (renormalised) and dropped or not; then
    "token(s)" and which rule binds (as docs/javascripts/explore.js computes them)."""
    p = softmax(z, temperature=tau)
    run = np.cumsum(p[order])
    kept = min(k, int(np.searchsorted(run, xi)) + 1)   # at most k; stop once the mass reaches xi
    mass = float(run[kept - 1])
    s = [str(kept), f"{mass:.3f}"]
    for r, j in enumerate(order[:N]):
        q = p[j] / mass if r < kept else 0.0
        s += [f"{100 * p[j]:.2f}%", f"{100 * q:.2f}%", f"{q:.3f}" if r < kept else "0", "0" if r < kept else "1"]
    by_k, by_p = kept == k and k < V, mass >= xi and xi < 1      # k = V or xi = 1 turns a rule off
    rule = ("top-k and top-p bind together" if by_k and by_p else "top-k binds" if by_k
            else "top-p binds" if by_p else "neither rule binds")
    return s + ["token" if kept == 1 else "tokens", rule]


controls = [Control("temperature τ", taus, default=1, say=[f"temperature {t}" for t in taus],
                    shown=[f"τ = {t}" for t in taus]),
            Control(f"top-k size k (last step: {V} = all)", ks, default=4, say=[f"k = {k}" for k in ks],
                    shown=[f"k = {k}" for k in ks]),
            Control("top-p threshold ξ", xis, default=17, say=[f"xi = {x}" for x in xis],
                    shown=[f"ξ = {x}" for x in xis])]
default = state(0.5, 5, 0.9)
rows = ['<span class="esm-explore__head">token</span><span class="esm-explore__head">'
        'grey: p<sub>τ</sub>; blue: renormalised q</span><span class="esm-explore__head">q</span>']
for r, j in enumerate(order[:N]):
    o = 2 + 4 * r
    rows.append(f'<span>id {j}</span><span class="esm-explore__pair" data-o="{o + 3}" data-a="data-off" '
                f'data-off="{default[o + 3]}">{bar(o, default[o], extra=" esm-explore__bar--ghost")}'
                f'{bar(o + 1, default[o + 1])}</span>{out(o + 2, default[o + 2])}')
body = (f'<div class="esm-explore__rows">{"".join(rows)}</div>'
        f'<p class="esm-explore__sum" aria-live="polite">Kept: {out(0, default[0])} {out(2 + 4 * N, default[2 + 4 * N])}, '
        f'holding {out(1, default[1])} of the mass of p<sub>τ</sub>; {out(3 + 4 * N, default[3 + 4 * N])} '
        f'(k = {V} or ξ = 1 turns a rule off). Only the {N} most likely of the {V} tokens are shown.</p>')
print(explorable(controls, body, kind="decode", data={"z": z.tolist(), "order": order.tolist(),
                                                       "shown": order[:N].tolist()},
                 caption=f"The tiny model's {N} most likely next tokens after the context above. "
                         "A token is kept when it is among the k most likely and the more likely tokens "
                         "hold less than ξ of the mass of p_τ = softmax(z / τ); the kept tokens are "
                         "renormalised to q."))
# The kept set and the rule that binds, found by a second route at every setting of the controls: the
# tokens sorted by a Python sort, then kept one by one until k are kept or their mass reaches xi. Where
# at most N tokens are kept, the set is read off the figure's own "dropped" flags; elsewhere the count.
same, binds = 0, collections.Counter()
for tau in taus:
    p = softmax(z, temperature=tau)
    for k in ks:
        for xi in xis:
            loop, mass = [], 0.0
            for j in sorted(range(V), key=lambda j: (-p[j], j)):
                loop.append(j)
                mass += p[j]
                if len(loop) == k or mass >= xi:
                    break
            shown = state(tau, k, xi)
            by_k, by_p = len(loop) == k and k < V, mass >= xi and xi < 1
            rule = ("top-k and top-p bind together" if by_k and by_p else "top-k binds" if by_k
                    else "top-p binds" if by_p else "neither rule binds")
            kept = ({int(order[r]) for r in range(N) if shown[5 + 4 * r] == "0"} if len(loop) <= N
                    else int(shown[0]))
            same += kept == (set(loop) if len(loop) <= N else len(loop)) and shown[-1] == rule
            binds[rule] += 1
settings = len(taus) * len(ks) * len(xis)
print(check_equal(f"kept set and binding rule = those found by a loop over sorted tokens, at every one of the "
                  f"{settings} settings ({', '.join(f'{r}: {n}' for r, n in sorted(binds.items()))})",
                  same, settings))
