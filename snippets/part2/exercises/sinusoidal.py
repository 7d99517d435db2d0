"""Exercise: sinusoidal encodings, one entry by hand, the shift as a rotation, and a bilinear score that
tells k steps ahead from k steps behind."""
import numpy as np

from esm import check_close, check_true, glue, shape_table, sinusoidal_positions

T, d = 8, 6
PE = sinusoidal_positions(T, d)
print(shape_table({"T": T, "d": d}, [("encodings", "P", PE, "T d", "row p encodes position p")]))
print(check_close("(a) PE[3, 2] = sin(3 / 10000^(2/6))", PE[3, 2], np.sin(3 / 10000 ** (2 / 6)), atol=1e-15))
print(check_close("(a) PE[1, 0] = sin(1)", PE[1, 0], np.sin(1.0), atol=1e-15))
# (a) coordinate 4 is sin(w_2 t): one step changes it by 2 cos(w_2 (t + 1/2)) sin(w_2 / 2), at most 2 sin(w_2 / 2) < w_2.
w2 = 10000 ** (-4 / 6)
long = sinusoidal_positions(20_000, d)[:, 4]                   # far beyond T: the bound holds for every t
steps = np.abs(np.diff(long))
print(check_close("(a) each step of coordinate 4 is |2 cos(w_2 (t + 1/2)) sin(w_2 / 2)| (table of 20,000 positions)",
                  steps, np.abs(2 * np.cos(w2 * (np.arange(len(steps)) + 0.5)) * np.sin(w2 / 2)), atol=1e-12))
print(check_true("(a) ... so no step exceeds 2 sin(w_2 / 2) < w_2 (tolerance 1e-12), and the largest comes close to it",
                 bool(steps.max() <= 2 * np.sin(w2 / 2) + 1e-12 and 2 * np.sin(w2 / 2) < w2
                      and steps.max() > 0.999 * 2 * np.sin(w2 / 2)), f"largest {steps.max():.6g}, w_2 = {w2:.6g}"))
step_T = float(np.abs(np.diff(PE[:, 4])).max())
# Shift by k: each pair (sin, cos) at frequency w rotates by the angle k w, whatever p is.
k = 3
M = np.zeros((d, d))
for j in range(d // 2):
    w = 10000 ** (-2 * j / d)
    c, s = np.cos(k * w), np.sin(k * w)
    M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, s], [-s, c]]
print(check_close("the section's shift: PE[p + 3] = M_3 PE[p] for every p (one matrix for all positions)",
                  PE[:T - k] @ M.T, PE[k:], atol=1e-12))
print(f"\nrow 3: {np.round(PE[3], 4)}")
# (b) A = diag_j [[0, -1], [1, 0]]: (sin a, cos a) A (sin b, cos b)^T = -sin a cos b + cos a sin b = sin(b - a).
A = np.kron(np.eye(d // 2), np.array([[0.0, -1.0], [1.0, 0.0]]))
omega = 10000.0 ** (-2 * np.arange(d // 2) / d)
offsets = np.arange(-(T - 1), T)
for_all_t = [[PE[t] @ A @ PE[t + kk] for t in range(T) if 0 <= t + kk < T] for kk in offsets]
closed = np.array([np.sin(kk * omega).sum() for kk in offsets])
print(check_close("(b) PE_t^T A PE_(t+k) = sum_j sin(k w_j) for every t and every offset k (loop over the table)",
                  np.concatenate(for_all_t), np.concatenate([[c] * len(v) for c, v in zip(closed, for_all_t)]), atol=1e-12))
print(check_close("(b) the score is odd in k, the plain dot product even", [closed, [PE[0] @ PE[abs(kk)] for kk in offsets]],
                  [-closed[::-1], [PE[0] @ PE[abs(kk)] for kk in offsets[::-1]]], atol=1e-12))
ahead = closed[offsets > 0]
negative = [int(kk) for kk, v in zip(offsets[offsets > 0], ahead) if v < 0]
print(glue("e7_T", T), glue("e7_d", d), glue("e7_pe10", PE[1, 0], ".4f"), glue("e7_pe32", PE[3, 2], ".4f"),
      glue("e7_den", 10000 ** (2 / 6), ".2f"), glue("e7_w2", w2, ".5f"), glue("e7_step", step_T, ".5f"),
      glue("e7_neg", " and ".join(map(str, negative))), glue("e7_sin4", float(closed[offsets == 4][0]), ".3f"), sep="")
