"""Try this: give the pipeline the longer text "mat on the cat" instead of "the cat". With no blocks the state is
the last row of X, so the prediction is exactly the one for "the cat"; only the last token counts."""
import numpy as np

from esm import check_close, check_true, softmax

vocab = ["the", "cat", "sat", "on", "mat"]
E = np.array([[-1, -3], [1, 2], [0, 1], [-1, 1], [1, -1]], dtype=float)     # the tables of 0.1
W = np.array([[2, -1], [1, -1], [0, 1], [1, 0], [-2, 1]], dtype=float)


def blocks(X):
    """The transformer blocks. This example has none: the states are the looked-up rows."""
    return X


def next_token(text):
    """The whole pipeline in one function: ids, lookup, blocks, logits, softmax, the likeliest token."""
    ids = [vocab.index(w) for w in text.split()]
    H = blocks(E[ids])
    p = softmax(W @ H[-1])
    return vocab[int(np.argmax(p))], p


text = "mat on the cat"                 # changed: was "the cat"
predicted, p = next_token(text)
_, p_short = next_token("the cat")
_, p_other = next_token("the mat")      # for contrast: a text that ends in another token

print(f"'{text}' -> {predicted}, p = " + ", ".join(f"{x:.3f}" for x in p))
print(check_close(f"'{text}' gets exactly the distribution of 'the cat': the three tokens before 'cat' change nothing",
                  p, p_short, atol=0.0))
print(check_true("while a text ending in another token, 'the mat', gets another distribution",
                 np.abs(p_other - p_short).max() > 0.1,
                 f"largest change of a probability {np.abs(p_other - p_short).max():.3f}"))
