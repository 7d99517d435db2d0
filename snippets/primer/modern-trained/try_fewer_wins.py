"""Try this: in the sign test, suppose the modern block had ended lower on 15 of the 20 seeds instead of
all of them. Twenty fair coins give 15 or more alike (either way) less than one time in 20; but one
win fewer, 14 of 20, they give more than one time in 10, though 70% of the seeds would still favour
the modern block."""
import math

from esm import check_close, check_less

n = 20                                                       # the recorded seeds


def sign_test(wins, n):
    """2 P(at least max(wins, n - wins) of n fair coins alike), as in the runs demo."""
    return min(1.0, 2 * math.fsum(math.comb(n, k) for k in range(max(wins, n - wins), n + 1)) / 2 ** n)


wins = 15                                                    # changed: was the seeds where the modern block ends lower, all 20
print(f"sign test over {n} seeds: p = {sign_test(n, n):.0e} for {n} wins, {sign_test(wins, n):.3f} for {wins}, "
      f"{sign_test(wins - 1, n):.3f} for {wins - 1}")
print(check_less(f"{wins} wins of {n}: p is below 0.05, one time in 20", sign_test(wins, n), 0.05,
                 names=("p", "0.05")))
print(check_less(f"{wins - 1} wins of {n}: p is above 0.1, one time in 10", 0.1, sign_test(wins - 1, n),
                 names=("0.1", "p")))
# The same p by another route: all 2^n sequences of n coins, those with at least `wins` heads counted,
# twice (at least `wins` tails are as many).
tail = sum(bin(s).count("1") >= wins for s in range(2 ** n))
print(check_close(f"p for {wins} wins = 2 x (sequences of {n} coins with at least {wins} heads) / 2^{n}, all counted",
                  sign_test(wins, n), 2 * tail / 2 ** n, atol=1e-15))
