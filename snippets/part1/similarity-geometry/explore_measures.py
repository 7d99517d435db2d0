"""Section 3 explorable: a vector b of chosen length and angle against a fixed a = (2, 0): the
dot product, the cosine and the Euclidean distance side by side. Every setting is computed here
(a grid); the browser shows the chosen one."""
import math

import numpy as np

from esm import check_close, cosine
from esm.explore import Control, bar, diverging, explorable, out

a = np.array([2.0, 0.0])
lengths = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
angles = list(range(0, 181, 15))
states, laws = {}, []
for i, r in enumerate(lengths):
    for j, deg in enumerate(angles):
        th = math.radians(deg)
        b = np.array([r * math.cos(th), r * math.sin(th)])
        dot, cos, dist = float(a @ b), cosine(a, b), float(np.linalg.norm(a - b))
        laws.append((dist ** 2, 4 + r * r - 2 * dot))          # law of cosines, |a-b|^2 = |a|^2 + |b|^2 - 2 a.b
        tip = (60 + 20 * b[0], 60 - 20 * b[1])                   # b's tip in the drawing (20 units a unit, y up)
        lab = (60 + (20 * r + 8) * math.cos(th), 60 - (20 * r + 8) * math.sin(th))   # its label, past the tip
        states[(i, j)] = [f"{dot:.2f}", f"{cos:.3f}", f"{dist:.2f}",
                          f"{tip[0]:.2f}", f"{tip[1]:.2f}",
                          diverging(dot, 6), diverging(cos, 1), f"{100 * dist / 5:.1f}%",
                          f"{lab[0]:.2f}", f"{lab[1]:.2f}"]
print(check_close(f"|a - b|^2 = |a|^2 + |b|^2 - 2 a.b at all {len(laws)} settings (law of cosines)",
                  [x for x, _ in laws], [y for _, y in laws], atol=1e-12))
controls = [Control("length |b|", lengths, default=3, say=[f"length {r}" for r in lengths],
                    shown=[f"|b| = {r:g}" for r in lengths]),
            Control("angle θ (degrees)", angles, default=3, say=[f"angle {d} degrees" for d in angles],
                    shown=[f"θ = {d}°" for d in angles])]
d = states[(3, 3)]
arrow = ('<marker id="esm-arrow-{0}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" '
         'markerUnits="userSpaceOnUse" orient="auto"><path d="M0 0L10 5L0 10z" fill="{1}"/></marker>')
pic = ('<svg class="esm-explore__pic" viewBox="-14 -14 148 90" width="222" height="135" role="img" '
       'aria-label="vector a along the horizontal axis, vector b at the chosen length and angle, and a − b '
       'dashed from the tip of b to the tip of a">'
       f'<defs>{arrow.format("a", "#e8772e")}{arrow.format("b", "#2f7fd0")}</defs>'
       '<line x1="-10" y1="60" x2="130" y2="60" stroke="currentColor" stroke-opacity="0.3"/>'
       f'<line data-o="3 4" data-a="x1 y1" x1="{d[3]}" y1="{d[4]}" x2="100" y2="60" stroke="currentColor" stroke-opacity="0.6" '
       'stroke-width="1.5" stroke-dasharray="4 3"/>'
       '<line x1="60" y1="60" x2="100" y2="60" stroke="#e8772e" stroke-width="3" marker-end="url(#esm-arrow-a)"/>'
       f'<line x1="60" y1="60" data-o="3 4" data-a="x2 y2" x2="{d[3]}" y2="{d[4]}" stroke="#2f7fd0" stroke-width="3" '
       'marker-end="url(#esm-arrow-b)"/>'
       '<text x="80" y="72" font-size="10" font-style="italic" text-anchor="middle" fill="currentColor">a</text>'
       f'<text data-o="8 9" data-a="x y" x="{d[8]}" y="{d[9]}" font-size="10" font-style="italic" text-anchor="middle" '
       'dominant-baseline="middle" fill="currentColor">b</text></svg>')
rows = ['<span class="esm-explore__head">measure</span><span class="esm-explore__head">on its range</span>'
        '<span class="esm-explore__head">value</span>',
        f'<span>dot a·b</span><span class="esm-explore__axis-box">{bar(5, d[5], prop="inset")}</span>{out(0, d[0])}',
        f'<span>cosine</span><span class="esm-explore__axis-box">{bar(6, d[6], prop="inset")}</span>{out(1, d[1])}',
        f'<span>distance |a − b|</span>{bar(7, d[7])}{out(2, d[2])}']
body = (f'{pic}<div class="esm-explore__rows">{"".join(rows)}</div>'
        f'<p class="esm-explore__sum" aria-live="polite">Dot {out(0, d[0])}, cosine {out(1, d[1])}, '
        f'distance {out(2, d[2])}.</p>')
print(explorable(controls, body, states=states,
                 caption="a = (2, 0) in orange, b in blue, a − b dashed. Bars: the dot product on −6 to 6 and the "
                         "cosine on −1 to 1, each from the zero line in the middle; the distance on 0 to 5. "
                         "Changing |b| alone moves the dot product (except at 90°) and the distance, "
                         "never the cosine."))
