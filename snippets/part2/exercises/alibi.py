"""Exercise: the ALiBi slopes for 8 heads (indexed from 0) and the bias matrix of head 0."""
import numpy as np

from esm import alibi_bias, alibi_slopes, check_close, check_equal, glue, shape_table

H, T = 8, 5
m = alibi_slopes(H)
Bias = alibi_bias(T, m[0])
print(shape_table({"H": H, "T": T}, [("slopes", r"\mathbf m", m, "H", rf"$2^{{-8(h+1)/H}}$, $h=0,\dots,{H - 1}$"),
                                     ("bias of head 0", "", Bias, "T T", r"$-m_0(t-s)$, $-\infty$ above the diagonal")]))
print(check_close("(b) slopes 1/2, 1/4, ..., 1/256 for heads 0..7", m, [0.5 ** (h + 1) for h in range(H)], atol=0.0))
loop = np.full((T, T), -np.inf)
for t in range(T):
    for s_ in range(t + 1):
        loop[t, s_] = -m[0] * (t - s_)
print(check_equal("(b) head 0's bias is -inf exactly above the diagonal (query t, key s > t)",
                  np.isinf(Bias).tolist(), np.isinf(loop).tolist()))
print(check_close("(b) and elsewhere equals a loop over (t, s), -m_0 (t - s)", np.where(np.isinf(Bias), 0, Bias),
                  np.where(np.isinf(loop), 0, loop), atol=0.0))
exp = 8 * (H - 1) / H
print(check_close(f"(a) m_0 / m_(H-1) = 2^(8(H-1)/H) = 2^{exp:g} (slopes' ratio vs the closed form)", m[0] / m[-1],
                  2.0 ** exp, atol=1e-12))
print(f"\nrow 4 of head 0: {Bias[4] + 0.0}; head {H - 1} penalises the same distance {m[0] / m[-1]:.0f} times less.")
print(glue("e9_H", H), glue("e9_T", T), glue("e9_row", Bias[T - 1] + 0.0, "g"), glue("e9_ratio", m[0] / m[-1], ".0f"),
      glue("e9_last", 2 ** H), glue("e9_exp", exp, "g"), sep="")
