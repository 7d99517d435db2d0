"""2.5 Residual stream initialization: h^(0)_t = E[i_t] + P[t]; with RoPE nothing is added."""
import numpy as np

from esm import check_close, check_equal, check_less, shape_table, sinusoidal_positions

rng = np.random.default_rng(25)
V, d, T_max = 10, 8, 16
E = rng.normal(0.0, 1.0, (V, d))
P = sinusoidal_positions(T_max, d)          # a learned P has the same shape T_max x d
ids = np.array([[4, 7, 4, 1, 9, 4],
                [2, 2, 3, 0, 5, 6]])
B, T = ids.shape
H0 = E[ids] + P[:T]                         # P[:T] (T x d) broadcasts over the batch
H0_rope = E[ids]                            # RoPE models: the stream starts at the rows alone

print(shape_table({"B": B, "T": T, "d": d, "V": V, "T_max": T_max}, [
    ("embedding table", "E", E, "V d", "what the token is"),
    ("position table", "P", P, "T_max d", "where it is (sinusoidal here)"),
    ("initial residual stream", "H^{(0)}", H0, "B T d", r"$\mathbf h^{(0)}_t=E_{i_t,:}+P_{t,:}$"),
    ("RoPE model's initial stream", "", H0_rope, "B T d", "rows only; positions rotate q and k later"),
]))

loop = np.array([[E[ids[b, t]] + P[t] for t in range(T)] for b in range(B)])
print(check_close("H0[b, t] = E[ids[b, t]] + P[t] (loop over b and t)", H0, loop, eq="residual-init"))
print(check_close("token 4 at positions 0 and 2 differs by exactly P[0] - P[2]",
                  H0[0, 0] - H0[0, 2], P[0] - P[2], atol=1e-12))
gap = np.linalg.norm(H0[0, 0] - H0[0, 2])
print(check_less("so the two copies of token 4 are no longer equal", 0.0, gap, names=("0", "||h_0 - h_2||")))
print(check_close("with RoPE nothing is added: the two copies of token 4 stay equal",
                  H0_rope[0, 0], H0_rope[0, 2], atol=0.0, eq="residual-init"))
print(check_close("the same P[t] is added to both texts of the batch",
                  H0[0] - E[ids[0]], H0[1] - E[ids[1]], atol=1e-12))
print(check_equal("GPT-2 small's learned position table: 1,024 x 768 parameters",
                  np.broadcast_to(np.float32(0), (1024, 768)).size, 786_432))
