"""Try this: halve every learned row (E = 0.5 x the hand-made rows). Every distance halves, so pets stay closer to
pets than to vehicles, but the score change that the step for "dog" passes to another token, eta E_dog . E_j, is a
product of two rows: it shrinks to a quarter, not a half."""
import numpy as np

from esm import check_close, check_less

words = ["cat", "dog", "puppy", "car", "truck", "bus"]
V, d = len(words), 2
rows = np.array([[1.0, 0.8], [1.2, 1.0], [1.3, 0.9],
                 [-1.0, 0.9], [-1.3, 0.6], [-1.1, 0.4]])        # the rows of 1.2
E = 0.5 * rows                                                  # changed: was rows, unscaled
eta = 0.1
dog, puppy, truck = (words.index(w) for w in ("dog", "puppy", "truck"))


def pairwise(A):
    """All distances ||a_i - a_j|| by broadcasting."""
    return np.linalg.norm(A[:, None, :] - A[None, :, :], axis=-1)


def step_changes(codes):
    """Scores of all tokens after one gradient step on -score(dog), minus the scores before it."""
    beta = np.zeros(codes.shape[1])
    grad = -codes[dog]                     # d(-score(dog))/d beta
    return codes @ (beta - eta * grad) - codes @ beta


D, D_full = pairwise(E), pairwise(rows)
gain, gain_full = step_changes(E), step_changes(rows)
print(f"d(dog, puppy) {D_full[dog, puppy]:.3f} -> {D[dog, puppy]:.3f};  gain of puppy {gain_full[puppy]:.4f} -> "
      f"{gain[puppy]:.4f};  of truck {gain_full[truck]:+.4f} -> {gain[truck]:+.4f}")
print(check_less("halved rows: the largest pet-pet distance is still below the smallest pet-vehicle distance",
                 D[:3, :3].max(), D[:3, 3:].min(), names=("max pet-pet", "min pet-vehicle")))
print(check_close("every distance is half of what it was (all 36 pairs)", D, 0.5 * D_full, atol=1e-12))
print(check_close("but every score change from the step for 'dog' is a quarter of what it was (all 6 tokens)",
                  gain, 0.25 * gain_full, atol=1e-12))
