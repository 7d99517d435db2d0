"""Try this: shrink each row's own random part (its scale 0.3 to 0.1): the shared direction now outweighs it in
every draw, so `cat` is closer to `dog` than to `quantum` in all of them, not just most."""
import numpy as np

from esm import check_equal, check_true, cosine

vocab = ["cat", "dog", "quantum", "physics", "the"]
V, d = len(vocab), 8
animal, science = np.zeros(d), np.zeros(d)
animal[0], science[1] = 1.0, 1.0


def table_of(seed):
    own = 0.1 * np.random.default_rng(seed).normal(size=(V, d))      # changed: was 0.3 * ...
    return own + np.array([animal, animal, science, science, np.zeros(d)])


draws = range(1000)
gaps = np.array([cosine(T[0], T[1]) - cosine(T[0], T[2]) for T in map(table_of, draws)])
print(f"cos(cat, dog) - cos(cat, quantum) over {len(draws)} draws: smallest {gaps.min():.2f}, "
      f"median {np.median(gaps):.2f}")
print(check_equal(f"cat is closer to dog than to quantum in every one of the {len(draws)} draws",
                  int((gaps > 0).sum()), len(draws)))
print(check_true("even the closest call leaves a clear gap: more than 0.1 in cosine", gaps.min() > 0.1,
                 f"smallest gap {gaps.min():.3f}"))
