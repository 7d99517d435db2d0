"""9.8 An analogy that works on the pair that defined it says nothing: test on held-out pairs."""
import numpy as np

from esm import check_close, check_less, cosine_matrix, glue, top_k

rng = np.random.default_rng(98)
n_pairs, d, n_other = 12, 16, 60
A = rng.normal(0.0, 1.0, (n_pairs, d))                           # e.g. countries
offset = rng.normal(0.0, 1.0, d)
B = A + offset + 1.2 * rng.normal(0.0, 1.0, (n_pairs, d))        # e.g. capitals: offset + noise
E = np.vstack([A, B, rng.normal(0.0, 1.0, (n_other, d))])        # plus unrelated rows
a_ids, b_ids = np.arange(n_pairs), np.arange(n_pairs) + n_pairs

def solve(src, tgt, query):
    """c* = argmax_x cos(E[x], E[tgt] - E[src] + E[query]), inputs excluded (a:a*::c:c*)."""
    target = E[tgt] - E[src] + E[query]
    return int(top_k(cosine_matrix(target[None], E)[0], 1, exclude=[src, tgt, query])[0])

# Wrong: check the offset on the pair that defined it (pair 0 -> itself): trivially right.
train_offset = E[b_ids[0]] - E[a_ids[0]]
recon = E[a_ids[0]] + train_offset
print(check_close("wrong: E[a0] + (E[b0] - E[a0]) gives back E[b0] exactly, a 100% 'success'",
                  recon, E[b_ids[0]], atol=1e-12))
# Right: define the offset on pair 0, evaluate on the other 11 pairs (inputs excluded).
hits = [solve(a_ids[0], b_ids[0], a_ids[i]) == b_ids[i] for i in range(1, n_pairs)]
acc = float(np.mean(hits))
print(f"held-out accuracy with one defining pair: {sum(hits)} of {len(hits)} = {acc:.0%}")
print(check_less("right: held out, the analogy is far from always right", acc, 0.9,
                 names=("held-out accuracy", "0.9")))
print(glue("m8_hits", int(sum(hits))), glue("m8_held", len(hits)), sep="")
