"""Try this: take the demo's step against the gradient with eta = 10 instead of 1e-3. The first-order rule now
predicts a drop eta |grad|^2 larger than the whole loss, which no step can give, since a loss is never negative;
the real drop is a small part of it. The gradient describes the loss only near the current weights."""
import numpy as np

from esm import TINY, causal_mask, check_less, gelu_tanh, gpt_forward, layer_norm, log_softmax, multi_head_attention, \
    one_hot, softmax, tiny_gpt

model = tiny_gpt()
V, H = TINY["V"], TINY["n_heads"]
seq = np.array([3, 14, 15, 9, 26, 5, 35, 8, 17])
inputs, targets = seq[:-1], seq[1:]
T = len(inputs)


def loss_of(Z):
    return float(-log_softmax(Z)[np.arange(T), targets].mean())


# The demo's gradients of the last parameters: the final layer norm and the last block's W_2, b_2.
trace = {}
loss = loss_of(gpt_forward(inputs, model, trace=trace))
G = (softmax(trace["logits"]) - one_hot(targets, V)) / T
last = model["blocks"][-1]
X_prev = trace[f"X{TINY['L'] - 1}"]
U = X_prev + multi_head_attention(layer_norm(X_prev, last["g_1"], last["beta_1"]), last["W_Q"], last["W_K"],
                                  last["W_V"], last["W_O"], H, causal_mask(T), last["b_Q"], last["b_K"], last["b_V"],
                                  last["b_O"])
hidden = gelu_tanh(layer_norm(U, last["g_2"], last["beta_2"]) @ last["W_1"] + last["b_1"])
XL = trace[f"X{TINY['L']}"]
mu, sd = XL.mean(-1, keepdims=True), np.sqrt(XL.var(-1, keepdims=True) + 1e-5)
xhat = (XL - mu) / sd
dXf = G @ model["E"]
grads = {"beta_f": dXf.sum(0), "g_f": (dXf * xhat).sum(0)}
gh = dXf * model["g_f"]
dXL = (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True)) / sd
grads["b_2"], grads["W_2"] = dXL.sum(0), hidden.T @ dXL

# The step, as in the demo.
eta = 10.0                                                  # changed: was eta = 1e-3
g2 = sum(float((g ** 2).sum()) for g in grads.values())
m = {**model, "beta_f": model["beta_f"] - eta * grads["beta_f"], "g_f": model["g_f"] - eta * grads["g_f"],
     "blocks": [dict(b) for b in model["blocks"]]}
m["blocks"][-1]["b_2"] = last["b_2"] - eta * grads["b_2"]
m["blocks"][-1]["W_2"] = last["W_2"] - eta * grads["W_2"]
drop = loss - loss_of(gpt_forward(inputs, m))
predicted = eta * g2
print(f"loss {loss:.3f} nats; first-order prediction of the drop {predicted:.1f}; real drop {drop:.3f}")
print(check_less("the first-order prediction eta |g|^2 is larger than the whole loss", loss, predicted,
                 names=("loss", "eta |g|^2")))
print(check_less("the real drop is less than a quarter of it", drop, predicted / 4,
                 names=("loss drop", "eta |g|^2 / 4")))
