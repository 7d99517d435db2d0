"""2.5 Residual stream initialization: h^(0)_t = E[i_t] + P[t]; with RoPE nothing is added."""
import math

import numpy as np

from esm import check_close, glue, shape_table, sinusoidal_positions

rng = np.random.default_rng(25)
V, d, T_max = 10, 8, 16
E = rng.normal(0.0, 1.0, (V, d))
P = sinusoidal_positions(T_max, d)          # a learned P has the same shape T_max x d
ids = np.array([[4, 7, 4, 1, 9, 4],
                [2, 2, 3, 0, 5, 6]])
B, T = ids.shape
X0 = E[ids] + P[:T]                         # P[:T] (T x d) broadcasts over the batch
X0_rope = E[ids]                            # RoPE models: the stream starts at the rows alone

print(shape_table({"B": B, "T": T, "d": d, "V": V, "T_max": T_max}, [
    ("embedding table", "E", E, "V d", "what the token is"),
    ("position table", "P", P, "T_max d", "where it is (sinusoidal here)"),
    ("initial residual stream", "X^{(0)}", X0, "B T d", r"row $(n,t)$ is $\mathbf h^{(0)}_t=E_{i_t,:}+P_{t,:}$"),
    ("RoPE model's initial stream", "", X0_rope, "B T d", "rows only; positions rotate q and k later"),
]))

loop = np.array([[E[ids[n, t]] + P[t] for t in range(T)] for n in range(B)])
print(check_close("X0[n, t] = E[ids[n, t]] + P[t] (loop over n and t)", X0, loop, eq="residual-init"))
tok = 4
t1, t2 = [t for t in range(T) if ids[0, t] == tok][:2]
gap = np.linalg.norm(X0[0, t1] - X0[0, t2])
# Closed form for the sinusoidal table: each pair (sin, cos) at frequency w_j contributes
# (sin t1 w - sin t2 w)^2 + (cos t1 w - cos t2 w)^2 = 2 - 2 cos((t2 - t1) w_j).
omega = 10000.0 ** (-np.arange(0, d, 2) / d)
closed = np.sqrt(np.sum(2 - 2 * np.cos((t2 - t1) * omega)))
print(check_close(f"token {tok} at positions {t1} and {t2}: ||h_{t1} - h_{t2}|| = sqrt(sum_j 2 - 2 cos(({t2}-{t1}) w_j))",
                  gap, closed, atol=1e-12, eq="residual-init"))
# With RoPE nothing is added, so the two copies of token 4 start as the same row E[4]: true by construction
# (E[4] against E[4]), so not a check.
print(check_close("the same P[t] is added to both texts of the batch",
                  X0[0] - E[ids[0]], X0[1] - E[ids[1]], atol=1e-12))

# By hand: d = 2 and the quarter-turn table of 6.2, P_t = (sin(pi t / 2), cos(pi t / 2)), so every entry is 0, 1 or -1.
P_hand = np.array([[math.sin(math.pi * t / 2), math.cos(math.pi * t / 2)] for t in range(3)])
P_int = np.array([[0, 1], [1, 0], [0, -1]])                        # the same rows written by hand
print(check_close("by hand: P_0, P_1, P_2 = (0, 1), (1, 0), (0, -1) vs math.sin / math.cos at a quarter turn",
                  P_hand, P_int, atol=1e-12, eq="residual-init"))
row_hand = np.array([1, 2])                                        # one token's row, d = 2
h0_hand, h2_hand = row_hand + P_int[0], row_hand + P_int[2]
print(check_close("by hand: the gap of the two states, ||h_0 - h_2||, vs the closed form sqrt(2 - 2 cos(2 pi/2)) = 2",
                  np.linalg.norm(h0_hand - h2_hand), math.sqrt(2 - 2 * math.cos(2 * math.pi / 2)), atol=1e-12))
print(glue("hp_P0", P_int[0]), glue("hp_P2", P_int[2]), glue("hp_row", row_hand),
      glue("hp_diff", h0_hand - h2_hand),
      glue("hp_gap", int(round(np.linalg.norm(h0_hand - h2_hand)))))

print(glue("res_tok", tok))
print(glue("res_t1", t1))
print(glue("res_t2", t2))
print(glue("res_gap", gap, ".3f"))
print(glue("gpt2_pos_params", 1_024 * 768, ","))   # GPT-2 small: T_max = 1,024, d = 768
