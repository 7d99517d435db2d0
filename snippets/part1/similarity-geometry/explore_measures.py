"""Section 3 explorable: a vector b of chosen length and angle against a fixed a = (2, 0): the
dot product, the cosine and the Euclidean distance side by side. Every setting is computed here
(a grid); the browser shows the chosen one."""
import math

import numpy as np

from esm import check_close, cosine
from esm.explore import Control, bar, explorable, out

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
        states[(i, j)] = [f"{dot:.2f}", f"{cos:.3f}", f"{dist:.2f}",
                          f"translate(60 60) rotate({-deg}) scale({20 * r:g})",
                          f"{50 * (dot / 6 + 1):.1f}%", f"{50 * (cos + 1):.1f}%", f"{100 * dist / 5:.1f}%"]
print(check_close(f"|a - b|^2 = |a|^2 + |b|^2 - 2 a.b at all {len(laws)} settings (law of cosines)",
                  [x for x, _ in laws], [y for _, y in laws], atol=1e-12))
controls = [Control("length |b|", lengths, default=3, say=[f"length {r}" for r in lengths]),
            Control("angle θ (degrees)", angles, default=3, say=[f"angle {d} degrees" for d in angles])]
d = states[(3, 3)]
pic = ('<svg class="esm-explore__pic" viewBox="0 0 120 70" width="180" height="105" role="img" '
       'aria-label="vector a along the horizontal axis and vector b at the chosen length and angle">'
       '<line x1="0" y1="60" x2="120" y2="60" stroke="currentColor" stroke-opacity="0.3"/>'
       '<line x1="60" y1="60" x2="100" y2="60" stroke="#e8772e" stroke-width="3" stroke-linecap="round"/>'
       f'<g data-o="3" data-a="transform" transform="{d[3]}"><line x1="0" y1="0" x2="1" y2="0" stroke="#2f7fd0" '
       'stroke-width="3" stroke-linecap="round" vector-effect="non-scaling-stroke"/></g></svg>')
rows = ['<span class="esm-explore__head">measure</span><span class="esm-explore__head">on its range</span>'
        '<span class="esm-explore__head">value</span>',
        f'<span>dot a·b</span>{bar(4, d[4])}{out(0, d[0])}',
        f'<span>cosine</span>{bar(5, d[5])}{out(1, d[1])}',
        f'<span>distance |a − b|</span>{bar(6, d[6])}{out(2, d[2])}']
body = f'{pic}<div class="esm-explore__rows" aria-live="polite">{"".join(rows)}</div>'
print(explorable(controls, body, states=states,
                 caption="a = (2, 0) in orange, b in blue. Bars: the dot product on −6 to 6, the cosine on −1 to 1, "
                         "the distance on 0 to 5. Changing |b| alone moves the dot product and the distance, "
                         "never the cosine. Shown: |b| = 2, θ = 45°."))
