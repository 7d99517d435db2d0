"""Exercise 10.4: a synthetic analogy with a planted offset, solved with inputs excluded."""
import numpy as np

from esm import check_close, check_equal, cosine_matrix, shape_table, top_k

rng = np.random.default_rng(104)
NOISE = 1.5                                     # the relation holds only roughly for b
V, d = 20, 8
E = rng.normal(0.0, 1.0, (V, d))
r = rng.normal(0.0, 1.0, d)                     # the relation, e.g. "feminine of"
a, a_star, b, b_star = 0, 1, 2, 3               # man, woman, king, queen
E[a_star] = E[a] + r
E[b_star] = E[b] + r + NOISE * rng.normal(0.0, 1.0, d)
target = E[b] - E[a] + E[a_star]
cos = cosine_matrix(target[None], E)[0]
print(shape_table({"V": V, "d": d}, [("table", "E", E, "V d", ""),
                                     ("target", "", target, "d", r"$E_b-E_a+E_{a^*}$")]))
with_inputs = int(top_k(cos, 1)[0])
answer = int(top_k(cos, 1, exclude=[a, a_star, b])[0])
print(check_equal("(b) with inputs excluded the answer is b* = 3 (queen)", answer, b_star))
print(check_close("(b) the target is E_b + r, because E_a* - E_a = r", target, E[b] + r, atol=1e-12))
print(check_equal("(c) without the exclusion the top row is b itself (king)", with_inputs, b))
print(f"\ncos(target, b*) = {cos[b_star]:.4f}; cos(target, b) = {cos[b]:.4f}; "
      f"without exclusion the top row is {with_inputs}.")
