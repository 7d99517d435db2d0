"""Try this: draw the deep stack's blocks with init_block(..., scale=0.6) instead of 0.3, every weight twice as
large. Each sublayer passes the stream through two weight matrices (W_V then W_O; W_1 then W_2), so each block
adds far more than before, and the pre-LN stream grows more than twice as much; the post-LN stream still ends
every block at RMS 1."""
import numpy as np

from esm import block_forward, causal_mask, check_less, check_true, init_block

T, d, H, L = 5, 16, 4, 24
mask = causal_mask(T)


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


def the_draw_shown(scale):
    """The demo's deep stack (its seed, after the demo's single block and stream), blocks drawn at `scale`."""
    rng = np.random.default_rng(6)
    init_block(rng, d)
    rng.normal(size=(T, d))
    blocks = unit_norms([init_block(rng, d, scale=scale) for _ in range(L)])
    return blocks, rng.normal(size=(T, d))


growth = {}
for scale in (0.3, 0.6):                             # changed: was 0.3 only, the demo's scale
    blocks, X0 = the_draw_shown(scale)
    rms_pre, rms_post = stream_rms(blocks, X0, True), stream_rms(blocks, X0, False)
    growth[scale] = rms_pre[-1] / float(np.sqrt((X0 ** 2).mean()))
    print(f"scale {scale}: pre-LN stream grows {growth[scale]:.1f}-fold over {L} blocks")
print(check_less(f"pre-LN: with weights twice as large the stream grows more than twice as much over {L} blocks",
                 2 * growth[0.3], growth[0.6], names=("2 x growth at scale 0.3", "growth at scale 0.6")))
print(check_true(f"post-LN at scale 0.6: after every one of the {L} blocks the stream's RMS is 1 up to eps "
                 "(between 0.999 and 1)", all(0.999 < r <= 1.0 for r in rms_post),
                 f"range {min(rms_post):.5f} .. {max(rms_post):.5f}"))
