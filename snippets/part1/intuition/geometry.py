"""1.2 Why continuous geometry helps: one-hot codes are all sqrt(2) apart; learned rows are not."""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_less, figure, glue, one_hot, shape_table, svg

words = ["cat", "dog", "puppy", "car", "truck", "bus"]
V, d = len(words), 2
O = one_hot(np.arange(V), V)          # row i is the one-hot code e_i of token i
# Rows of the kind training produces (written by hand here): pets on one side, vehicles on the other.
E = np.array([[1.0, 0.8], [1.2, 1.0], [1.3, 0.9],
              [-1.0, 0.9], [-1.3, 0.6], [-1.1, 0.4]])


def pairwise(A):
    """All distances ||a_i - a_j|| by broadcasting."""
    return np.linalg.norm(A[:, None, :] - A[None, :, :], axis=-1)


D_hot, D_emb = pairwise(O), pairwise(E)

print(shape_table({"V": V, "d": d}, [
    ("one-hot codes", "I", O, "V V", r"row $i$ is $\mathbf e_i$; width grows with the vocabulary"),
    ("embedding table", "E", E, "V d", "two numbers per token, placed by training"),
    ("one-hot distances", "", D_hot, "V V", r"$\lVert\mathbf e_i-\mathbf e_j\rVert_2$"),
    ("embedding distances", "", D_emb, "V V", r"$\lVert E_{i,:}-E_{j,:}\rVert_2$"),
]))

off = ~np.eye(V, dtype=bool)
loop = [np.sqrt(sum((O[i, k] - O[j, k]) ** 2 for k in range(V))) for i in range(V) for j in range(V) if i != j]
print(check_close("every pair of distinct one-hot codes is sqrt(2) apart (vectorised distances vs the closed form)",
                  D_hot[off], np.full(V * (V - 1), np.sqrt(2.0)), eq="onehot-distance"))
print(check_close("a loop over coordinates gives the same 30 distances", D_hot[off], np.array(loop)))
print(check_equal("one-hot codes: the number of distinct off-diagonal distances",
                  len(np.unique(D_hot[off].round(12))), 1))
print(check_less("learned rows: dog is closer to puppy than to truck",
                 D_emb[1, 2], D_emb[1, 4], names=("d(dog, puppy)", "d(dog, truck)")))
print(check_less("learned rows: the largest pet-pet distance is below the smallest pet-vehicle distance",
                 D_emb[:3, :3].max(), D_emb[:3, 3:].min(), names=("max pet-pet", "min pet-vehicle")))

fig, axes = figure(1, 2, size=(7.0, 3.1))
fig.subplots_adjust(wspace=0.45)
for ax, D, title in ((axes[0], D_hot, "one-hot codes"), (axes[1], D_emb, "learned rows (d = 2)")):
    ax.imshow(D, cmap="viridis", vmin=0, vmax=2.6)
    ax.set_xticks(range(V), words, rotation=60)
    ax.set_yticks(range(V), words)
    ax.grid(False)
    ax.set_title(title)
    for i in range(V):
        for j in range(V):
            ax.text(j, i, f"{D[i, j]:.1f}", ha="center", va="center", fontsize=7,
                    color="white" if D[i, j] < 1.6 else "#111111")
off_hot = D_hot[off]
pets, vehicles = D_emb[:3, :3][~np.eye(3, dtype=bool)], D_emb[:3, 3:]
print(svg(fig, alt=f"Two {V} by {V} distance matrices. One-hot codes: every off-diagonal entry is "
                   f"{off_hot.min():.3f}. Learned rows: pet-pet distances at most {pets.max():.3f}, "
                   f"pet-vehicle distances at least {vehicles.min():.3f}.",
          caption=f"Pairwise distances. Left: every off-diagonal entry is {off_hot.min():.2f}, the square "
                  f"root of 2. Right: pets are within {pets.max():.2f} of each other and at least "
                  f"{vehicles.min():.2f} from every vehicle."))

# What transfers, and where. A linear readout score(j) = beta^T c_j scores token j from its code c_j.
# One gradient step that raises the score of "dog" (loss -score(dog), step eta) moves beta by eta c_dog,
# so every score moves by eta c_dog^T c_j: with one-hot codes only dog's score moves.
eta = 0.1
dog, puppy, truck = (words.index(w) for w in ("dog", "puppy", "truck"))


def step_changes(codes):
    """Scores of all tokens after one gradient step on -score(dog), minus the scores before it
    (computed by taking the step, not from the closed form)."""
    beta = np.zeros(codes.shape[1])
    grad = -codes[dog]                     # d(-score(dog))/d beta
    return codes @ (beta - eta * grad) - codes @ beta


dS_hot, dS_emb = step_changes(O), step_changes(E)
print(check_close("one-hot codes: the step for 'dog' leaves every other score exactly unchanged "
                  "(closed form eta e_dog^T e_j = 0)", dS_hot[np.arange(V) != dog], np.zeros(V - 1), atol=0.0))
print(check_close("learned rows: the step for 'dog' moves score j by eta E_dog . E_j (closed form, all 6)",
                  dS_emb, eta * np.array([sum(E[dog, k] * E[j, k] for k in range(d)) for j in range(V)]),
                  atol=1e-12))
print(check_less("learned rows: 'puppy' gains more from the step than 'truck'",
                 dS_emb[truck], dS_emb[puppy], names=("change of s_truck", "change of s_puppy")))
# The same learned rows, produced by a linear layer that reads the one-hot codes (2.2):
# e_i^T E = E_i, so a model whose first layer is E, reading one-hot codes, transfers exactly as above.
print(check_close("a linear layer E reading the one-hot codes outputs the learned rows (O E vs E, by a loop)",
                  O @ E, np.array([[sum(O[i, m] * E[m, k] for m in range(V)) for k in range(d)] for i in range(V)]),
                  atol=0.0))

print(check_close("d(dog, puppy) is sqrt(0.1^2 + 0.1^2), worked by hand from the rows (1.2, 1.0) and (1.3, 0.9)",
                  D_emb[dog, puppy], np.sqrt(0.1 ** 2 + 0.1 ** 2), atol=1e-12))
print(glue("dist_dog_puppy", D_emb[dog, puppy], ".3f"))
print(glue("dist_dog_truck", D_emb[dog, truck], ".2f"))
print(glue("eta_transfer", eta, ".1f"))
print(glue("gain_puppy", dS_emb[puppy], ".3f"))
print(glue("gain_truck", dS_emb[truck], "+.3f"))
