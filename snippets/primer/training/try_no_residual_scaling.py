"""Try this: draw W_O and W_2 with standard deviation 0.02 instead of 0.02 / sqrt(2L). Each block's
two terms are linear in those weights, so the blocks add about 2L = 4 times as much variance to the
stream, and the tied head's own-token logit, divided down by the larger stream, stands lower."""
import math

import numpy as np

from esm import check_close, check_less
from esm.backprop import forward
from esm.initialise import init_gpt2
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN

D = data()
V, T, d, L, H = VOCAB_SIZE, TRAIN["T"], TRAIN["d"], TRAIN["L"], TRAIN["n_heads"]
n_win = TRAIN["eval_batches"] * TRAIN["batch"]                 # the validation windows of the page's demo
starts = np.linspace(0, len(D.val) - T - 2, n_win).astype(int)
xs = np.stack([D.val[s:s + T] for s in starts])


def own_token(model):
    """r, the variance the blocks add to the stream as a share of the tables', and the own-token logit's
    height in standard deviations of the other logits (the page's measures)."""
    Z, (_, _, _, (xhat, rstd, _)) = forward(model, xs, keep=True)
    S = model["E"][xs] + model["P"][:T]
    S = S - S.mean(-1, keepdims=True)
    r = float(((xhat / rstd - S) ** 2).sum(-1).mean() / (S ** 2).sum(-1).mean())
    z_x = np.take_along_axis(Z, xs[..., None], -1)[..., 0]
    others = np.ones(Z.shape, dtype=bool)
    np.put_along_axis(others, xs[..., None], False, -1)
    rest = np.where(others, Z, np.nan)
    return r, float(((z_x - np.nanmean(rest, -1)) / np.nanstd(rest, -1)).mean())


r_scaled, h_scaled = own_token(init_gpt2(TRAIN["seed"], V, T, d, L, H))
model = init_gpt2(TRAIN["seed"], V, T, d, L, H)
for p in model["blocks"]:
    p["W_O"] *= math.sqrt(2 * L)                               # changed: was drawn with std 0.02 / sqrt(2L)
    p["W_2"] *= math.sqrt(2 * L)                               # changed: was drawn with std 0.02 / sqrt(2L)
r_raw, h_raw = own_token(model)
print(f"blocks' share r of the stream's variance: {r_scaled:.2f} scaled, {r_raw:.2f} unscaled; "
      f"own-token logit's height: {h_scaled:.2f} scaled, {h_raw:.2f} unscaled")
print(check_close(f"without the scaling the blocks add about 2L = {2 * L} times the variance (within 0.5)",
                  r_raw / r_scaled, 2 * L, atol=0.5))
print(check_less("the own-token logit no longer stands 4 standard deviations above the others", h_raw, 4.0,
                 names=("height", "4")))
print(check_close("sqrt(d/2) / sqrt(1 + r) still predicts its height, within 0.4", h_raw,
                  math.sqrt(d / 2) / math.sqrt(1 + r_raw), atol=0.4))
