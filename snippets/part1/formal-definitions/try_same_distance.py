"""Try this: follow another token at another pair of positions the same distance apart: token 1 at positions 3
and 5 of the text [4, 7, 4, 1, 9, 1] instead of token 4 at positions 0 and 2. The token's row drops out of the
difference, and the sinusoidal gap depends only on t2 - t1, so the two states are exactly as far apart."""
import numpy as np

from esm import check_close, check_true, sinusoidal_positions

rng = np.random.default_rng(25)
V, d, T_max = 10, 8, 16
E = rng.normal(0.0, 1.0, (V, d))
P = sinusoidal_positions(T_max, d)
ids = np.array([4, 7, 4, 1, 9, 1])      # changed: was [4, 7, 4, 1, 9, 4], the first text of 2.5
X0 = E[ids] + P[:len(ids)]


def gap(tok):
    """||h_t1 - h_t2|| for the first two positions of token tok."""
    t1, t2 = [t for t in range(len(ids)) if ids[t] == tok][:2]
    return t1, t2, float(np.linalg.norm(X0[t1] - X0[t2]))


t1, t2, g_new = gap(1)
s1, s2, g_old = gap(4)
page_ids = np.array([4, 7, 4, 1, 9, 4])              # for contrast: token 4 at 2 and 5 in the page's text, 3 apart
g_far = float(np.linalg.norm((E[page_ids] + P[:6])[2] - (E[page_ids] + P[:6])[5]))
print(f"token 1 at {t1} and {t2}: gap {g_new:.4f};  token 4 at {s1} and {s2}: gap {g_old:.4f};  "
      f"token 4 at 2 and 5 (page's text): gap {g_far:.4f}")
print(check_close(f"token 1 at positions {t1}, {t2} is exactly as far from itself as token 4 at {s1}, {s2}",
                  g_new, g_old, atol=1e-12))
print(check_close("both gaps are ||P_t1 - P_t2||, a difference of positions alone", [g_new, g_old],
                  [np.linalg.norm(P[t1] - P[t2]), np.linalg.norm(P[s1] - P[s2])], atol=1e-12))
print(check_true("while the same token 3 positions apart (token 4 at 2 and 5 in the page's text) has another gap",
                 abs(g_far - g_new) > 0.1, f"gap {g_far:.4f} at distance 3 against {g_new:.4f} at distance 2"))
