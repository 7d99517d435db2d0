"""Try this: continue the samples' prompt for 240 tokens instead of 60 with the trained model. Greedy
decoding then repeats itself: most stretches of 8 tokens it writes are copies of earlier ones, as it
settles into a few lines it writes again and again. Top-p sampling, drawing each token at random,
hardly ever repeats a stretch."""
import numpy as np

from esm import check_less
from esm.tokenizer import VOCAB_SIZE, bpe_decode, data
from esm.train import SNAPSHOTS, TRAIN, sample_tokens, trained

D = data()
model, _, _, _ = trained(D.train, D.val, VOCAB_SIZE, TRAIN, snapshots=SNAPSHOTS)   # the page's run
breaks = [i for i, t in enumerate(D.val[:400].tolist()) if bpe_decode([t], D.alphabet, D.merges) == "\n\n"]
prompt = D.val[breaks[0] + 1:breaks[0] + 25]                 # the samples' prompt
n = 240                                                      # changed: was 60 tokens


def repeated(ids, k=8):
    """The share of the stretches of k tokens that already occurred earlier in the same continuation."""
    grams = [tuple(ids[i:i + k]) for i in range(len(ids) - k + 1)]
    return sum(g in set(grams[:i]) for i, g in enumerate(grams)) / len(grams)


greedy = sample_tokens(model, prompt, n)
nucleus = sample_tokens(model, prompt, n, np.random.default_rng(1), top_p=0.9)
print(f"repeated 8-token stretches: greedy {repeated(greedy):.0%}, top-p {repeated(nucleus):.0%}; "
      f"greedy's last line: {bpe_decode(greedy, D.alphabet, D.merges).splitlines()[-2]!r}")
print(check_less("greedy decoding repeats itself: more than a quarter of its 8-token stretches occurred earlier in it",
                 0.25, repeated(greedy), names=("0.25", "greedy's share")))
print(check_less("top-p sampling (xi = 0.9, the page's sampling seed) repeats fewer than 10% of them",
                 repeated(nucleus), 0.1, names=("top-p's share", "0.1")))
