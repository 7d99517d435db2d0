"""P12 Generating text with the trained model: generate() crops the context to the model's window,
applies one of the rules, draws, appends and stops; the rules side by side on one prompt, and what
they change, measured as means over 20 sampling seeds; generate() against a second route of its own."""
import math
import re

import numpy as np

from esm import check_close, check_equal, check_true, glue, gpt_forward, softmax, table
from esm.backprop import forward
from esm.tokenizer import VOCAB_SIZE, bpe_decode, data
from esm.train import SNAPSHOTS, TRAIN, eval_windows, sample_tokens, top_p_keep, trained

D = data()
model, _, _, snaps, _ = trained(D.train, D.val, VOCAB_SIZE, TRAIN, snapshots=SNAPSHOTS, traces=True)   # the run of P11


def generate(model, prompt, max_new, rng=None, temperature=1.0, top_k=None, top_p=None, stop=None):
    """Continue the token ids ``prompt`` by at most ``max_new`` tokens: greedy when ``rng`` is None,
    otherwise sampled at ``temperature`` from the most likely tokens, at most ``top_k`` of them and
    no more than it takes to reach the mass ``top_p``. Stops after the token ``stop``."""
    T = len(model["P"])                                   # the model's window: it has T positions
    ids = list(prompt)
    for _ in range(max_new):
        z = forward(model, np.array(ids[-T:])[None])[0, -1]   # logits of the next token, last T tokens only
        if rng is None:
            nxt = int(np.argmax(z))
        else:
            p = softmax(z / temperature)
            order = np.argsort(-p, kind="stable")          # most likely first
            m = len(p) if top_k is None else top_k
            if top_p is not None:                          # the first prefix whose mass reaches top_p
                m = min(m, int(np.searchsorted(np.cumsum(p[order]), top_p)) + 1)
            keep = np.zeros(len(p), dtype=bool)
            keep[order[:m]] = True
            p = np.where(keep, p, 0.0)
            p /= p.sum()
            nxt = int(rng.choice(len(p), p=p))
        ids.append(nxt)
        if nxt == stop:
            break
    return ids[len(prompt):]


def text(ids):
    return bpe_decode(ids, D.alphabet, D.merges)


# One prompt from the validation text (never trained on): the start of a speech, cut mid-word.
brk = next(t for t in range(VOCAB_SIZE) if text([t]) == "\n\n")          # the token that ends a speech
start = D.val.tolist().index(brk) + 1
prompt = D.val[start:start + 24]
rules = {"greedy": None,
         "τ = 0.5": dict(temperature=0.5),
         "τ = 1 (plain sampling)": dict(temperature=1.0),
         "τ = 1.5": dict(temperature=1.5),
         "top-k, k = 10": dict(top_k=10),
         "top-p, ξ = 0.8": dict(top_p=0.8)}
seeds, n_new, shown = range(20), 150, 60
known = set(re.findall(r"[A-Za-z]+", text(D.train)))         # the words of the training text


def words(ids):
    return re.findall(r"[A-Za-z]+", text(ids))


samples = {name: [generate(model, prompt, n_new)] if kw is None else
           [generate(model, prompt, n_new, np.random.default_rng(s), **kw) for s in seeds]
           for name, kw in rules.items()}
real = {name: np.array([np.mean([w in known for w in words(o)]) for o in outs]) for name, outs in samples.items()}
distinct = {name: np.array([len(set(o)) / len(o) for o in outs]) for name, outs in samples.items()}

# Greedy falls into a loop: the shortest period with which its last tokens repeat three times, and the
# first token from which the whole rest repeats with that period.
g = samples["greedy"][0]
period = next(P for P in range(1, n_new // 3) if g[-3 * P:] == g[-P:] * 3)
loop_start = next(t for t in range(n_new) if g[t:-period] == g[t + period:])
print(glue("n_new", n_new), glue("n_seeds", len(seeds)), glue("period", period), glue("loop_start", loop_start))


def start_of(name, outs):
    """What the table shows: the first tokens of seed 0's continuation; for greedy, up to the end of its
    loop's second round, with ‖ where the loop starts and where it starts again."""
    if name != "greedy":
        return text(outs[0][:shown])
    cuts = (0, loop_start, loop_start + period, loop_start + 2 * period)
    return " ‖ ".join(text(g[a:b]) for a, b in zip(cuts, cuts[1:]))


print(f"**Prompt** (validation text): `{text(prompt).replace(chr(10), ' ↵ ')}`\n")
print(table(("rule", f"the start of the continuation (seed {seeds[0]}; ↵ is a line break)", "real words", "distinct tokens"),
            [(name, "`" + start_of(name, outs).replace("\n", " ↵ ") + "`", f"{real[name].mean():.0%}",
              f"{distinct[name].mean():.0%}") for name, outs in samples.items()]))
print(f"Each row shows the first {shown} tokens, greedy's first {loop_start + 2 * period}: ‖ marks where its loop of "
      f"{period} tokens starts and where it starts again. Real words: the share of the continuation's words that are "
      f"words of the training text; distinct tokens: the share of its {n_new} tokens that differ from each other. Both "
      f"are means over the {len(seeds)} sampling seeds {seeds[0]} to {seeds[-1]} (greedy has no seed).\n")
print(glue("tau_cold", rules["τ = 0.5"]["temperature"], ".1f"), glue("tau_hot", rules["τ = 1.5"]["temperature"], ".1f"),
      glue("xi_rule", rules["top-p, ξ = 0.8"]["top_p"], ".1f"))
print(glue("real_cold", real["τ = 0.5"].mean(), ".0%"), glue("real_one", real["τ = 1 (plain sampling)"].mean(), ".0%"),
      glue("real_hot", real["τ = 1.5"].mean(), ".0%"), glue("real_topp", real["top-p, ξ = 0.8"].mean(), ".0%"),
      glue("dist_cold", distinct["τ = 0.5"].mean(), ".0%"),
      glue("dist_one", distinct["τ = 1 (plain sampling)"].mean(), ".0%"))

# The prose's reading of the table, on the means over the 20 sampling seeds. Seed by seed the orders
# reverse now and then (in scratch runs of the same rules on seeds 0 to 199, all of them held on 8 to 18
# seeds of each group of 20), while the means over 20 seeds kept every order on each of the ten disjoint
# groups 0-19, 20-39, ..., 180-199; greedy's share of distinct tokens stayed below every one of those
# 200 seeds' at tau = 0.5.
cold, one, hot = real["τ = 0.5"], real["τ = 1 (plain sampling)"], real["τ = 1.5"]
tk, tp, d_cold, d_one = real["top-k, k = 10"], real["top-p, ξ = 0.8"], distinct["τ = 0.5"], distinct["τ = 1 (plain sampling)"]
every = (cold > one) & (one > hot) & (d_cold < d_one) & (tk > one) & (tp > one)   # all orders, seed by seed
print(glue("n_every", int(every.sum())))
# A loop it cannot leave: greedy continued from its own end goes on with the same period.
more = generate(model, list(prompt) + g, 2 * period)
print(check_equal(f"greedy, continued by {2 * period} more tokens, repeats its last {period} tokens twice",
                  more, g[-period:] * 2))
print(check_true(f"mean over the {len(seeds)} seeds: the share of real words falls from tau = 0.5 to 1 to 1.5",
                 bool(cold.mean() > one.mean() > hot.mean()), f"{cold.mean():.3f} > {one.mean():.3f} > {hot.mean():.3f}"))
print(check_true(f"mean over the {len(seeds)} seeds: tau = 0.5 repeats more than tau = 1 (fewer distinct tokens); "
                 f"greedy repeats more than tau = 0.5 on every seed",
                 bool(d_cold.mean() < d_one.mean() and distinct["greedy"][0] < d_cold.min()),
                 f"{d_cold.mean():.3f} < {d_one.mean():.3f}; greedy {distinct['greedy'][0]:.3f} < {d_cold.min():.3f}"))
print(check_true(f"mean over the {len(seeds)} seeds: top-k and top-p give more real words than plain sampling",
                 bool(tk.mean() > one.mean() and tp.mean() > one.mean()),
                 f"top-k {tk.mean():.3f}, top-p {tp.mean():.3f} > plain {one.mean():.3f}"))



def generate_by_hand(model, prompt, max_new, rng=None, temperature=1.0, top_k=None, top_p=None):
    """A second route for generate(): at each step P7's gpt_forward recomputes the whole context, cropped
    to its last T tokens; greedy takes the largest logit by a loop; the softmax is summed by math.fsum;
    the kept tokens are taken one by one from a Python sort until there are top_k or their mass reaches
    top_p; the draw walks the kept tokens' cumulative probabilities, in token order, up to one uniform
    number of rng (the one number rng.choice draws)."""
    T = len(model["P"])
    ids = list(prompt)
    for _ in range(max_new):
        z = gpt_forward(np.array(ids[len(ids) - min(len(ids), T):]), model)[-1]
        if rng is None:
            nxt = 0
            for j in range(len(z)):
                nxt = j if z[j] > z[nxt] else nxt
        else:
            w = [math.exp((zj - max(z)) / temperature) for zj in z]
            total = math.fsum(w)
            p = [wj / total for wj in w]
            kept, mass = [], 0.0
            for j in sorted(range(len(p)), key=lambda j: (-p[j], j)):
                kept.append(j)
                mass += p[j]
                if len(kept) == top_k or (top_p is not None and mass >= top_p):
                    break
            u, acc, nxt = rng.random(), 0.0, max(kept)
            for j in sorted(kept):
                acc += p[j] / mass
                if acc > u:
                    nxt = j
                    break
        ids.append(nxt)
    return ids[len(prompt):]


# generate() against that second route, from a prompt longer than the window, so that both crop from the
# first step on; greedy, top-p, and temperature, top-k and top-p together.
T = len(model["P"])
long_prompt = D.val[start:start + T + 16]
cases = (("greedy", None, {}), ("top-p 0.9, seed 3", 3, {"top_p": 0.9}),
         ("tau 0.8, top-k 10 and top-p 0.9, seed 4", 4, {"temperature": 0.8, "top_k": 10, "top_p": 0.9}))
for name, seed, kw in cases:
    rng_a, rng_b = (None, None) if seed is None else (np.random.default_rng(seed), np.random.default_rng(seed))
    ours, theirs = generate(model, long_prompt, 40, rng_a, **kw), generate_by_hand(model, long_prompt, 40, rng_b, **kw)
    print(check_true(f"generate() = the second route (gpt_forward, a sorted loop, a walked draw), {name}, 40 tokens "
                     f"after a prompt of {len(long_prompt)} > T = {T}",
                     ours == theirs, f"{sum(a == b for a, b in zip(ours, theirs))} of {len(theirs)} tokens equal"))
# The same samples as P11's sampler, esm.train.sample_tokens: it shares the forward pass and the top-p rule
# (esm.train.top_p_keep), so this checks that the two loops are wired alike, not the rule.
for name, seed, kw in cases[:2]:
    rng_a, rng_b = (None, None) if seed is None else (np.random.default_rng(seed), np.random.default_rng(seed))
    ours, theirs = generate(model, long_prompt, 40, rng_a, **kw), sample_tokens(model, long_prompt, 40, rng_b, **kw).tolist()
    print(check_true(f"generate() = esm.train.sample_tokens (P11's sampler; same forward and top-p rule), {name}, "
                     f"40 tokens after a prompt of {len(long_prompt)} > T = {T}",
                     ours == theirs, f"{sum(a == b for a, b in zip(ours, theirs))} of {len(theirs)} tokens equal"))
# The cropped forward's last row = P7's gpt_forward, a second implementation, on the same last T tokens.
ctx = np.array(long_prompt[-T:])
print(check_close("the logits generate() samples from = P7's gpt_forward on the last T tokens (last row)",
                  forward(model, ctx[None])[0, -1], gpt_forward(ctx, model)[-1], atol=1e-10))
# Top-k with k = 1 keeps one token: it is greedy, whatever the seed.
k1, greedy40 = generate(model, prompt, 40, np.random.default_rng(7), top_k=1), g[:40]
print(check_true("top-k with k = 1 = greedy, 40 tokens", k1 == greedy40, f"{sum(a == b for a, b in zip(k1, greedy40))} of 40 tokens equal"))
# The stop token: with stop, the continuation ends at the first end of a speech, which is the same
# continuation without stop cut there (same seed: the same draws up to that point).
full = samples["τ = 1 (plain sampling)"][0]
cut = full[:full.index(brk) + 1]
print(check_equal("generate(stop = end of speech) = the same seed's continuation cut after its first end of speech",
                  generate(model, prompt, n_new, np.random.default_rng(seeds[0]), stop=brk), cut))

# How sure the model is, before and after training: the size of the top-p set at xi = 0.9 at every position of
# the fixed validation windows, by esm.train.top_p_keep, for the initial weights and the trained ones.
X, _ = eval_windows(D.val)
XI_NUC = 0.9
sizes = {name: np.array([top_p_keep(p_, XI_NUC).sum() for p_ in softmax(forward(m, X)).reshape(-1, VOCAB_SIZE)])
         for name, m in (("init", snaps[0]), ("end", model))}
print(glue("xi_nuc", XI_NUC, ".1f"), glue("nuc_init", float(np.median(sizes["init"])), ".0f"), glue("nuc_end", float(np.median(sizes["end"])), ".0f"),
      glue("nuc_V", VOCAB_SIZE))
print(check_true("the trained model's top-p set (xi = 0.9) is smaller than the initial model's at every position",
                 bool((sizes["end"] < sizes["init"]).all()),
                 f"smaller at {np.mean(sizes['end'] < sizes['init']):.0%} of {sizes['end'].size} positions"))
