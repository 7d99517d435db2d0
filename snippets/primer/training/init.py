"""Checks of the initialisation above and the values the text quotes: P7's tiny GPT at the size trained
here, the GPT-2 paper's initialisation, and the initial loss against log |V| (and against P7's
demonstration scale 0.3)."""
import inspect
import math

import numpy as np

from esm import check_close, check_equal, check_less, check_true, glue, gpt_forward, init_gpt, shape_table, table
from esm.backprop import forward
from esm.initialise import init_gpt2, param_arrays
from esm.model import block_shapes
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, evaluate

D = data()
LOUD = 0.3                                                # P7's scale (esm.init_gpt's default)
V, T, d, L, H = VOCAB_SIZE, TRAIN["T"], TRAIN["d"], TRAIN["L"], TRAIN["n_heads"]
model = init_gpt2(TRAIN["seed"], V, T, d, L, H)
n_params = sum(a.size for a in param_arrays(model).values())
# The block above writes one block's arrays out by hand; they are P6's (esm.model.block_shapes), in its order,
# the order in which they are drawn.
print(check_equal("one block's arrays above = P6's block_shapes, names, shapes and order",
                  [(k, a.shape) for k, a in model["blocks"][0].items()], list(block_shapes(d).items())))
print(check_equal("param_arrays: the flat names, first and last", (list(param_arrays(model))[:5], list(param_arrays(model))[-1]),
                  (["E", "P", "g_f", "beta_f", "block1.W_Q"], f"block{L}.beta_2")))
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
sweep = record("p11")
excess_bound = math.ceil(sweep.spread("excess")[1] * 100) / 100        # the largest recorded excess, rounded up
print(check_close(f"initial loss on the validation windows = log |V|, within {excess_bound} nats (the largest excess of "
                  f"the {len(sweep.seeds)} recorded seeds, {sweep.spread('excess')[1]:.4f}, rounded up)", loss0, math.log(V),
                  atol=excess_bound, eq="init-loss"))
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
# h_t = E_x + P_t plus what the blocks add. Against the other logits (all but z_x at each position) it stands
# out: about |E_x|^2 / (0.02 sqrt 2) = 0.02 d / sqrt 2 against a spread of 0.02 sqrt d, that is sqrt(d/2)
# standard deviations if the blocks added nothing to the stream. They add a share r of the tables' variance
# (measured on the centred rows the final layer norm divides), which divides the height by sqrt(1 + r).


def others_of(Z):                                                   # True except at each position's own token
    others = np.ones(Z.shape, dtype=bool)
    np.put_along_axis(others, xs[..., None], False, -1)
    return others


def own_token(model):
    """At one initialisation, on the validation windows: the terms of [init-loss], the own-token logit's part
    of mean(z̄ - z_y) (its lift of z̄ minus its lowering where the next token repeats the current one), its
    height in standard deviations of the other logits, and the variance r the blocks add to the stream."""
    Z, (_, _, _, (xhat, rstd, _)) = forward(model, xs, keep=True)
    S = model["E"][xs] + model["P"][:T]
    S = S - S.mean(-1, keepdims=True)
    r = float(((xhat / rstd - S) ** 2).sum(-1).mean() / (S ** 2).sum(-1).mean())
    z_x = np.take_along_axis(Z, xs[..., None], -1)[..., 0]
    z_y = np.take_along_axis(Z, ys[..., None], -1)[..., 0]
    rest = np.where(others_of(Z), Z, np.nan)
    rest_mean, rest_sd = np.nanmean(rest, -1), np.nanstd(rest, -1)
    lift = float(((z_x - rest_mean) / V).mean())                      # z_x lifts the mean logit at every position
    lower = float(((xs == ys) * (z_x - rest_mean)).mean())            # and is the target's logit where x = y
    gap = float((Z.mean(-1) - z_y).mean())
    return {"Z": Z, "half_var": float(Z.var(-1).mean() / 2), "gap": gap, "own": lift - lower, "rest": gap - (lift - lower),
            "lift": lift, "own_z": float(((z_x - rest_mean) / rest_sd).mean()), "r": r,
            "own_top": float((Z.argmax(-1) == xs).mean()),
            "lift_direct": float((Z.mean(-1) - rest_mean).mean())}


o = own_token(model)
print(check_close("the own-token terms at this seed use the same logits as above", o["Z"], Zv, atol=1e-12))
own_pred = math.sqrt(d / 2) / math.sqrt(1 + o["r"])
print(glue("own_z", o["own_z"], ".1f"), glue("own_pred", own_pred, ".1f"), glue("blocks_var", o["r"], ".0%"),
      glue("own_top", o["own_top"], ".0%"),
      glue("own_ideal", math.sqrt(d / 2), ".1f"), glue("same_share", float((xs == ys).mean()), ".1%"),
      glue("inv_V", 1 / V, ".1%"), glue("own_net", o["own"], "+.4f"), glue("gap_rest", o["rest"], "+.4f"))
print(check_close("the own-token logit's lift of the mean logit = (mean logit with it) - (mean logit without it), "
                  "averaged over the positions", o["lift"], o["lift_direct"], atol=1e-12))
# The remainder by another route: every own-token logit replaced by the mean of the others, mean(z̄ - z_y) again.
Zr = np.where(others_of(o["Z"]), o["Z"], np.nanmean(np.where(others_of(o["Z"]), o["Z"], np.nan), -1, keepdims=True))
rest_direct = float((Zr.mean(-1) - np.take_along_axis(Zr, ys[..., None], -1)[..., 0]).mean())
print(check_close("mean(z̄ - z_y) less its own-token part (lift - lowering) = mean(z̄ - z_y) with each own-token logit "
                  "replaced by the mean of the others", o["rest"], rest_direct, atol=1e-12))

# The same terms at each recorded seed's initialisation (cheap: one forward pass each, on the same windows).
inits = {s_: own_token(init_gpt2(s_, V, T, d, L, H)) for s_ in sweep.seeds}
print(check_close(f"half the variance and mean(z̄ - z_y) at the {len(inits)} recorded seeds' initialisations, "
                  f"recomputed here = the record's ({sweep.cited()})",
                  [(v["half_var"], v["gap"]) for v in inits.values()],
                  [(sweep.per_seed[s_]["half_var"], sweep.per_seed[s_]["gap_mean"]) for s_ in inits], atol=1e-12))
q = {name: [v[name] for v in inits.values()] for name in ("half_var", "gap", "own", "rest", "own_z")}
pred = [math.sqrt(d / 2) / math.sqrt(1 + v["r"]) for v in inits.values()]
print(check_less(f"on every one of the {len(inits)} seeds the own-token logit's part of mean(z̄ - z_y) is negative",
                 max(q["own"]), 0.0, names=("largest own-token part", "0")))
print(check_less(f"on every one of the {len(inits)} seeds the own-token logit stands more than 4 standard deviations "
                 "above the others, on average over the positions", 4.0, min(q["own_z"]), names=("4", "smallest height")))
print(check_less(f"on every one of the {len(inits)} seeds sqrt(d/2) / sqrt(1 + r) predicts that height within 0.15",
                 max(abs(a - b) for a, b in zip(q["own_z"], pred)), 0.15, names=("largest |height - prediction|", "0.15")))
print(check_less("... and sqrt(d/2), its height if the blocks added nothing, is above every seed's height", max(q["own_z"]),
                 math.sqrt(d / 2), names=("largest height", "sqrt(d/2)")))
gap_pos, rest_pos = sum(g > 0 for g in q["gap"]), sum(g > 0 for g in q["rest"])
print(glue("sweep_n", len(sweep.seeds)), glue("run_seed", TRAIN["seed"]), glue("rest_pos", rest_pos),
      glue("seed_first", min(sweep.seeds)), glue("seed_last", max(sweep.seeds)))
print(check_less(f"on every one of the {len(inits)} seeds |mean of z̄ - z_y| is below half the logits' variance (the "
                 "largest of the one against the smallest of the other)", max(abs(g) for g in q["gap"]), min(q["half_var"]),
                 names=("max |gap|", "min half variance")))
print(table(["term", f"seed {TRAIN['seed']} (the run's)", f"smallest over {len(inits)} seeds", "largest", "positive on"], [
    ["half the logits' variance", f"{o['half_var']:.4f}", f"{min(q['half_var']):.4f}", f"{max(q['half_var']):.4f}",
     f"{sum(v > 0 for v in q['half_var'])} of {len(inits)}"],
    ["mean of $\\bar z-z_y$", f"{o['gap']:+.4f}", f"{min(q['gap']):+.4f}", f"{max(q['gap']):+.4f}", f"{gap_pos} of {len(inits)}"],
    ["... its own-token part", f"{o['own']:+.4f}", f"{min(q['own']):+.4f}", f"{max(q['own']):+.4f}",
     f"{sum(v > 0 for v in q['own'])} of {len(inits)}"],
    ["... the remainder", f"{o['rest']:+.4f}", f"{min(q['rest']):+.4f}", f"{max(q['rest']):+.4f}", f"{rest_pos} of {len(inits)}"],
    ["height of the own-token logit (standard deviations)", f"{o['own_z']:.2f}", f"{min(q['own_z']):.2f}",
     f"{max(q['own_z']):.2f}", ""],
]))
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
