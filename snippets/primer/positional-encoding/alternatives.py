"""P2 Modern alternatives: where each scheme enters, what it costs in parameters, and a
computed property of each."""
import numpy as np

from esm import alibi_bias, alibi_slopes, check_close, check_equal, rope_rotate, table

rng = np.random.default_rng(3)
d, T_max = 768, 1024                       # GPT-2 small width and context length
q, k = rng.normal(size=64), rng.normal(size=64)
# RoPE: the score of a rotated query and key depends on the offset only.
s_a = rope_rotate(q, 10) @ rope_rotate(k, 7)
s_b = rope_rotate(q, 510) @ rope_rotate(k, 507)
print(check_close("RoPE score for positions (10, 7) equals the score for (510, 507)", s_a, s_b, atol=1e-9))
slopes = alibi_slopes(8)
print(check_close("ALiBi slopes for 8 heads are 1/2, 1/4, ..., 1/256", slopes, 1 / 2.0 ** np.arange(1, 9)))
B = alibi_bias(4, slopes[0])
print(check_equal("ALiBi bias row of query 3 (slope 1/2): -m(t - s) for keys s = 0..3", B[3], np.array([-1.5, -1.0, -0.5, 0.0])))

print(table(("method", "how it works", "parameters", "computed here", "used by"), [
    ("sinusoidal", "fixed sin/cos waves, added at the input", "0", "norm $\\sqrt{d/2}$ at every position",
     "original Transformer"),
    ("learned", "a trained row per position, added at the input", f"$T_{{\\max}}d$ = {T_max * d:,} (GPT-2 small)",
     "no row for positions $\\ge T_{\\max}$", "GPT-2, BERT"),
    ("RoPE", "rotates queries and keys in every layer", "0", f"score {s_a:.4f} for (10, 7) and (510, 507)",
     "LLaMA, GPT-NeoX"),
    ("ALiBi", "adds $-m_h(t-s)$ to the scores in every layer", "0", "slopes $1/2,\\dots,1/256$ for 8 heads", "BLOOM"),
]))
