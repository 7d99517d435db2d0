"""P6 Pre-LN and post-LN: the same parameters in both arrangements; what changes (identity at
zero sublayers, the scale of the stream through a deep stack)."""
import numpy as np

from esm import (PALETTE, block_forward, causal_mask, check_close, check_less, check_true, feed_forward, figure, glue,
                 init_block, layer_norm, multi_head_attention, svg)

rng = np.random.default_rng(6)
T, d, H = 5, 16, 4
p = init_block(rng, d)
X = rng.normal(size=(T, d)) * 3.0 + 1.0              # a stream that is not already normalised

# [post-ln] written out step by step, against the helper esm.block_forward(pre_ln=False).
mask = causal_mask(T)
mha = multi_head_attention(X, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], H, mask, p["b_Q"], p["b_K"], p["b_V"], p["b_O"])
U_post = layer_norm(X + mha, p["g_1"], p["beta_1"])
Y_post = layer_norm(U_post + feed_forward(U_post, p), p["g_2"], p["beta_2"])
print(check_close("post-LN: X~ = LN_1(X + MHA(X)), Y = LN_2(X~ + FFN(X~)), step by step = esm.block_forward(pre_ln=False)",
                  block_forward(X, p, H, mask, pre_ln=False), Y_post, eq="post-ln", atol=1e-12))

# With the sublayers' output weights and biases at zero: pre-LN is the identity, post-LN is not.
z = dict(p, W_O=np.zeros((d, d)), b_O=np.zeros(d), W_2=np.zeros((4 * d, d)), b_2=np.zeros(d))
pre0, post0 = block_forward(X, z, H, mask), block_forward(X, z, H, mask, pre_ln=False)
off = float(np.abs(post0 - X).max())
print(check_close("zeroed sublayers: the pre-LN block returns X exactly", pre0, X, atol=0))
print(check_close("zeroed sublayers: the post-LN block returns LN_2(LN_1(X)), two layer norms applied row by row",
                  post0, np.array([layer_norm(layer_norm(x, p["g_1"], p["beta_1"]), p["g_2"], p["beta_2"]) for x in X]),
                  atol=1e-12))
print(glue("post_off", off, ".2f"), glue("x_rms", float(np.sqrt((X ** 2).mean())), ".1f"))

# A deep stack of random blocks: the scale (RMS) of the stream, layer by layer.
L = 24

def unit_norms(blocks):                              # unit gains, zero shifts: LN outputs have RMS ~ 1
    for b in blocks:
        b["g_1"][:], b["g_2"][:], b["beta_1"][:], b["beta_2"][:] = 1.0, 1.0, 0.0, 0.0
    return blocks


def stream_rms(blocks, X0, pre):                     # the RMS of the stream after each block
    Z, out_ = X0, []
    for b in blocks:
        Z = block_forward(Z, b, H, mask, pre_ln=pre)
        out_.append(float(np.sqrt((Z ** 2).mean())))
    return out_


blocks = unit_norms([init_block(rng, d, scale=0.3) for _ in range(L)])     # the draw shown
X0 = rng.normal(size=(T, d))
rms = {pre: stream_rms(blocks, X0, pre) for pre in (True, False)}
grow = rms[True][-1] / float(np.sqrt((X0 ** 2).mean()))
print(glue("L_deep", L), glue("rms_grow", grow, ".1f"))

# Post-LN: each output row is LN'd with gain 1, shift 0, so its RMS is sqrt(var / (var + eps)) of the pre-LN sum: just under 1.
print(check_true(f"post-LN: after every one of the {L} blocks the stream's RMS is 1 up to eps (between 0.999 and 1)",
                 all(0.999 < r <= 1.0 for r in rms[False]), f"range {min(rms[False]):.5f} .. {max(rms[False]):.5f}"))
print(check_less(f"pre-LN: nothing rescales the stream, which grows over {L} blocks", 2.0, grow,
                 names=("2", "RMS ratio last / input")))

# How far the factor carries: the same stack drawn afresh (blocks and input) for other seeds.
draws = range(40)
grows = []
for seed in draws:
    r = np.random.default_rng(seed)
    bs = unit_norms([init_block(r, d, scale=0.3) for _ in range(L)])
    X0_ = r.normal(size=(T, d))
    grows.append(stream_rms(bs, X0_, True)[-1] / float(np.sqrt((X0_ ** 2).mean())))
print(glue("n_grow_draws", len(draws)), glue("grow_lo", min(grows), ".1f"), glue("grow_med", float(np.median(grows)), ".1f"),
      glue("grow_hi", max(grows), ".1f"))
print(check_less(f"pre-LN: over {len(draws)} fresh draws of the stack the stream grows in every one", 2.0, min(grows),
                 names=("2", "smallest RMS ratio last / input")))

fig, ax = figure(size=(5.4, 2.6))
ax.plot(range(1, L + 1), rms[True], marker="o", ms=3, color=PALETTE[0], label="pre-LN")
ax.plot(range(1, L + 1), rms[False], marker="s", ms=3, color=PALETTE[1], label="post-LN")
ax.set_xlabel("block $\\ell$")
ax.set_ylabel("RMS of $X^{(\\ell)}$")
ax.legend(fontsize=8)
print(svg(fig, alt=f"RMS of the residual stream after each of {L} random blocks: pre-LN rises to {rms[True][-1]:.1f}, "
          f"post-LN stays at 1",
          caption=f"Through {L} random blocks the pre-LN stream grows (each block adds to it) while the post-LN "
                  f"stream is renormalised after every sublayer."))
