"""Exercise: what the ALiBi bias alone does to the last query's weights (equal content scores): the
weight on the current key, the mean distance looked back, and a window that holds all but 1% of the
weight at every length."""
import numpy as np

from esm import alibi_bias, alibi_slopes, check_close, check_equal, check_true, glue, shape_table, softmax

H, T = 8, 5
m = alibi_slopes(H)
print(shape_table({"H": H, "T": T}, [("slopes", r"\mathbf m", m, "H", rf"$2^{{-8(h+1)/H}}$, $h=0,\dots,{H - 1}$"),
                                     ("bias of head 0", "", alibi_bias(T, m[0]), "T T", r"$-m_0(t-s)$, $-\infty$ above the diagonal")]))


def last_weights(slope, n):
    """Weights of the last query over n keys, equal content scores: the softmax of the bias row (distance n-1 .. 0)."""
    return softmax(alibi_bias(n, slope)[n - 1])[::-1]          # index = distance back


def w0_closed(slope, n):
    r = np.exp(-slope)
    return (1 - r) / (1 - r ** n)


def mean_closed(slope, n):
    r = np.exp(-slope)
    return r / (1 - r) - n * r ** n / (1 - r ** n)


heads = [0, H - 1]
lengths = [T, 64, 4096]
for h in heads:
    for n in lengths:
        w = last_weights(m[h], n)
        print(check_close(f"(a) head {h}, T = {n}: weight on distance 0 is (1 - e^-m)/(1 - e^-mT) (softmax vs closed form)",
                          w[0], w0_closed(m[h], n), atol=1e-12))
        print(check_close(f"(b) head {h}, T = {n}: mean distance back (loop over keys vs closed form)",
                          float(np.arange(n) @ w), mean_closed(m[h], n), atol=1e-9))
# (c) the weight beyond distance delta is at most e^(-m (delta + 1)), whatever T: the 1% window.
window = {h: int(np.ceil(np.log(100) / m[h])) - 1 for h in heads}
for h in heads:
    delta = window[h]
    tails = [float(last_weights(m[h], n)[delta + 1:].sum()) for n in range(delta + 2, 4 * (delta + 2), max(1, delta // 8))]
    print(check_true(f"(c) head {h}: beyond distance {delta} the weight is below 1% at every T tried (loop over T)",
                     max(tails) <= 0.01, f"largest tail {max(tails):.6f}"))
    print(check_true(f"(c) head {h}: and distance {delta} is the smallest such window (its limit tail at delta - 1 is over 1%)",
                     np.exp(-m[h] * delta) > 0.01, f"e^(-m delta) = {np.exp(-m[h] * delta):.5f}"))
print(check_equal("the slopes are 1/2, 1/4, ..., 1/256 (2^-(h+1) by a loop)", m.tolist(), [0.5 ** (h + 1) for h in range(H)]))
print(glue("e9_H", H), glue("e9_T", T), glue("e9_last", 2 ** H),
      glue("e9_w0_0", w0_closed(m[0], T), ".3f"), glue("e9_w0_7", w0_closed(m[H - 1], T), ".3f"),
      glue("e9_w0_0inf", 1 - np.exp(-m[0]), ".3f"), glue("e9_w0_7inf", 1 - np.exp(-m[H - 1]), ".4f"),
      glue("e9_mean_0", mean_closed(m[0], T), ".3f"), glue("e9_mean_7", mean_closed(m[H - 1], T), ".3f"),
      glue("e9_mean_0_big", mean_closed(m[0], 4096), ".3f"), glue("e9_mean_7_big", mean_closed(m[H - 1], 4096), ".1f"),
      glue("e9_win_0", window[0]), glue("e9_win_7", window[H - 1]), sep="")
