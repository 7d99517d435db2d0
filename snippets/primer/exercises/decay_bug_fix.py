"""Fix of the debugging exercise on weight decay (the training chapter): the decay applies to the
weight matrices and the tables (2-D arrays) only. The same check passes; then what the bug does to a
short run, against the fixed step from the same start and batches: the gains end smaller by about
the product of 1 - lr_t wd over the steps, the pull of decay alone, while the validation loss moves
by far less than it varies from seed to seed."""
import math

import numpy as np

from esm import check_close, check_less, check_true, expect_failure, glue
from esm.backprop import init_gpt2, loss_and_grads, param_arrays
from esm.optim import clip_grads, lr_at
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, evaluate


def adamw_step(params, grads, state, lr, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1, decay_all=False):
    b1, b2 = betas
    state["t"] = t = state.get("t", 0) + 1
    for name, theta in params.items():
        m = state.setdefault("m." + name, np.zeros_like(theta))
        v = state.setdefault("v." + name, np.zeros_like(theta))
        g = grads[name]
        m[...] = b1 * m + (1 - b1) * g
        v[...] = b2 * v + (1 - b2) * g * g
        update = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        if theta.ndim == 2 or decay_all:                  # the fix: matrices and tables only (decay_all: the bug)
            update = update + weight_decay * theta
        theta -= lr * update


def check_decay(step):
    """One step with every gradient zero: Adam's part is 0, so only the decay moves anything."""
    params = param_arrays(init_gpt2(0, 128, 16, 32, 2, 4))
    before = {k: v.copy() for k, v in params.items()}
    step(params, {k: np.zeros_like(v) for k, v in params.items()}, {}, lr=0.01, weight_decay=0.1)
    expected = {k: v * (1 - 0.01 * 0.1) if v.ndim == 2 else v for k, v in before.items()}
    worst = max(params, key=lambda k: float(np.abs(params[k] - expected[k]).max()))
    return check_close(f"zero gradients: matrices shrink by 1 - lr wd, gains and biases stay (worst array: {worst})",
                       params[worst], expected[worst], atol=1e-15)


def run_fixed():
    return check_decay(adamw_step)


# (c) A short run of a small model with the training chapter's schedule and settings: once fixed, once with the bug.
D = data()
cfg = dict(TRAIN, d=32, T=32, steps=200)


def paired_run(init_seed, batch_seed):
    """The fixed step and the bug from the same initialisation and batches: the mean layer-norm gain at the end and
    the validation loss, for each."""
    out = {}
    for bug in (False, True):
        model = init_gpt2(init_seed, VOCAB_SIZE, cfg["T"], cfg["d"], cfg["L"], cfg["n_heads"])
        params, state, rng = param_arrays(model), {}, np.random.default_rng(batch_seed)
        for step in range(cfg["steps"]):
            starts = rng.integers(0, len(D.train) - cfg["T"] - 1, size=cfg["batch"])
            x = np.stack([D.train[s:s + cfg["T"]] for s in starts])
            y = np.stack([D.train[s + 1:s + cfg["T"] + 1] for s in starts])
            loss, grads = loss_and_grads(model, x, y)
            clip_grads(grads, cfg["clip"])
            adamw_step(params, grads, state, lr_at(step, cfg), weight_decay=cfg["weight_decay"], decay_all=bug)
        gain = float(np.concatenate([v for k, v in params.items() if k.split(".")[-1].startswith("g_")]).mean())
        out[bug] = gain, evaluate(model, D.val, cfg)
    return out


# The pull of decay alone: each step multiplies a parameter by 1 - lr_t wd.
pull = float(np.prod([1 - lr_at(s, cfg) * cfg["weight_decay"] for s in range(cfg["steps"])]))
# The definitions above are what the recorded sweep `ex37` (tools/seed_sweep.py) runs for each of its seeds.
SEED = 0

print(run_fixed())
print(expect_failure(lambda: check_decay(lambda *a, **k: adamw_step(*a, decay_all=True, **k))))

run = paired_run(SEED, SEED + 1)
(gain_fixed, val_fixed), (gain_bug, val_bug) = run[False], run[True]
ratio = gain_bug / gain_fixed
# The recorded sweep ran paired_run(s, s + 1) for 32 seeds s (this run is s = 0): the ratio minus the pull stayed
# within -0.003 to +0.011 (a review's 18 other pairings of seeds stayed inside that too); the bound 0.015 keeps a
# margin over it, and the check below it holds the record to the bound.
BOUND = 0.015
sweep = record("ex37")
print(check_close(f"(c) mean gain with the bug / mean gain fixed = the product of (1 - lr_t wd) over the {cfg['steps']} steps, "
                  f"within {BOUND}", ratio, pull, atol=BOUND))
lo, hi = sweep.spread("ratio_minus_pull")
print(check_less(f"(c) on every recorded seed ({sweep.cited()}) |ratio - pull| is below the bound {BOUND}",
                 max(-lo, hi), BOUND))
print(glue("wd_steps", cfg["steps"]), glue("wd_pull", pull, ".3f"), glue("wd_ratio", ratio, ".3f"),
      glue("wd_fixed", gain_fixed, ".3f"), glue("wd_bug", gain_bug, ".3f"))

# The validation loss, over the recorded seeds, and this run against the record's value for its seed.
diffs = sorted(sweep.values("val_diff").values())
print(check_true(f"(c) this run = the record's ({sweep.cited()})",
                 *sweep.matches(SEED, {"ratio_minus_pull": ratio - pull, "val_diff": val_bug - val_fixed,
                                       "val_fixed": val_fixed})))
print(glue("wd_val_fixed", val_fixed, ".3f"), glue("wd_val_bug", val_bug, ".3f"),
      glue("wd_sw_pairs", len(sweep.seeds)), glue("wd_sw_higher", sum(d > 0 for d in diffs)),
      glue("wd_sw_median", float(np.median(diffs)), "+.3f"),
      glue("wd_sw_lo", math.floor(diffs[0] * 1000) / 1000, "+.3f"),
      glue("wd_sw_hi", math.ceil(diffs[-1] * 1000) / 1000, "+.3f"),
      glue("wd_sw_fixed_lo", math.floor(sweep.spread("val_fixed")[0] * 100) / 100, ".2f"),
      glue("wd_sw_fixed_hi", math.ceil(sweep.spread("val_fixed")[1] * 100) / 100, ".2f"))
