"""1.2 Why continuous geometry helps: one-hot codes are all sqrt(2) apart; learned rows are not."""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_less, figure, one_hot, shape_table, svg

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
print(svg(fig, alt="Two distance matrices: one-hot codes are uniformly 1.4 apart, learned rows form a pet block and a vehicle block",
          caption="Pairwise distances. Left: every off-diagonal entry is 1.41, the square root of 2. "
                  "Right: pets are close to pets and far from vehicles."))
