"""The chapter's check for understanding: the initial loss at a standard deviation between GPT-2's
and P7's, predicted with a pencil and then measured."""
import math

from esm import check_close, check_true, glue
from esm.backprop import init_gpt2
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, evaluate

D = data()
# Check 1: std 0.1. Pencil: a logit sums d products of size ~1 (the normed state) and ~std (the
# head), so Var(z) ~ d std^2 and the loss ~ log|V| + d std^2 / 2 ([init-loss]).
mid = 0.1
d = TRAIN["d"]
pencil = math.log(VOCAB_SIZE) + d * mid ** 2 / 2
measured = evaluate(init_gpt2(TRAIN["seed"], VOCAB_SIZE, TRAIN["T"], d, TRAIN["L"], TRAIN["n_heads"], std=mid), D.val)
print(glue("mid", mid, ".1f"), glue("mid_sd", mid * math.sqrt(d), ".1f"), glue("mid_half_var", d * mid ** 2 / 2, ".2f"),
      glue("mid_pencil", pencil, ".2f"), glue("mid_loss", measured, ".2f"))
# How close the pencil gets depends on the draw: the recorded sweep of the training run measured this loss
# with each of its seeds. The tolerance is the largest deviation recorded, rounded up.
sweep = record("p11")
dev = max(abs(v) for v in sweep.values("mid_dev").values())
tol = math.ceil(dev * 10) / 10
print(glue("mid_lo", sweep.spread("mid_loss", 2)[0], ".2f"), glue("mid_hi", sweep.spread("mid_loss", 2)[1], ".2f"))
print(check_close(f"initial loss at std {mid}, measured on the validation windows = the pencil estimate "
                  f"log|V| + d std^2 / 2, within {tol} nats (the largest deviation of the {len(sweep.seeds)} recorded "
                  f"seeds, {dev:.3f}, rounded up)", measured, pencil, atol=tol, eq="init-loss"))
print(check_true(f"the measured loss at this seed = the record's ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"mid_loss": measured})))
