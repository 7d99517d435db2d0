"""P11's loop, as the page shows it: random windows of the training text, the backward
pass, clipping, the schedule and AdamW at every step, the loss on fixed windows every so often."""
import numpy as np

from esm.backward import forward, loss_and_grads
from esm.initialise import init_gpt2, param_arrays       # the model, P10's first block of code
from esm.modern import forward as forward_modern, init_modern, loss_and_grads as loss_and_grads_modern   # P16
from esm.optim import adamw_step, clip_grads, lr_at


def init_model(V, cfg):              # GPT-2's model (P10), or the modern block's (P16) if cfg["block"] is "modern"
    if cfg.get("block") == "modern":
        return init_modern(cfg["seed"], V, cfg["d"], cfg["L"], cfg["n_heads"], cfg["d_ff"])
    return init_gpt2(cfg["seed"], V, cfg["T"], cfg["d"], cfg["L"], cfg["n_heads"], attention=cfg.get("attention", True))


def passes(model):                   # the model's forward pass and its backward pass
    if model.get("block") == "modern":
        return forward_modern, loss_and_grads_modern
    return forward, loss_and_grads


def windows(tokens, starts, T):                      # inputs and targets (n, T): the next token each
    x = np.stack([tokens[s:s + T] for s in starts])
    y = np.stack([tokens[s + 1:s + T + 1] for s in starts])
    return x, y


def eval_windows(tokens, cfg):                       # the same evenly spaced windows at every step
    n = cfg["eval_batches"] * cfg["batch"]
    return windows(tokens, np.linspace(0, len(tokens) - cfg["T"] - 2, n).astype(int), cfg["T"])


def evaluate(model, tokens, cfg, *, by_position=False):
    """Mean loss on the fixed windows; with by_position, the mean loss at each position (T values)."""
    X, Y = eval_windows(tokens, cfg)
    losses = []
    for i in range(0, len(X), cfg["batch"]):
        Z = passes(model)[0](model, X[i:i + cfg["batch"]])
        Z = Z - Z.max(-1, keepdims=True)
        logp = Z - np.log(np.exp(Z).sum(-1, keepdims=True))           # log softmax
        losses.append(-np.take_along_axis(logp, Y[i:i + cfg["batch"], :, None], -1)[..., 0])
    if by_position:
        return np.concatenate(losses).mean(0)
    return float(np.mean([float(l.mean()) for l in losses]))


def train(train_tokens, val_tokens, V, cfg, *, snapshots=(), trace=None):
    """Train from init_gpt2 with AdamW. Returns the model, the loss at every step, (step, train
    loss, val loss) every cfg["eval_every"] steps and copies of the model at the steps in snapshots;
    with trace (a dict), each step's learning rate and gradient norm before clipping too."""
    model = init_model(V, cfg)
    loss_and_grads = passes(model)[1]
    params = param_arrays(model)                     # the arrays AdamW updates in place
    rng = np.random.default_rng(cfg["seed"] + 1)
    state = {}
    curve, evals, snaps = [], [], {}
    for step in range(cfg["steps"] + 1):
        if step in snapshots:
            snaps[step] = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in param_arrays(model).items()}
        if step % cfg["eval_every"] == 0 or step == cfg["steps"]:
            evals.append((step, evaluate(model, train_tokens, cfg), evaluate(model, val_tokens, cfg)))
        if step == cfg["steps"]:
            break
        starts = rng.integers(0, len(train_tokens) - cfg["T"] - 1, size=cfg["batch"])
        loss, grads = loss_and_grads(model, *windows(train_tokens, starts, cfg["T"]))
        curve.append(loss)
        norm = clip_grads(grads, cfg["clip"])
        lr = lr_at(step, cfg)
        adamw_step(params, grads, state, lr, weight_decay=cfg["weight_decay"])
        if trace is not None:
            trace.setdefault("lr", []).append(lr)
            trace.setdefault("grad_norm", []).append(norm)
    return model, np.array(curve), np.array(evals), snaps
