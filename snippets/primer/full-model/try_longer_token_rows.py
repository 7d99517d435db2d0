"""Try this: make the rows of the token table 10 times longer (E times 10). The final layer norm fixes the scale
of the stream, and the tied head scores every token by a dot product with its row of E, so the scores spread
about ten times wider and the softmax sharpens: the untrained model turns confident, its favourite holding most
of the mass where it held less than half."""
import numpy as np

from esm import check_less, check_true, gpt_forward, softmax, tiny_gpt

model = tiny_gpt()                                   # the demo's tiny model (init_model() draws the same)
ids = np.array([[3, 14, 15, 9, 26, 5, 35, 8],       # the demo's batch
                [3, 14, 15, 9, 26, 44, 1, 30],
                [21, 48, 5, 13, 32, 35, 45, 6]])
long_rows = {**model, "E": 10 * model["E"]}          # changed: was model["E"], the table as drawn
Z, Z_long = gpt_forward(ids, model), gpt_forward(ids, long_rows)
top, top_long = float(softmax(Z).max(-1).mean()), float(softmax(Z_long).max(-1).mean())
wider = float(Z_long.std(-1).mean() / Z.std(-1).mean())
print(f"mean probability of the favourite over the {ids.size} positions: {top:.3f} as drawn, {top_long:.3f} with E x 10")
print(check_true("the scores of a row spread about ten times wider (between 5 and 20 times)", 5 < wider < 20,
                 f"mean spread of a row of logits: {wider:.1f} times that of the model as drawn"))
print(check_less("as drawn, the favourite holds less than half the mass, on average over the positions", top, 0.5,
                 names=("mean top probability", "0.5")))
print(check_less("with rows 10 times longer, it holds more than 0.8", 0.8, top_long,
                 names=("0.8", "mean top probability")))
