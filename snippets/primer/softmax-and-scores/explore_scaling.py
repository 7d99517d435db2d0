"""P4 explorable: the size of the query and key entries and the temperature, against the
attention weights of one query over 8 keys, with and without the 1/sqrt(d_k). Every setting is
computed here (a grid); the browser only shows the chosen one."""
import math

import numpy as np

from esm import check_close, check_true, softmax
from esm.explore import Control, bar, explorable, out

rng = np.random.default_rng(4)
d_k, n = 64, 8
q0, K0 = rng.normal(0, 1, d_k), rng.normal(0, 1, (n, d_k))   # entries of variance 1
sigmas = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0]
taus = [0.25, 0.5, 1.0, 2.0, 4.0]


def entropy_bits(a):
    a = a[a > 0]
    return float(-(a * np.log2(a)).sum())


def state(sigma, tau):
    s = (sigma * K0) @ (sigma * q0)                 # scores q.k_j with entries of size sigma
    raw, scaled = softmax(s, temperature=tau), softmax(s / math.sqrt(d_k), temperature=tau)
    out_ = [f"{entropy_bits(raw):.2f}", f"{raw.max():.3f}", f"{entropy_bits(scaled):.2f}", f"{scaled.max():.3f}"]
    for j in range(n):
        out_ += [f"{100 * raw[j]:.1f}%", f"{100 * scaled[j]:.1f}%", f"{raw[j]:.2f}", f"{scaled[j]:.2f}"]
    return out_


states = {(i, j): state(s, t) for i, s in enumerate(sigmas) for j, t in enumerate(taus)}
controls = [Control("entry size σ of q and k", sigmas, default=3, say=[f"sigma = {s}" for s in sigmas],
                    shown=[f"σ = {s:g}" for s in sigmas]),
            Control("temperature τ", taus, default=2, say=[f"temperature {t}" for t in taus],
                    shown=[f"τ = {t:g}" for t in taus])]
# Only sigma^2 / tau matters: the scores are sigma^2 q0.k_j, divided by tau. A setting with the
# same ratio as the default (sigma = 1, tau = 1), found from the lists, shows the same weights.
twin = max(((i, j) for i, s in enumerate(sigmas) for j, t in enumerate(taus) if s * s / t == 1 and s != 1),
           key=lambda ij: sigmas[ij[0]])                # the largest sigma with that ratio
d = states[(3, 2)]
same = sum(a == b for a, b in zip(states[twin], d))
print(check_true(f"the figure shows the same numbers at sigma = {sigmas[twin[0]]:g}, tau = {taus[twin[1]]:g} "
                 "as at sigma = 1, tau = 1", same == len(d) == len(states[twin]), f"{same} of {len(d)} shown numbers equal"))
# The weights displayed at sigma = 1, tau = 1, against the twin setting's weights by another route:
# a loop of dot products of the sigma-sized entries and math.exp, no softmax helper.
sg, tg = sigmas[twin[0]], taus[twin[1]]


def loop_weights(divide):
    s_ = [sum((sg * q) * (sg * k) for q, k in zip(q0, K0[j])) / (divide * tg) for j in range(n)]
    e_ = [math.exp(x - max(s_)) for x in s_]
    return np.array([x / sum(e_) for x in e_])


shown = np.array([[float(d[4 + 4 * j + c].rstrip("%")) / 100 for c in (0, 1)] for j in range(n)])
print(check_close(f"the weights shown at sigma = 1, tau = 1 (orange, blue) = the weights at sigma = {sg:g}, tau = {tg:g} "
                  "by a loop of dot products and exponentials, to the one decimal of a percent shown",
                  shown, np.stack([loop_weights(1.0), loop_weights(math.sqrt(d_k))], axis=1), atol=0.0005 + 1e-9))
rows = ['<span class="esm-explore__head">key</span><span class="esm-explore__head">orange: softmax(q·k/τ); '
        'blue: softmax(q·k/(√d<sub>k</sub> τ))</span><span class="esm-explore__head">weights: orange / blue</span>']
for j in range(n):
    o = 4 + 4 * j
    rows.append(f'<span>k<sub>{j}</sub></span><span>{bar(o, d[o], extra=" esm-explore__bar--alt")}{bar(o + 1, d[o + 1])}'
                f'</span><span>{out(o + 2, d[o + 2])} / {out(o + 3, d[o + 3])}</span>')
body = (f'<div class="esm-explore__rows">{"".join(rows)}</div>'
        f'<p class="esm-explore__sum" aria-live="polite">Without 1/√d<sub>k</sub>: entropy {out(0, d[0])} bits, largest weight '
        f'{out(1, d[1])}. With it: entropy {out(2, d[2])} bits, largest weight {out(3, d[3])}. '
        f'(Uniform over {n} keys: {math.log2(n):.0f} bits.)</p>')
print(explorable(controls, body, states=states,
                 caption=f"One query against {n} keys, d_k = {d_k}, entries drawn once from a normal distribution "
                         "and multiplied by σ (so the scores grow as σ²). Only σ²/τ matters: "
                         f"σ = {sigmas[twin[0]]:g}, τ = {taus[twin[1]]:g} shows the same weights as σ = 1, τ = 1."))
# The entropy by a second route: natural logarithm over the weights, converted to bits.
a = softmax((K0 @ q0) / math.sqrt(d_k))
print(check_close("entropy of the scaled weights at sigma = 1, tau = 1: -sum a ln a / ln 2 (loop) = the shown value",
                  round(-sum(x * math.log(x) for x in a) / math.log(2), 2), float(d[2]), atol=0.0))
