"""Try this: measure how sure the model is with the weights saved after 50 of the run's 2,500 steps instead of
the trained ones. Its top-p set is already smaller than the initial model's at every position, yet its median is
still more than twice the trained model's: the model grows sure quickly at first and keeps sharpening for the
rest of the run."""
import numpy as np

from esm import check_less, check_true, softmax
from esm.backprop import forward
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import SNAPSHOTS, TRAIN, eval_windows, top_p_keep, trained

D = data()
model, _, _, snaps, _ = trained(D.train, D.val, VOCAB_SIZE, TRAIN, snapshots=SNAPSHOTS, traces=True)   # the run of P11
X, _ = eval_windows(D.val)
XI_NUC = 0.9
early = snaps[50]                                    # changed: was model, the trained weights (snaps[50]: after step 50)
sizes = {name: np.array([top_p_keep(p_, XI_NUC).sum() for p_ in softmax(forward(m, X)).reshape(-1, VOCAB_SIZE)])
         for name, m in (("init", snaps[0]), ("step 50", early), ("end", model))}
print(f"median top-p set (xi = {XI_NUC}) over {sizes['end'].size} validation positions, {TRAIN['steps']} steps in all: "
      + ", ".join(f"{name} {float(np.median(s)):.0f}" for name, s in sizes.items()) + f" of {VOCAB_SIZE} tokens")
print(check_true("after 50 steps the top-p set is smaller than the initial model's at every position",
                 bool((sizes["step 50"] < sizes["init"]).all()),
                 f"largest after 50 steps {sizes['step 50'].max()}, smallest at the start {sizes['init'].min()}"))
print(check_less("its median is still more than twice the trained model's", 2 * float(np.median(sizes["end"])),
                 float(np.median(sizes["step 50"])), names=("2 x median at the end", "median after 50 steps")))
