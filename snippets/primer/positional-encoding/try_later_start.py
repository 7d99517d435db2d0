"""Try this: let both sentences start at position 1000 of a longer text instead of at 0: `cat` still gets two
different outputs, because its position rows at 1001 and 1004 are new rows but exactly as far apart as those at
1 and 4 (a sinusoidal distance depends on the offset only)."""
import numpy as np

from esm import attention, check_close, check_true, sinusoidal_positions

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

start = 1000
PE = sinusoidal_positions(start + T, d)[start:]          # changed: was sinusoidal_positions(T, d), positions 0..4
PE0 = sinusoidal_positions(T, d)                          # the page's rows, for comparison
gap = float(np.linalg.norm(self_attn(X1 + PE)[1] - self_attn(X2 + PE)[4]))
print(f"distance between the two outputs for 'cat': {gap:.2f} at positions 1001 and 1004")
print(check_true("cat at positions 1001 and 1004 still gets two different outputs", gap > 0.01,
                 f"distance {gap:.3f} > 0.01"))
new_rows = float(np.linalg.norm(PE[[1, 4]] - PE0[[1, 4]]))
print(check_true("the position rows at 1001 and 1004 are not the rows at 1 and 4", new_rows > 0.1,
                 f"they differ by {new_rows:.2f}"))
print(check_close("yet they are exactly as far apart as the rows at 1 and 4",
                  np.linalg.norm(PE[1] - PE[4]), np.linalg.norm(PE0[1] - PE0[4]), atol=1e-9))
