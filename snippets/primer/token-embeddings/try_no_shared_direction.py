"""Try this: build the table without the shared "animal" direction (its size 1.0 set to 0.0): `cat` is then
closer to `dog` than to `quantum` in only about half of the draws, a coin flip, where the shared direction made
it most of them."""
import numpy as np

from esm import check_less, check_true, cosine, share_of_seeds

vocab = ["cat", "dog", "quantum", "physics", "the"]
V, d = len(vocab), 8


def table_of(seed, size):
    """The page's table: a random part of each row's own, plus the animal direction (of the given size) for
    cat and dog and the science direction for quantum and physics."""
    animal, science = np.zeros(d), np.zeros(d)
    animal[0], science[1] = size, 1.0
    own = 0.3 * np.random.default_rng(seed).normal(size=(V, d))
    return own + np.array([animal, animal, science, science, np.zeros(d)])


def closer(T):
    return cosine(T[0], T[1]) > cosine(T[0], T[2])


draws = range(1000)
with_it = share_of_seeds(lambda s: closer(table_of(s, 1.0)), draws)
without = share_of_seeds(lambda s: closer(table_of(s, 0.0)), draws)       # changed: was size 1.0
print(f"cat closer to dog than to quantum: {with_it:.1%} of {len(draws)} draws with the animal direction, "
      f"{without:.1%} without it")
print(check_true("without the shared direction it is a coin flip: between 40% and 60% of the draws",
                 0.4 < without < 0.6, f"share {without:.3f} of {len(draws)} draws"))
print(check_less("far fewer draws than with the shared direction", without, with_it,
                 names=("share without", "share with")))
