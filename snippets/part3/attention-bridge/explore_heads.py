"""7.3 explorable: any of all-MiniLM-L6-v2's heads, chosen by layer and head, on the sentence of
the demo above: its weights as a heat map and six means that sort heads into kinds. Every head
is computed here; the browser shows the chosen one."""
import math

import matplotlib
import numpy as np

from esm import check_close, check_equal, check_less, glue, minilm_attention, table
from esm.explore import DIGITS, Control, bar, explorable, heatmap, out

TEXT = "The cat sat on the mat because it was warm."      # the sentence of the demo above
tokens, A = minilm_attention(TEXT, np.float64)             # (L, H, T, T): A[l-1, h, t, s]
L, H, T, _ = A.shape
steps = 31                                                 # colours 0 .. 31, weight 0 .. 1
palette = [matplotlib.colors.to_hex(c) for c in matplotlib.colormaps["viridis"](np.linspace(0, 1, steps + 1))]


def means(a):
    """Mean over query rows of the weight on the previous key, itself, the next key, [CLS] and
    [SEP], and the mean entropy of a row in nats (0: one key; ln T: all keys alike)."""
    ent = -np.sum(np.where(a > 0, a * np.log(np.where(a > 0, a, 1)), 0), axis=1)
    return [np.diagonal(a, -1).mean(), np.diagonal(a).mean(), np.diagonal(a, 1).mean(),
            a[:, 0].mean(), a[:, -1].mean(), ent.mean()]


stats = np.array([[means(A[l, h]) for h in range(H)] for l in range(L)])       # (L, H, 6)
codes = {(l, h): "".join(DIGITS[int(c)] for c in np.rint(steps * A[l, h]).ravel()) for l in range(L) for h in range(H)}
read = A.mean(axis=2)                                      # (L, H, T): mean weight each key gets from a row
top = math.log(T)
states = {(l, h): [f"{v:.2f}" for v in stats[l, h]]
          + [f"{100 * v:.1f}%" for v in stats[l, h, :5]] + [f"{100 * stats[l, h, 5] / top:.1f}%"]
          + [tokens[int(read[l, h].argmax())], f"{read[l, h].max():.2f}", f"{100 * read[l, h].max():.1f}%"]
          for l in range(L) for h in range(H)}
for (l, h), v in states.items():                           # what a screen reader hears when a control moves
    v.append(f"Layer {l + 1}, head {h}: weight on the previous token {v[0]}, on itself {v[1]}, on the next token "
             f"{v[2]}, on [CLS] {v[3]}, on [SEP] {v[4]}; heaviest column {v[12]}, {v[13]}; entropy {v[5]} nats.")
default = (0, 2)
dft = states[default]
names = [f"weight on {n}" for n in ("the previous token", "itself", "the next token", "[CLS]", "[SEP]")]
rows = [f'<span class="esm-explore__head">mean over the rows</span><span class="esm-explore__head">bar</span>'
        '<span class="esm-explore__head">value</span>']
rows += [f'<span>{n}</span>{bar(6 + k, dft[6 + k])}{out(k, dft[k])}' for k, n in enumerate(names)]
rows.append(f'<span>weight on the heaviest column, {out(12, dft[12], tag="b")}</span>{bar(14, dft[14])}{out(13, dft[13])}')
rows.append(f'<span>entropy of a row, nats (at most {top:.2f})</span>{bar(11, dft[11], extra=" esm-explore__bar--alt")}'
            f'{out(5, dft[5])}')
legend = (f'<p class="esm-heat__legend">rows: queries, columns: keys; weight 0 <span style="background:'
          f'linear-gradient(to right, {", ".join(palette[::steps // 4 + 1] + palette[-1:])})"></span> 1</p>')
body = (heatmap(codes[default], palette, tokens, tokens,
                label="Heat map of the chosen head's weights: row t is query position t, column s key position s")
        + legend + f'<div class="esm-explore__rows esm-explore__rows--stack">{"".join(rows)}</div>'
        f'<p class="esm-explore__said" aria-live="polite">{out(15, dft[15])}</p>')
controls = [Control("layer", range(1, L + 1), kind="select", shown=[f"layer {l}" for l in range(1, L + 1)]),
            Control("head", range(H), default=default[1], kind="select", shown=[f"head {h}" for h in range(H)])]
print(explorable(controls, body, states=states, heat=(palette, codes),
                 caption=f"The attention weights of any of the {L * H} heads of all-MiniLM-L6-v2 for '{TEXT}' "
                         f"(layers counted from 1, heads from 0): row t is where query position t reads from, its "
                         f"colour the weight from 0 to 1 ({steps + 1} steps). The bars are means over the rows (the "
                         f"previous and the next token over the {T - 1} rows that have one) and may overlap: the "
                         f"first row's own key is [CLS]. Weight bars span 0 to 1, entropy's 0 to ln {T} = {top:.2f} "
                         f"nats, a row that reads all {T} keys alike."))

# The layers side by side: the mean over its heads of the weight on [CLS] and of a row's entropy.
print(table(["layer"] + [str(l) for l in range(1, L + 1)],
            [["weight on [CLS], mean over the heads"] + [f"{x:.2f}" for x in stats[..., 3].mean(axis=1)],
             ["entropy of a row, nats, mean over the heads"] + [f"{x:.2f}" for x in stats[..., 5].mean(axis=1)]]))

# The six means by a loop over query rows, entry by entry; the colour codes decoded back.
loop = np.array([[[sum(A[l, h, t, t - 1] for t in range(1, T)) / (T - 1), sum(A[l, h, t, t] for t in range(T)) / T,
                   sum(A[l, h, t, t + 1] for t in range(T - 1)) / (T - 1), sum(A[l, h, t, 0] for t in range(T)) / T,
                   sum(A[l, h, t, T - 1] for t in range(T)) / T,
                   sum(-sum(x * math.log(x) for x in A[l, h, t] if x > 0) for t in range(T)) / T]
                  for h in range(H)] for l in range(L)])
print(check_close(f"the six means of all {L * H} heads equal a loop over query rows", stats, loop, atol=1e-12))
back = np.array([[[DIGITS.index(c) for c in codes[(l, h)]] for h in range(H)] for l in range(L)]).reshape(A.shape)
print(check_less(f"every cell's colour is the nearest of {steps + 1} steps: within half a step of its weight",
                 float(np.abs(back / steps - A).max()), 0.5 / steps + 1e-12, names=("largest miss", "half a step")))


def heads(k):
    """(layer, head) of the heads whose k-th mean (0: previous token ... 4: [SEP]) exceeds one half."""
    return [(int(l) + 1, int(h)) for l, h in zip(*np.nonzero(stats[..., k] > 0.5))]


print(check_equal("the heads giving the previous token more than half: the first panel's alone", heads(0), [(1, 2)]))
print(check_equal("the heads giving the next token more than half: the second panel's alone", heads(2), [(2, 8)]))
print(check_equal("by layer, the first and the last give [CLS] the least weight and have the largest entropy",
                  [sorted(int(i) + 1 for i in np.argsort(stats[..., k].mean(axis=1))[sl]) for k, sl in ((3, np.s_[:2]), (5, np.s_[-2:]))],
                  [[1, L], [1, L]]))
def name(i):
    return f"layer {i // H + 1}, head {i % H}"


wide = np.argsort(stats[..., 5].ravel())[::-1][:2]                  # the two heads of largest mean entropy
mixed = np.argsort(stats[..., 2].ravel())[::-1][1:3]                # next-token weight: second and third
print(check_less("the two heads of next-token weight after layer 2, head 8 give [CLS] more than 0.4 too", 0.4,
                 float(stats[..., 3].ravel()[mixed].min()), names=("0.4", "their smaller [CLS] weight")))
print(glue("mlx_wide", " and ".join(name(i) for i in wide)), glue("mlx_mixed", " and ".join(name(i) for i in mixed)), sep="")
print(glue("mlx_heads", L * H), glue("mlx_cls_heads", len(heads(3))), glue("mlx_sep_bound", math.ceil(100 * float(stats[..., 4].max())) / 100, ".2f"),
      glue("mlx_T", T), glue("mlx_top", top, ".2f"), sep="")
