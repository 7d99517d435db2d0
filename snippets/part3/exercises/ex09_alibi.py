"""Exercise 10.9: the ALiBi slopes for 8 heads and the bias matrix of the first head."""
import numpy as np

from esm import alibi_bias, alibi_slopes, check_close, glue, shape_table

H, T = 8, 5
m = alibi_slopes(H)
Bias = alibi_bias(T, m[0])
print(shape_table({"H": H, "T": T}, [("slopes", r"\mathbf m", m, "H", "$2^{-8h/H}$, h = 1..8"),
                                     ("bias of head 1", "", Bias, "T T", r"$-m_1(i-j)$, $-\infty$ above the diagonal")]))
print(check_close("(b) slopes 1/2, 1/4, ..., 1/256", m, [0.5 ** h for h in range(1, H + 1)], atol=0.0))
loop = np.full((T, T), -np.inf)
for i in range(T):
    for j in range(i + 1):
        loop[i, j] = -m[0] * (i - j)
print(check_close("(b) head 1's bias matrix equals a loop over (i, j)", np.where(np.isinf(Bias), 0, Bias),
                  np.where(np.isinf(loop), 0, loop), atol=0.0))
print(f"\nrow 4 of head 1: {Bias[4] + 0.0}; head 8 penalises the same distance {m[0] / m[-1]:.0f} times less.")
print(glue("e9_H", H), glue("e9_T", T), glue("e9_row", Bias[T - 1] + 0.0, "g"), glue("e9_ratio", m[0] / m[-1], ".0f"),
      glue("e9_last", 2 ** H), sep="")
