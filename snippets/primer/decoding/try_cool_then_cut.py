"""Try this: apply top-k and top-p to p_tau at tau = 0.5 instead of to p. Top-k keeps the very same 5 tokens,
because dividing the logits by tau never changes their order, though those tokens now hold more of the mass;
top-p keeps far fewer, because the sharper p_tau reaches xi = 0.9 with fewer tokens."""
import numpy as np

from esm import TINY, check_equal, check_less, gpt_forward, softmax, tiny_gpt

model = tiny_gpt()                                   # the demo's model, context and settings
V = TINY["V"]
context = np.array([3, 14, 15, 9, 26, 5, 35, 8])
z = gpt_forward(context, model)[-1]
p = softmax(z)
tau, k, xi = 0.5, 5, 0.9


def top_k_filter(probs, k):
    keep = np.zeros(V, bool)
    keep[np.argsort(-probs, kind="stable")[:k]] = True
    return keep


def top_p_filter(probs, xi):
    """The smallest set of most likely tokens whose mass reaches xi (sorted cumulative sum)."""
    srt = np.argsort(-probs, kind="stable")
    m = int(np.searchsorted(np.cumsum(probs[srt]), xi)) + 1
    keep = np.zeros(V, bool)
    keep[srt[:m]] = True
    return keep


p_tau = softmax(z, temperature=tau)                 # changed: the filters below read p_tau, where they read p
keep_k, keep_k_tau = top_k_filter(p, k), top_k_filter(p_tau, k)
keep_p, keep_p_tau = top_p_filter(p, xi), top_p_filter(p_tau, xi)
print(f"top-k, k = {k}: mass {p[keep_k].sum():.3f} of p, {p_tau[keep_k_tau].sum():.3f} of p_tau; "
      f"top-p, xi = {xi}: {int(keep_p.sum())} tokens from p, {int(keep_p_tau.sum())} from p_tau")
print(check_equal(f"top-k keeps the same {k} tokens from p_tau as from p", np.flatnonzero(keep_k_tau),
                  np.flatnonzero(keep_k)))
print(check_less(f"top-p keeps fewer tokens from p_tau than from p", int(keep_p_tau.sum()), int(keep_p.sum()),
                 names=("kept from p_tau", "kept from p")))
