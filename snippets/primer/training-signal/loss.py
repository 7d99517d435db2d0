"""P9 The training signal of the tiny model: shifted-target cross-entropy, its gradient
p - e_y with respect to the logits, and backpropagation to a few parameters checked by finite
differences through the whole model."""
import math

import numpy as np

from esm import (TINY, check_close, init_gpt, check_less, check_true, cross_entropy, glue, gpt_forward, layer_norm, log_softmax, multi_head_attention,
                 causal_mask, numerical_grad, one_hot, shape_table, softmax, tiny_gpt, gelu_tanh)

model = tiny_gpt()
V, d, H = TINY["V"], TINY["d"], TINY["n_heads"]
seq = np.array([3, 14, 15, 9, 26, 5, 35, 8, 17])           # T + 1 tokens
inputs, targets = seq[:-1], seq[1:]                         # predict token t+1 from tokens 0..t
T = len(inputs)


def loss_of(Z):
    """Mean cross-entropy of the logits Z (T, V) against the shifted targets, vectorised."""
    return float(-log_softmax(Z)[np.arange(T), targets].mean())


trace = {}
Z = gpt_forward(inputs, model, trace=trace)
loss = loss_of(Z)
print(glue("seq", seq), glue("loss", loss, ".3f"), glue("logV", math.log(V), ".3f"),
      glue("ppl", math.exp(loss), ".1f"), glue("V_size", V))

# The initial loss depends on the init scale. The tiny model draws its weights with std 0.3 (init_gpt's default);
# redrawn with GPT-2's std 0.02 its logits barely spread, and the loss starts near log|V|. Independent route: the
# second-order expansion logsumexp(z) = log V + mean(z) + var(z)/2 + O(spread^3) of each row, on the measured logits.
small = init_gpt(**TINY, scale=0.02)
Z_small = gpt_forward(inputs, small)
loss_small = loss_of(Z_small)
second_order = float(np.mean(math.log(V) + Z_small.mean(1) + Z_small.var(1) / 2 - Z_small[np.arange(T), targets]))
print(check_close("with weights of std 0.02 the loss is log|V| + (row variance of the logits)/2 - (target logit - row mean), "
                  "the second-order expansion of logsumexp", loss_small, second_order, atol=1e-3))
gap_small, gap_tiny = loss_small - math.log(V), loss - math.log(V)    # quoted in the prose: the checked values
print(glue("init_std", 0.3, ".1f"), glue("z_sd", float(Z.std()), ".2f"), glue("loss_small", loss_small, ".3f"),
      glue("small_gap", gap_small, "+.3f"))

# How far this carries: loss - log|V| over fresh draws of the tiny model at both scales, same sequence.
draws = range(40)
gaps = {scale: np.array([loss_of(gpt_forward(inputs, init_gpt(**{**TINY, "seed": s}, scale=scale))) - math.log(V)
                         for s in draws]) for scale in (0.02, 0.3)}
# The line between "near log|V|" and "far above it": the largest std-0.02 distance over the draws, with a margin of
# 1.5. The draws include the one shown (seed 7), so it falls on its side of the line at both scales.
near = 1.5 * float(np.abs(gaps[0.02]).max())
print(glue("n_init_draws", len(draws)), glue("small_lo", gaps[0.02].min(), "+.3f"), glue("small_hi", gaps[0.02].max(), "+.3f"),
      glue("small_below", float((gaps[0.02] < 0).mean()), ".0%"), glue("big_lo", gaps[0.3].min(), ".2f"))
print(check_true(f"with std 0.3 every one of the {len(draws)} draws starts farther from log|V| than 1.5 times the largest "
                 "std-0.02 distance", bool(gaps[0.3].min() > near),
                 f"smallest std-0.3 gap {gaps[0.3].min():.4f} > 1.5 x {near / 1.5:.4f} = {near:.4f}"))

# [lm-loss] independently: run the model on each prefix 0..t alone and score its last row.
per_token = [cross_entropy(gpt_forward(seq[:t + 1], model)[-1], seq[t + 1]) for t in range(T)]
print(check_close("loss = mean over t of -log p(i_(t+1) | i_0..i_t), each prefix run on its own", loss,
                  sum(per_token) / T, eq="lm-loss", atol=1e-12))

# [grad-logits]: (softmax(Z) - one-hot(targets)) / T against central differences of the loss in Z.
G = (softmax(Z) - one_hot(targets, V)) / T
G_fd = numerical_grad(loss_of, Z)
print(check_close("dloss/dZ = (p_t - e_(y_t)) / T, against finite differences over all T x V logits", G, G_fd,
                  eq="grad-logits", atol=1e-8))


def rel_err(g, g_fd):
    """Relative error |g - g~| / max(|g|, |g~|): the measure the text uses, free of the gradient's scale."""
    return float(np.linalg.norm(g - g_fd) / max(np.linalg.norm(g), np.linalg.norm(g_fd)))


print(glue("h_used", 1e-6, ".0e"), glue("h_balance", np.finfo(float).eps ** (1 / 3), ".0e"),
      glue("rel_err_wrong", rel_err(G * T, G_fd), ".2f"))
# The error itself is rounding and O(h^2) truncation, about 1e-8 and different on every CPU: the line states the bound.
print(check_close("the relative error of dloss/dZ against its central differences is below 1e-6", rel_err(G, G_fd), 0.0,
                  atol=1e-6))
print(check_close("forgetting the 1/T gives a relative error of exactly 1 - 1/T (the wrong gradient is T times too long)",
                  rel_err(G * T, G_fd), 1 - 1 / T, atol=1e-6))


# [central-difference]: the error of (f(x + h) - f(x - h)) / 2h is O(h^2), so halving h quarters it. One logit, whose
# exact derivative is G[0, y_0]; h large enough that rounding (about 1e-16 / h) is far below the h^2 term.
def along(u):
    Zu = Z.copy()
    Zu[0, targets[0]] += u
    return loss_of(Zu)


cd_err = [abs((along(h) - along(-h)) / (2 * h) - G[0, targets[0]]) for h in (1e-2, 5e-3)]
print(check_close("halving h from 1e-2 to 5e-3 divides the central-difference error by 4 (error O(h^2))",
                  cd_err[0] / cd_err[1], 4.0, eq="central-difference", rtol=0.01))

# Backpropagation by hand to the last parameters: the final layer norm and the last block's W_2, b_2.
last = model["blocks"][-1]
X_prev = trace[f"X{TINY['L'] - 1}"]                         # the stream entering the last block
U = X_prev + multi_head_attention(layer_norm(X_prev, last["g_1"], last["beta_1"]), last["W_Q"], last["W_K"],
                                  last["W_V"], last["W_O"], H, causal_mask(T), last["b_Q"], last["b_K"], last["b_V"],
                                  last["b_O"])
hidden = gelu_tanh(layer_norm(U, last["g_2"], last["beta_2"]) @ last["W_1"] + last["b_1"])
XL = trace[f"X{TINY['L']}"]
mu, sd = XL.mean(-1, keepdims=True), np.sqrt(XL.var(-1, keepdims=True) + 1e-5)
xhat = (XL - mu) / sd
dXf = G @ model["E"]                                        # tied head: Z = X_f E^T
grads = {"beta_f": dXf.sum(0), "g_f": (dXf * xhat).sum(0)}
gh = dXf * model["g_f"]                                     # layer-norm backward [ln-backward]
dXL = (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True)) / sd
grads["b_2"] = dXL.sum(0)                                   # X^(L) = U + hidden W_2 + b_2
grads["W_2"] = hidden.T @ dXL                               # every entry; the check below samples a corner
print(shape_table({"T": T, "V": V, "d": d, "d_ff": 4 * d}, [
    ("inputs", "(i_0,\\dots,i_{T-1})", inputs, "T", "the sequence without its last token"),
    ("targets", "(i_1,\\dots,i_T)", targets, "T", "the sequence shifted by one"),
    ("logits", "Z", Z, "T V", "row $t$ scores token $t+1$"),
    ("gradient in the logits", "\\partial\\ell/\\partial Z", G, "T V", "$(\\mathbf p_t-\\mathbf e_{i_{t+1}})/T$"),
    ("gradient in the last stream", "\\partial\\ell/\\partial X^{(L)}", dXL, "T d", "through $E$ and $\\operatorname{LN}_{\\mathrm f}$"),
    ("gradient in the last W_2", "\\partial\\ell/\\partial W_2", hidden.T @ dXL, "d_ff d", "hidden layer$^\\top$ times the line above"),
]))


def loss_with(name, value):
    """The loss of the whole model with one parameter block replaced (everything else fixed)."""
    m = {**model, "blocks": [dict(b) for b in model["blocks"]]}
    if name in ("beta_f", "g_f"):
        m[name] = value
    elif name == "b_2":
        m["blocks"][-1]["b_2"] = value
    else:
        W = last["W_2"].copy()
        W[0:4, 0:4] = value
        m["blocks"][-1]["W_2"] = W
    return loss_of(gpt_forward(inputs, m))


current = {"beta_f": model["beta_f"], "g_f": model["g_f"], "b_2": last["b_2"], "W_2[0:4, 0:4]": last["W_2"][0:4, 0:4]}
errs = []
# Each entry costs two passes of the model: the check takes beta_f, g_f, b_2 whole and a 4 x 4 corner of W_2.
for name, value in current.items():
    fd = numerical_grad(lambda v, n=name: loss_with(n, v), value)
    derived = grads["W_2"][0:4, 0:4] if name == "W_2[0:4, 0:4]" else grads[name]
    errs.append(float(np.abs(derived - fd).max()))
    print(check_close(f"dloss/d{name} by backpropagation = finite differences through the whole model ({value.size} entries)",
                      derived, fd, eq="grad-params", atol=1e-8))

# A step against the gradient lowers the loss by about eta |g|^2 (first order).
eta = 1e-3
g2 = sum(float((g ** 2).sum()) for g in grads.values())
m = {**model, "beta_f": model["beta_f"] - eta * grads["beta_f"], "g_f": model["g_f"] - eta * grads["g_f"],
     "blocks": [dict(b) for b in model["blocks"]]}
m["blocks"][-1]["b_2"] = last["b_2"] - eta * grads["b_2"]
m["blocks"][-1]["W_2"] = last["W_2"] - eta * grads["W_2"]                 # all of the last W_2
drop = loss - loss_of(gpt_forward(inputs, m))
predicted = eta * g2
print(glue("eta", eta, ".0e"), glue("drop", drop, ".2e"), glue("predicted", predicted, ".2e"))
print(check_less("one step of size eta lowers the loss", 0.0, drop, names=("0", "loss drop")))
print(check_close("by eta |g|^2 to first order (within 5 %)", drop, predicted, rtol=0.05, atol=0))
