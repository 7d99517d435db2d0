"""8.2 explorable: bits per code and group size against the quantisation error of a table.
Symmetric codes per group of G entries of a row: scale = max |x| / (2^(b-1) - 1), code =
round(x / scale). Every setting is computed here (a grid); the browser shows the chosen one."""
import numpy as np

from esm import check_less
from esm.explore import Control, bar, explorable, out

rng = np.random.default_rng(82)
V, d = 1000, 64                                            # the table of the demo above, drawn the same way
E = rng.normal(0.0, 1.0, (V, d)) * np.exp(rng.normal(0.0, 0.5, (V, 1))) / np.sqrt(d)
bits = [2, 3, 4, 5, 6, 8]
groups = [8, 16, 32, 64]


def quantise(X, b, G):
    Xg = X.reshape(V, d // G, G)
    scale = np.abs(Xg).max(axis=2, keepdims=True) / (2 ** (b - 1) - 1)
    return (np.round(Xg / scale) * scale).reshape(V, d)


top = 0.8                                                  # the error bar spans 0 to 0.8
states = {}
for i, b in enumerate(bits):
    for j, G in enumerate(groups):
        Eh = quantise(E, b, G)
        rel = float(np.linalg.norm(E - Eh) / np.linalg.norm(E))
        cos = np.sum(E * Eh, 1) / (np.linalg.norm(E, axis=1) * np.linalg.norm(Eh, axis=1))
        per = b / 8 + 4 / G                                    # bytes per entry: the code and a float32 scale per group
        # the half-step bound: no entry misses by more than half its group's scale
        step = np.repeat(np.abs(E.reshape(V, d // G, G)).max(axis=2) / (2 ** (b - 1) - 1), G, axis=1)
        assert np.all(np.abs(E - Eh) <= step / 2 * (1 + 1e-12))
        states[(i, j)] = [f"{rel:.4f}", f"{cos.min():.4f}", f"{per:.3f}", f"{4 / per:.1f}",
                          f"{min(100.0, 100 * rel / top):.1f}%", f"{100 * per / 4:.1f}%"]
print(check_less("more bits never raise the error (every group size, each step of the bit slider)",
                 max(float(states[(i + 1, j)][0]) - float(states[(i, j)][0]) for i in range(len(bits) - 1)
                     for j in range(len(groups))), 1e-12, names=("largest rise", "1e-12")))
print(check_less(f"the largest error (b = {bits[0]}) fits on the error bar's 0 to {top}",
                 max(float(v[0]) for v in states.values()), top, names=("largest error", "bar's end")))
controls = [Control("bits per code b", bits, default=2, say=[f"{b} bits" for b in bits],
                    shown=[f"b = {b}" for b in bits]),
            Control("group size G", groups, default=1, kind="select", shown=[f"G = {g}" for g in groups])]
dft = states[(2, 1)]
rows = ['<span class="esm-explore__head">measure</span><span class="esm-explore__head">bar</span>'
        '<span class="esm-explore__head">value</span>',
        f'<span>relative error |E − Ê| / |E|</span>{bar(4, dft[4], extra=" esm-explore__bar--alt")}{out(0, dft[0])}',
        f'<span>bytes per entry (float32: 4)</span>{bar(5, dft[5])}{out(2, dft[2])}']
body = (f'<div class="esm-explore__rows esm-explore__rows--stack">{"".join(rows)}</div><p class="esm-explore__sum" aria-live="polite">Smallest cosine between '
        f'a row and its copy: {out(1, dft[1])}; the table is {out(3, dft[3])} times smaller than in float32.</p>')
print(explorable(controls, body, states=states,
                 caption=f"A {V:,} × {d} table quantised in groups of G entries of a row, b bits per code and one "
                         "float32 scale per group, with a symmetric code: the integers from −(2ᵇ⁻¹ − 1) to "
                         f"2ᵇ⁻¹ − 1 (at b = 4, {-(2 ** 3 - 1)} to {2 ** 3 - 1}; Q4_0's lopsided code is −8 to 7). The "
                         f"error is relative, in the Frobenius norm over the table; its bar spans 0 to {top}, the "
                         "bytes bar 0 to 4."))
