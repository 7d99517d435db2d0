"""Exercise: how many loud rows does it take to hide them from a plain z-score?"""
import numpy as np

from esm import check_close, check_equal, check_true, glue, share_of_seeds

V, d, LOUD = 400, 32, 3.0


def flagged(seed, k, robust):
    """Rows with |zeta| > 3 among V rows of which the first k were scaled up LOUD times."""
    rng = np.random.default_rng(seed)
    E = rng.normal(0.0, 1.0, (V, d)) / np.sqrt(d)
    E[:k] *= LOUD
    rho = np.linalg.norm(E, axis=1)
    if robust:
        med = np.median(rho)
        z = (rho - med) / (1.4826 * np.median(np.abs(rho - med)))
    else:
        z = (rho - rho.mean()) / rho.std()
    return set(np.flatnonzero(np.abs(z) > 3).tolist())


def first_miss(seed, robust):
    """The smallest number of loud rows for which the rule misses at least one of them."""
    for k in range(1, V // 2):
        if not set(range(k)) <= flagged(seed, k, robust):
            return k
    return V // 2


SEED = 115
k_plain, k_robust = first_miss(SEED, False), first_miss(SEED, True)
print(check_true("(b) the plain z-score starts missing loud rows before the robust one does",
                 k_plain < k_robust, f"plain misses one from k = {k_plain}, robust from k = {k_robust}"))
# Independent: recount the flags for k_plain by a loop over rows with the z formula written out.
rng = np.random.default_rng(SEED)
E = rng.normal(0.0, 1.0, (V, d)) / np.sqrt(d)
E[:k_plain] *= LOUD
rho = [float(np.sqrt(sum(x * x for x in row))) for row in E]
mean = sum(rho) / V
sd = (sum((x - mean) ** 2 for x in rho) / V) ** 0.5
missed = [i for i in range(k_plain) if abs((rho[i] - mean) / sd) <= 3]
print(check_true("(b) at that k a loop over the rows finds at least one loud row with |zeta| <= 3", len(missed) > 0,
                 f"missed rows {missed}"))
# (a) idealised: k norms equal to L, n - k equal to l < L. The plain z-score of a loud row is sqrt((n - k)/k), whatever L.
for k_, L_ in ((1, 5.0), (10, 3.0), (40, 30.0), (100, 1.5)):
    vals = np.array([L_] * k_ + [1.0] * (V - k_))
    print(check_close(f"(a) two values, k = {k_}, L = {L_:g}: z of a loud row is sqrt((n - k)/k)",
                      (vals[0] - vals.mean()) / vals.std(), np.sqrt((V - k_) / k_), atol=1e-12))
k_ideal = int(np.ceil(V / 10))                   # sqrt((n - k)/k) <= 3  <=>  k >= n/10
print(check_equal("(a) the smallest k with sqrt((n - k)/k) <= 3 is n/10 (search over k)",
                  min(k_ for k_ in range(1, V) if np.sqrt((V - k_) / k_) <= 3), k_ideal))
# (a) the bound: k norms equal to L, the n - k quiet ones anywhere below L; a loud row's z never exceeds sqrt((n - k)/k).
rng_b = np.random.default_rng(SEED + 1000)
ratios = []
for k_ in (1, 5, 40, 150):
    for _ in range(200):
        quiet = rng_b.uniform(0.0, 1.0, V - k_) * rng_b.uniform(0.1, 1.0)      # any spread below L = 1
        vals = np.concatenate([np.ones(k_), quiet])
        ratios.append(((vals[0] - vals.mean()) / vals.std()) / np.sqrt((V - k_) / k_))
print(check_true("(a) with the quiet norms drawn at random below L, no loud row's z-score exceeds sqrt((n - k)/k) "
                 "(800 draws, k = 1, 5, 40, 150)", max(ratios) <= 1 + 1e-12, f"largest z / bound {max(ratios):.4f}"))
# (c) k > n/2: the median is at least the smallest loud norm, so a rule flagging rows far above the median misses it.


def median_above_smallest_loud(seed, k):
    rng_k = np.random.default_rng(seed)
    E_k = rng_k.normal(0.0, 1.0, (V, d)) / np.sqrt(d)
    E_k[:k] *= LOUD
    rho_k = np.linalg.norm(E_k, axis=1)
    return bool(np.median(rho_k) >= rho_k[:k].min())


print(check_true("(c) for k = n/2 + 1 .. n/2 + 20 (seeds 115..164) the median norm is at least the smallest loud norm",
                 all(median_above_smallest_loud(s_, k_) for s_ in range(SEED, SEED + 50) for k_ in range(V // 2 + 1, V // 2 + 21)),
                 "k = 201 .. 220"))
seeds = range(SEED, SEED + 50)
plain_ks = {s: first_miss(s, False) for s in seeds}
earlier = share_of_seeds(lambda s: set(range(plain_ks[s])) <= flagged(s, plain_ks[s], True), seeds)
print(check_equal("(c) over seeds 115..164, where the plain rule first misses a loud row the robust rule misses none",
                  earlier, 1.0))
print(glue("e15_V", V), glue("e15_d", d), glue("e15_loud", LOUD, "g"), glue("e15_k_plain", k_plain),
      glue("e15_k_robust", k_robust), glue("e15_share", k_plain / V, ".1%"), glue("e15_earlier", earlier, ".0%"),
      glue("e15_k_lo", min(plain_ks.values())), glue("e15_k_hi", max(plain_ks.values())),
      glue("e15_k_ideal", k_ideal), glue("e15_bound_max", max(ratios), ".3f"), sep="")
