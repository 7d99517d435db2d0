"""9.10 With tied embeddings the output head is the input table: count it once, and know that
editing one edits the other."""
import numpy as np

from esm import check_equal

rng = np.random.default_rng(100)
V, d = 8, 4
E = rng.normal(0.0, 1.0, (V, d))
W = E                                            # tied, as in GPT-2: the same array
h = rng.normal(0.0, 1.0, d)
before = W @ h

# Wrong 1: "freeze the head, fine-tune the inputs" while they are one array.
E[3] += 0.5                                      # an update meant for the input row of token 3
print(check_equal("wrong: the logit of token 3 moved although only the input table was updated",
                  bool(np.isclose((W @ h)[3], before[3])), False))
print(check_equal("the two names share one block of memory", bool(np.shares_memory(W, E)), True))
# Wrong 2: count both tables for GPT-2 small. Right: count the shared one once.
wrong_count = 2 * 50257 * 768 + 1024 * 768
right_count = 50257 * 768 + 1024 * 768
print(check_equal("right: GPT-2 small has 39,383,808 embedding parameters, not 77,981,184",
                  (right_count, wrong_count), (39_383_808, 77_981_184)))
# Right: untie explicitly (a copy) when the two must move separately.
W2 = E.copy()
head_before = W2 @ h
E[3] -= 0.5
print(check_equal("right: after untying with a copy, editing E leaves the head's logits alone",
                  W2 @ h, head_before))
