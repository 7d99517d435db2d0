"""P16 (docs/primer/modern-trained.md): the modern model's forward pass against a loop over positions and
heads written from P13's formulas, its backward pass against central differences on every entry of a tiny
model, and the loop training it with GPT-2's settings."""
import math

import numpy as np

from esm.initialise import init_gpt2, param_arrays
from esm.loop import init_model, passes
from esm.modern import forward, init_modern, loss_and_grads
from esm.train import MODERN, TRAIN


def tiny(seed=0, V=11, d=8, L=2, H=2, f=10):
    m = init_modern(seed, V, d, L, H, f, std=0.3)
    rng = np.random.default_rng(seed + 100)
    for a in param_arrays(m).values():
        a += rng.normal(size=a.shape) * 0.1            # gains off 1
    return m


def loop_forward(model, ids):
    """Logits of one sequence, position by position and head by head: RMSNorm by math.fsum, RoPE as a
    2x2 rotation of each pair (2j, 2j+1) by t * 10000^(-2j/d_k), causal softmax by math.exp."""
    E, H = model["E"], model["n_heads"]
    d = E.shape[1]
    dk = d // H

    def rms(x, g):
        r = math.sqrt(math.fsum(v * v for v in x) / len(x) + 1e-5)
        return np.array([g[i] * x[i] / r for i in range(len(x))])

    def rot(v, t):
        out = np.empty_like(v)
        for j in range(len(v) // 2):
            a = t * 10000.0 ** (-2 * j / len(v))
            c, s = math.cos(a), math.sin(a)
            out[2 * j], out[2 * j + 1] = c * v[2 * j] - s * v[2 * j + 1], s * v[2 * j] + c * v[2 * j + 1]
        return out

    X = [E[i].copy() for i in ids]
    for p in model["blocks"]:
        n = [rms(x, p["g_1"]) for x in X]
        q, k, v = ([x @ p["W_" + c] for x in n] for c in "QKV")
        U = []
        for t in range(len(X)):
            heads = []
            for h in range(H):
                sl = slice(h * dk, (h + 1) * dk)
                qt = rot(q[t][sl], t)
                sc = [float(qt @ rot(k[s][sl], s)) / math.sqrt(dk) for s in range(t + 1)]
                mx = max(sc)
                w = [math.exp(z - mx) for z in sc]
                tot = math.fsum(w)
                heads.append(sum(w[s] / tot * v[s][sl] for s in range(t + 1)))
            U.append(X[t] + np.concatenate(heads) @ p["W_O"])
        out = []
        for u in U:
            m = rms(u, p["g_2"])
            a, b = m @ p["W_1"], m @ p["W_3"]
            out.append(u + np.array([a[i] / (1 + math.exp(-a[i])) * b[i] for i in range(len(a))]) @ p["W_2"])
        X = out
    return np.array([rms(x, model["g_f"]) @ E.T for x in X])


def test_the_forward_pass_equals_a_loop_over_positions_and_heads():
    m = tiny()
    ids = np.array([[3, 1, 4, 1, 5, 9, 2]])
    assert np.allclose(forward(m, ids)[0], loop_forward(m, ids[0]), atol=1e-10, rtol=0)


def test_the_backward_pass_matches_central_differences_on_every_entry():
    m = tiny(1)
    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 11, (2, 6)), rng.integers(0, 11, (2, 6))
    _, g = loss_and_grads(m, x, y)
    for name, a in param_arrays(m).items():
        fd = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            old = a[idx]
            a[idx] = old + 1e-6
            up = loss_and_grads(m, x, y)[0]
            a[idx] = old - 1e-6
            down = loss_and_grads(m, x, y)[0]
            a[idx] = old
            fd[idx] = (up - down) / 2e-6
        assert np.allclose(g[name], fd, atol=1e-8, rtol=0), name


def test_the_loss_is_the_mean_cross_entropy_of_the_logits():
    m = tiny(2)
    rng = np.random.default_rng(6)
    x, y = rng.integers(0, 11, (2, 5)), rng.integers(0, 11, (2, 5))
    Z = forward(m, x)
    want = np.mean([math.log(math.fsum(math.exp(z) for z in Z[b, t])) - Z[b, t, y[b, t]]
                    for b in range(2) for t in range(5)])
    assert abs(loss_and_grads(m, x, y)[0] - want) < 1e-12


def test_the_loop_picks_each_models_passes_and_initialisation():
    gpt = init_model(128, TRAIN)
    mod = init_model(128, MODERN)
    assert "P" in gpt and "P" not in mod and mod["block"] == "modern"
    from esm import backward
    # by what they are and what they give (under `make mutate` the module's functions are wrapped anew)
    x, y = np.arange(12).reshape(2, 6) % 128, (np.arange(12).reshape(2, 6) * 7 + 3) % 128
    for model, (f, lg), want in ((mod, passes(mod), (forward, loss_and_grads)),
                                 (gpt, passes(gpt), (backward.forward, backward.loss_and_grads))):
        assert [g.__name__ for g in (f, lg)] == [g.__name__ for g in want]
        assert np.array_equal(f(model, x), want[0](model, x)) and lg(model, x, y)[0] == want[1](model, x, y)[0]
    ref = init_gpt2(TRAIN["seed"], 128, TRAIN["T"], TRAIN["d"], TRAIN["L"], TRAIN["n_heads"])
    assert all(np.array_equal(a, param_arrays(ref)[k]) for k, a in param_arrays(gpt).items())
    # the same flat names as P10's model, each array once: E, P, g_f, beta_f, then the blocks'
    assert list(param_arrays(gpt))[:4] == ["E", "P", "g_f", "beta_f"]
    assert list(param_arrays(mod))[:2] == ["E", "g_f"]


def test_a_short_modern_run_learns():
    from esm.loop import train
    rng = np.random.default_rng(0)
    toks = np.tile(rng.integers(0, 20, 50), 20)          # a repeated sequence: learnable
    cfg = dict(MODERN, d=16, L=1, n_heads=2, d_ff=24, T=16, batch=4, steps=60, eval_every=30, eval_batches=1,
               warmup=5)
    _, curve, evals, _ = train(toks, toks, 20, cfg)
    assert evals[-1, 2] < evals[0, 2] - 1.0


def test_init_modern_scales_the_residual_projections():
    """W_O and W_2 (the matrices that write into the residual stream) at std/sqrt(2L), the others at
    std: each sample std within 5 % (every matrix here has at least 16,384 draws, a sampling error
    of about 0.6 %)."""
    L = 4
    m = init_modern(1, V=50, d=64, L=L, n_heads=4, d_ff=96)
    for n in ("W_Q", "W_K", "W_V", "W_1", "W_3", "W_O", "W_2"):
        w = np.concatenate([b[n].ravel() for b in m["blocks"]])
        want = 0.02 / math.sqrt(2 * L) if n in ("W_O", "W_2") else 0.02
        assert abs(np.std(w) / want - 1) < 0.05, n
