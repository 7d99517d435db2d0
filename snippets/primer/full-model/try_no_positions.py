"""Try this: zero the position table and feed the model one token eight times over. Every position then holds
the same row and reads copies of it, so the model gives the same next-token distribution at every position: it
cannot tell the first 9 from the eighth. With the position rows added back, the distributions differ."""
import numpy as np

from esm import check_close, check_true, gpt_forward, softmax, tiny_gpt

model = tiny_gpt()                                   # the demo's tiny model (init_model() draws the same)
ids = np.full((1, 8), 9)                             # token 9, eight times
no_positions = {**model, "P": np.zeros_like(model["P"])}   # changed: was model, with its position table
p_none = softmax(gpt_forward(ids, no_positions))[0]          # (T, V): one distribution per position
p_with = softmax(gpt_forward(ids, model))[0]
print("favourite next token at positions 0 to 7: without positions", *p_none.argmax(-1),
      "| with positions", *p_with.argmax(-1))
print(check_close("without positions, the 8 positions' next-token distributions are the same", p_none,
                  np.broadcast_to(p_none[0], p_none.shape), atol=1e-12))
spread = float(np.abs(p_with - p_with[0]).max())
print(check_true("with the position table, they differ", spread > 0.05,
                 f"largest difference of a probability from position 0's: {spread:.3f}"))
