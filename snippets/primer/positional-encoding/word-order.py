"""P2 The problem: without positions, attention cannot tell 'the cat ate the fish' from
'the fish ate the cat'; adding a position vector to each row fixes that."""
import numpy as np

from esm import attention, check_close, check_true, glue, one_hot, shape_table, sinusoidal_positions

rng = np.random.default_rng(2)
vocab = {"the": 0, "cat": 1, "ate": 2, "fish": 3}
d = 8
E = rng.normal(size=(len(vocab), d))
W_Q, W_K, W_V = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))

def self_attn(H):                       # no causal mask: every position sees every other
    return attention(H @ W_Q, H @ W_K, H @ W_V)[0]

s1 = ["the", "cat", "ate", "the", "fish"]
s2 = ["the", "fish", "ate", "the", "cat"]
X1, X2 = E[[vocab[w] for w in s1]], E[[vocab[w] for w in s2]]
T = len(s1)

# Attention commutes with any reordering Pi of the rows: Attn(Pi X) = Pi Attn(X).
perm = rng.permutation(T)
Pi = np.eye(T)[perm]
print(check_close("permuting the input rows permutes the output rows, nothing else (section 6.1)", self_attn(Pi @ X1), Pi @ self_attn(X1)))
Z1, Z2 = self_attn(X1), self_attn(X2)
print(check_close("without positions or a mask, 'cat' gets the same output in both sentences (position 1 vs 4)",
                  Z1[1], Z2[4]))
print(glue("d_order", d))

PE = sinusoidal_positions(T, d)
H1, H2 = X1 + PE, X2 + PE
# Another route to the same sum: one matrix product of the stacked one-hot codes of token and
# position, [e_i, e_t], with the stacked tables [E; P].
codes = np.hstack([one_hot([vocab[w] for w in s1], len(vocab)), one_hot(np.arange(T), T)])
print(check_close("the input to the first layer is token row plus position row (vs one-hot codes times [E; P])",
                  H1, codes @ np.vstack([E, PE]), eq="add-position"))
print(shape_table({"T": T, "d": d}, [
    ("token rows", "X", X1, "T d", "row $t$ is $E_{i_t,:}$"),
    ("position rows", "P_{0:T,:}", PE, "T d", "row $t$ is $P_{t,:}$ (sinusoidal)"),
    ("first-layer input", "X^{(0)}", H1, "T d", "$X+P_{0:T,:}$"),
]))
gap = float(np.linalg.norm(self_attn(H1)[1] - self_attn(H2)[4]))
print(glue("cat_gap", gap, ".2f"), glue("cat_len_1", float(np.linalg.norm(self_attn(H1)[1])), ".2f"),
      glue("cat_len_2", float(np.linalg.norm(self_attn(H2)[4])), ".2f"))
print(check_true("with positions added, the two outputs for 'cat' differ", gap > 0.1, f"distance {gap:.3f} > 0.1"))
