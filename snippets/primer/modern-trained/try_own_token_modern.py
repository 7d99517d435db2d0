"""Try this: measure P10's own-token logit on the modern model at its initialisation instead of GPT-2's.
With no position table, the stream starts as the token's row alone, and the final norm divides it by
about sigma instead of sigma sqrt 2: the own-token logit stands about sqrt(d) standard deviations
above the other logits instead of sqrt(d/2), far higher than in GPT-2's model."""
import math

import numpy as np

from esm import check_less
from esm.backprop import forward
from esm.initialise import init_gpt2
from esm.modern import forward as forward_modern, init_modern
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import MODERN, TRAIN

D = data()
V, T, d, L, H = VOCAB_SIZE, TRAIN["T"], TRAIN["d"], TRAIN["L"], TRAIN["n_heads"]
n_win = TRAIN["eval_batches"] * TRAIN["batch"]                 # P10's validation windows
starts = np.linspace(0, len(D.val) - T - 2, n_win).astype(int)
xs = np.stack([D.val[s:s + T] for s in starts])


def height(Z):
    """The own-token logit's height above the other logits, in their standard deviations, averaged
    over the positions (P10's measure)."""
    z_x = np.take_along_axis(Z, xs[..., None], -1)[..., 0]
    others = np.ones(Z.shape, dtype=bool)
    np.put_along_axis(others, xs[..., None], False, -1)
    rest = np.where(others, Z, np.nan)
    return float(((z_x - np.nanmean(rest, -1)) / np.nanstd(rest, -1)).mean())


h_gpt2 = height(forward(init_gpt2(TRAIN["seed"], V, T, d, L, H), xs))
h_mod = height(forward_modern(init_modern(TRAIN["seed"], V, d, L, H, MODERN["d_ff"]), xs))   # changed: was init_gpt2
print(f"own-token logit's height: {h_gpt2:.2f} for GPT-2's model, {h_mod:.2f} for the modern one; "
      f"sqrt(d/2) = {math.sqrt(d / 2):.2f}, sqrt(d) = {math.sqrt(d):.2f}")
print(check_less("the modern model's own-token logit stands closer to sqrt(d) than to sqrt(d/2) standard deviations",
                 abs(h_mod - math.sqrt(d)), abs(h_mod - math.sqrt(d / 2)),
                 names=("distance to sqrt(d)", "to sqrt(d/2)")))
print(check_less("... more than 2 standard deviations higher than in GPT-2's model at the same seed", h_gpt2 + 2, h_mod,
                 names=("GPT-2's height + 2", "modern height")))
