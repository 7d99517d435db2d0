"""P11 The model at initialisation: P7's tiny GPT at the size trained here, the GPT-2 paper's initialisation,
and the initial loss against log |V| (and against P7's demonstration scale 0.3)."""
import inspect
import math

import numpy as np

from esm import check_close, check_less, check_true, glue, gpt_forward, init_gpt, shape_table
from esm.backprop import forward, init_gpt2, param_arrays
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, evaluate

D = data()
LOUD = 0.3                                                # P7's scale (esm.init_gpt's default)
V, T, d, L, H = VOCAB_SIZE, TRAIN["T"], TRAIN["d"], TRAIN["L"], TRAIN["n_heads"]
model = init_gpt2(TRAIN["seed"], V, T, d, L, H)
n_params = sum(a.size for a in param_arrays(model).values())
print(glue("std", inspect.signature(init_gpt2).parameters["std"].default, ".2f"), glue("loud", LOUD, ".1f"))
print(glue("d", d), glue("L", L), glue("H", H), glue("T", T), glue("n_params", n_params, ","),
      glue("std_res", 0.02 / math.sqrt(2 * L), ".4f"))

x = np.stack([D.val[s:s + T] for s in (0, 1000, 2000, 3000)])
Z = forward(model, x)
print(shape_table({"B": 4, "T": T, "V": V, "d": d}, [
    ("token table (and head)", "E", model["E"], "V d", "tied: logits $=X_{\\mathrm f}E^\\top$"),
    ("position table", "P", model["P"], "T d", "learned, one row per position"),
    ("a batch of windows", "X", x, "B T", "token ids"),
    ("logits", "Z", Z, "B T V", "row $t$ scores token $t+1$"),
]))
# The model is P7's: esm.gpt_forward (chapter P7's code) gives the same logits.
print(check_close("logits of this module's forward pass = P7's gpt_forward on the same weights", Z, gpt_forward(x, model),
                  atol=1e-12))
# [init]: the residual projections' spread is 0.02 / sqrt(2L), the other matrices' 0.02.
std_O = np.std(np.concatenate([b[k].ravel() for b in model["blocks"] for k in ("W_O", "W_2")]))
std_Q = np.std(np.concatenate([b[k].ravel() for b in model["blocks"] for k in ("W_Q", "W_K", "W_V", "W_1")]))
print(check_close("sample std of the entries of W_O and W_2 = 0.02 / sqrt(2L)", std_O, 0.02 / math.sqrt(2 * L),
                  rtol=0.02, atol=0, eq="init"))
print(check_close("sample std of the entries of W_Q, W_K, W_V and W_1 = 0.02", std_Q, 0.02, rtol=0.02, atol=0, eq="init"))

# [init-loss]: at initialisation the logits are small, so the loss is close to log |V|: to second
# order in the logits, log sum_j e^(z_j) - z_y = log|V| + (mean_j z_j - z_y) + Var_j(z) / 2.
y = np.stack([D.val[s + 1:s + T + 1] for s in (0, 1000, 2000, 3000)])
z_y = np.take_along_axis(Z, y[..., None], -1)[..., 0]
lse = np.log(np.exp(Z).sum(-1))
loss_x = float((lse - z_y).mean())
second = float((math.log(V) + Z.mean(-1) - z_y + Z.var(-1) / 2).mean())
loss0 = evaluate(model, D.val)
print(glue("loss0", loss0, ".3f"), glue("logV", math.log(V), ".3f"),
      glue("excess", loss0 - math.log(V), ".4f"))
print(check_close("initial loss on the validation windows = log |V|, within 0.05 nats", loss0, math.log(V), atol=0.05,
                  eq="init-loss"))
print(check_close("loss of a batch = log|V| + mean(z) - z_y + Var(z)/2, the second-order expansion, within 0.001",
                  loss_x, second, atol=0.001, eq="init-loss"))

# The same comparison on all the validation windows of the run's evaluation (those of esm.train.evaluate):
# the excess of the loss over log|V| against its two terms, half the logits' variance and mean(z) - z_y.
n_win = TRAIN["eval_batches"] * TRAIN["batch"]
starts = np.linspace(0, len(D.val) - T - 2, n_win).astype(int)
xs, ys = np.stack([D.val[s:s + T] for s in starts]), np.stack([D.val[s + 1:s + T + 1] for s in starts])
Zv = np.concatenate([forward(model, xs[i:i + 8]) for i in range(0, n_win, 8)])
zv_y = np.take_along_axis(Zv, ys[..., None], -1)[..., 0]
half_var, gap_mean = float(Zv.var(-1).mean() / 2), float((Zv.mean(-1) - zv_y).mean())
print(check_close("loss on the validation windows - log|V| = (mean(z) - z_y) + Var(z)/2 averaged over them, "
                  "the second-order expansion, within 0.001", loss0 - math.log(V), gap_mean + half_var, atol=0.001,
                  eq="init-loss"))
print(glue("half_var", half_var, ".4f"), glue("gap_mean", gap_mean, ".4f"), glue("n_win", n_win))

# The tied head's own-token logit: at position t the logit of the token read there, z_x = E_x . LN(h_t), with
# h_t mostly E_x + P_t at initialisation (the blocks' output projections are small). Against the other
# logits (all but z_x at each position) it stands out: about |E_x|^2 / (0.02 sqrt 2) = 0.02 d / sqrt 2 against
# a spread of 0.02 sqrt d, that is sqrt(d/2) standard deviations if the blocks added nothing to the stream.
zv_x = np.take_along_axis(Zv, xs[..., None], -1)[..., 0]
others = np.ones(Zv.shape, dtype=bool)
np.put_along_axis(others, xs[..., None], False, -1)
rest = np.where(others, Zv, np.nan)
rest_mean, rest_sd = np.nanmean(rest, -1), np.nanstd(rest, -1)
own_z = float(((zv_x - rest_mean) / rest_sd).mean())
own_var = half_var - float(np.nanvar(rest, -1).mean() / 2)        # its part of half the variance
own_lift = float(((zv_x - rest_mean) / V).mean())                 # how far it lifts the mean logit
own_top = float((Zv.argmax(-1) == xs).mean())                     # where it is the largest logit
print(glue("own_z", own_z, ".1f"),
      glue("own_var", own_var, ".4f"), glue("own_lift", own_lift, ".4f"), glue("own_top", own_top, ".0%"),
      glue("own_ideal", math.sqrt(d / 2), ".1f"), glue("same_share", float((xs == ys).mean()), ".1%"))
print(check_less("the own-token logit stands more than 3 standard deviations above the other logits, on average over "
                 "the validation positions", 3.0, own_z, names=("3", "mean z-score")))
print(check_less("... and less than sqrt(d/2), its height if the blocks added nothing to the stream", own_z,
                 math.sqrt(d / 2), names=("mean z-score", "sqrt(d/2)")))
print(check_close("the own-token logit's lift of the mean logit = (mean logit with it) - (mean logit without it), "
                  "averaged over the positions", own_lift, float((Zv.mean(-1) - rest_mean).mean()), atol=1e-12))

# The two terms with other seeds: the recorded sweep of the run (tools/seed_sweep.py; the run's section
# cites it), which draws this initialisation with each of its seeds. Half the variance is steady; the
# mean of z̄ - z_y is the smaller term, and its sign changes from seed to seed.
sweep = record("p11")
(hv_lo, hv_hi), (gap_lo, gap_hi) = sweep.spread("half_var"), sweep.spread("gap_mean")
gaps = sweep.values("gap_mean")
print(glue("sweep_n", len(sweep.seeds)),
      *(glue(name, x, ".4f") for name, x in zip(("hv_lo", "hv_hi"), sweep.spread("half_var", 4))),
      glue("gap_pos", sum(g > 0 for g in gaps.values())))
print(check_less(f"on every one of the {len(gaps)} recorded seeds, |mean of z̄ - z_y| is below half the logits' variance "
                 "(the largest of the one against the smallest of the other)", max(abs(g) for g in gaps.values()), hv_lo,
                 names=("max |gap|", "min half variance")))
print(check_true(f"this initialisation (seed {TRAIN['seed']}) = the record's of that seed ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"loss0": loss0, "excess": loss0 - math.log(V), "half_var": half_var,
                                                "gap_mean": gap_mean, "expansion_err": abs(loss0 - math.log(V) - gap_mean - half_var),
                                                "batch_expansion_err": abs(loss_x - second),
                                                "std_res_rel_err": abs(std_O / (0.02 / math.sqrt(2 * L)) - 1),
                                                "std_rel_err": abs(std_Q / 0.02 - 1)})))

# P7's demonstration initialisation (every weight N(0, 0.3^2), gains 1 + N(0, 0.3^2)) at the same size.
loud = init_gpt(TRAIN["seed"], V, T, d, L, H, scale=LOUD)
loss_loud = evaluate(loud, D.val)
print(glue("loss_loud", loss_loud, ".2f"))
print(check_true(f"P7's initialisation at this seed = the record's ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"loss_loud": loss_loud})))
print(check_less("with P7's std 0.3 the untrained model is worse than a uniform guess, by more than a nat",
                 math.log(V) + 1, loss_loud, names=("log|V| + 1", "loss")))
