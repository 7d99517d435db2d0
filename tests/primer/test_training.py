"""Primer chapter P11 (training the tiny GPT): the helpers of snippets/esm/train.py against
independent computations (loops, finite differences, the tokenizers library, P7's forward pass)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import esm
import esm.backprop as bp
import esm.backward as bw
import esm.loop as lp
import esm.optim as op
import esm.tokenizer as tk
import esm.train as et
from mkdocs_esm.runs import Runs


# --- corpus and BPE -------------------------------------------------------------------------

def test_corpus_is_plain_text_of_the_plays():
    text = tk.corpus()
    assert "To be, or not to be: that is the question:" in text
    assert "HAMLET:\n" in text and "MACBETH:\n" in text
    assert not any(m in text for m in ("**", "#", "_"))
    assert 200_000 < len(text.encode()) < 400_000          # "a few hundred KB"


def test_learn_bpe_on_the_textbook_example():
    # Every piece is one word without spaces: the classic aaabdaaabac example.
    alphabet, merges, counts = tk.learn_bpe("aaabdaaabac", 4 + 1)     # four characters, one merge
    assert alphabet == ["a", "b", "c", "d"]
    assert merges == [("a", "a")] and counts == [4]       # aa occurs 4 times as adjacent pairs (aaa twice)


@pytest.mark.parametrize("text", [
    "the cat sat on the mat, the end.\nthe cat.\n",
    "abab abab ba ba ba\n\naaaa aaa aa a\n",
    "to be or not to be; that is the question!\n" * 3 + "whether 'tis nobler in the mind\n",
])
def test_learn_bpe_matches_the_tokenizers_trainer(text):
    alphabet, merges, _ = tk.learn_bpe(text, 40)
    ref, tok = tk.reference_bpe(text, 40)
    assert merges == ref
    ids = tk.bpe_encode(text, alphabet, merges)
    vocab = list(alphabet) + [a + b for a, b in merges]
    assert [vocab[i] for i in ids] == tok.encode(text).tokens
    assert tk.bpe_decode(ids, alphabet, merges) == text


def test_learn_bpe_counts_by_recounting_from_scratch():
    text = "she sells sea shells by the sea shore\nthe shells she sells are sea shells\n"
    alphabet, merges, counts = tk.learn_bpe(text, 30)
    pieces = tk.pretokenize(text)
    segs = [list(p) for p in pieces]
    for (a, b), c in zip(merges, counts):
        recount = {}
        for s in segs:
            for pair in zip(s, s[1:]):
                recount[pair] = recount.get(pair, 0) + 1
        assert recount[(a, b)] == c == max(recount.values())
        for s in segs:
            i = 0
            while i < len(s) - 1:
                if s[i] == a and s[i + 1] == b:
                    s[i:i + 2] = [a + b]
                i += 1


# --- the model ------------------------------------------------------------------------------

def _tiny(seed=0, std=0.3):
    m = bp.init_gpt2(seed, V=11, T_max=6, d=8, L=2, n_heads=2, std=std)
    rng = np.random.default_rng(seed + 1)
    for a in bp.param_arrays(m).values():
        a += rng.normal(size=a.shape) * 0.1
    return m


def test_gelu_matches_esm_and_its_derivative_finite_differences():
    x = np.linspace(-5, 5, 201)
    y, t = bw.gelu(x)
    assert np.allclose(y, esm.gelu_tanh(x), atol=1e-15)
    h = 1e-6
    fd = (esm.gelu_tanh(x + h) - esm.gelu_tanh(x - h)) / (2 * h)
    assert np.allclose(bw.gelu_back(x, t), fd, atol=1e-8)


def test_page_layer_norm_and_its_backward_against_esm_and_central_differences():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(2, 3, 5)) * 2 + 1
    g, b, dy = 1 + 0.3 * rng.normal(size=5), rng.normal(size=5), rng.normal(size=(2, 3, 5))
    y, cache = bw.layer_norm(x, g, b)
    assert np.allclose(y, esm.layer_norm(x, g, b), atol=1e-14)
    dx, dg, db = bw.layer_norm_back(dy, cache)

    def loss(x_, g_=g, b_=b):
        return float((dy * esm.layer_norm(x_, g_, b_)).sum())
    assert np.allclose(dx, esm.numerical_grad(loss, x), atol=1e-7)
    assert np.allclose(dg, esm.numerical_grad(lambda v: loss(x, v), g), atol=1e-7)
    assert np.allclose(db, esm.numerical_grad(lambda v: loss(x, g, v), b), atol=1e-7)


def test_page_attention_pieces_against_esm():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(2, 4, 6))
    assert np.array_equal(bw.split_heads(X, 3), esm.split_heads(X, 3))
    assert np.array_equal(bw.merge_heads(bw.split_heads(X, 3)), X)
    assert np.allclose(bw.softmax(X), esm.softmax(X), atol=1e-15)
    A, dY = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 5))
    assert np.allclose(bw.outer(A, dY), np.einsum("bti,btj->ij", A, dY), atol=1e-13)


def test_the_page_code_is_the_code_that_trains():
    """One copy: the names other code imports are the page's functions, and P11 shows those
    files whole (each block pastes one, then its checks)."""
    assert bp.forward is bw.forward and bp.loss_and_grads is bw.loss_and_grads
    assert et.loss_and_grads is bw.loss_and_grads and et.adamw_step is op.adamw_step and et.lr_at is op.lr_at
    assert lp.loss_and_grads is bw.loss_and_grads and lp.adamw_step is op.adamw_step and lp.clip_grads is op.clip_grads
    page = (Path(__file__).resolve().parents[2] / "docs" / "primer" / "training.md").read_text(encoding="utf-8")
    for name in ("initialise", "backward", "optim", "loop"):
        assert f'--8<-- "esm/{name}.py"' in page, name


@pytest.mark.parametrize("name, allowed", [("backward", {"math", "numpy"}), ("optim", {"math", "numpy"}),
                                           ("initialise", {"math", "numpy"}),
                                           ("loop", {"numpy", "esm.initialise", "esm.backward", "esm.optim"})])
def test_the_page_code_is_plain_numpy(name, allowed):
    """What a reader copies runs in an empty file: no relative imports, nothing but numpy and math
    (and, for the loop, the blocks above it, as esm holds them)."""
    import ast
    tree = ast.parse((Path(bw.__file__).parent / f"{name}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{name}.py: a relative import cannot be pasted into a page"
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    assert found <= allowed, found - allowed


@pytest.mark.parametrize("name", ["backward.py", "optim.py", "loop.py", "initialise.py", "backprop.py", "train.py"])
def test_an_edit_to_the_page_code_trains_afresh(tmp_path, name):
    """The run store's file names hash the code that trains: an edit to any of the page's files
    (which the build's blocks include, and esm.train imports) must not serve a stale run."""
    import shutil
    package = tmp_path / "esm"
    shutil.copytree(Path(et.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__", "records"))
    before = Runs(tmp_path / "runs", package).salt
    path = package / name
    path.write_text(path.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    assert Runs(tmp_path / "runs", package).salt != before


def test_forward_is_p7s_forward():
    m = _tiny()
    ids = np.array([[1, 4, 2, 9, 0, 3], [5, 5, 7, 1, 10, 2]])
    assert np.allclose(bp.forward(m, ids), esm.gpt_forward(ids, m), atol=1e-12)


def test_every_gradient_entry_matches_finite_differences():
    """Backpropagation by hand against central differences of the loss, entry by entry (1,896
    entries). The differenced loss is the forward pass's mean cross-entropy written here
    (logsumexp minus the target's logit), not loss_and_grads' own (which also runs the backward
    pass: twice the CPU for the same number)."""
    m = _tiny()
    x = np.array([[1, 4, 2, 9, 0], [5, 5, 7, 1, 10]])
    y = np.array([[4, 2, 9, 0, 3], [5, 7, 1, 10, 2]])
    loss, g = bp.loss_and_grads(m, x, y)

    def ce() -> float:
        Z = bp.forward(m, x)
        top = Z.max(-1)
        lse = np.log(np.exp(Z - top[..., None]).sum(-1)) + top
        return float((lse - np.take_along_axis(Z, y[..., None], -1)[..., 0]).mean())

    assert ce() == pytest.approx(loss, abs=1e-12)
    for name, a in bp.param_arrays(m).items():
        def f(v, a=a):
            old = a.copy()
            a[...] = v
            out = ce()
            a[...] = old
            return out
        assert np.allclose(g[name], esm.numerical_grad(f, a.copy()), atol=1e-7), name


def test_key_bias_has_no_gradient_and_does_not_change_the_loss():
    # Adding one vector to every key shifts each query's scores by a constant, which softmax ignores.
    m = _tiny()
    x = np.array([[1, 4, 2, 9, 0], [5, 5, 7, 1, 10]])
    y = np.array([[4, 2, 9, 0, 3], [5, 7, 1, 10, 2]])
    loss, g = bp.loss_and_grads(m, x, y)
    for ell, p in enumerate(m["blocks"], start=1):
        assert np.abs(g[f"block{ell}.b_K"]).max() < 1e-15
        p["b_K"] += np.random.default_rng(ell).normal(size=p["b_K"].shape) * 3
    assert abs(bp.loss_and_grads(m, x, y)[0] - loss) < 1e-12
    assert np.abs(g["block1.b_Q"]).max() > 1e-6          # the query bias does matter

def test_loss_is_p9s_cross_entropy():
    m = _tiny()
    x = np.array([[1, 4, 2, 9, 0]])
    y = np.array([[4, 2, 9, 0, 3]])
    loss, _ = bp.loss_and_grads(m, x, y)
    Z = esm.gpt_forward(x[0], m)
    assert loss == pytest.approx(np.mean([esm.cross_entropy(Z[t], y[0, t]) for t in range(5)]), abs=1e-12)


def test_init_gpt2_scales_and_dtype():
    m = bp.init_gpt2(1, V=50, T_max=32, d=64, L=4, n_heads=4)
    w_o = np.concatenate([b["W_O"].ravel() for b in m["blocks"]])
    w_q = np.concatenate([b["W_Q"].ravel() for b in m["blocks"]])
    assert np.std(w_o) == pytest.approx(0.02 / math.sqrt(8), rel=0.05)
    assert np.std(w_q) == pytest.approx(0.02, rel=0.05)
    assert all((b["b_Q"] == 0).all() and (b["g_1"] == 1).all() for b in m["blocks"])
    m32 = bp.init_gpt2(1, V=50, T_max=32, d=64, L=4, n_heads=4, dtype=np.float32)
    assert m32["E"].dtype == np.float32 and np.allclose(m32["E"], m["E"], atol=1e-8)


# --- optimiser, baselines, sampling ---------------------------------------------------------

def test_adamw_matches_a_scalar_loop_over_three_steps():
    rng = np.random.default_rng(5)
    params = {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}
    ref = {k: v.copy().ravel().tolist() for k, v in params.items()}
    m = {k: [0.0] * len(v) for k, v in ref.items()}
    v2 = {k: [0.0] * len(v) for k, v in ref.items()}
    state = {}
    for t in range(1, 4):
        grads = {k: rng.normal(size=v.shape) for k, v in params.items()}
        op.adamw_step(params, grads, state, 0.01, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
        for k in ref:
            for i, g in enumerate(grads[k].ravel()):
                m[k][i] = 0.9 * m[k][i] + 0.1 * g
                v2[k][i] = 0.95 * v2[k][i] + 0.05 * g * g
                step = (m[k][i] / (1 - 0.9 ** t)) / (math.sqrt(v2[k][i] / (1 - 0.95 ** t)) + 1e-8)
                decay = 0.1 * ref[k][i] if k == "W" else 0.0
                ref[k][i] -= 0.01 * (step + decay)
    for k in ref:
        assert np.allclose(params[k].ravel(), ref[k], atol=1e-14)


def test_clip_grads():
    g = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}
    assert op.clip_grads(g, 1.0) == pytest.approx(5.0)
    assert np.allclose(g["a"], [0.6, 0.0]) and np.allclose(g["b"], [[0.8]])
    g = {"a": np.array([0.3])}
    op.clip_grads(g, 1.0)
    assert g["a"][0] == 0.3                                 # under the threshold: untouched


def test_baselines_against_loops():
    rng = np.random.default_rng(2)
    train, val, V = rng.integers(0, 6, 300), rng.integers(0, 6, 80), 6
    c = np.bincount(train, minlength=V) + 1.0
    assert et.unigram_loss(train, val, V) == pytest.approx(-np.mean([math.log(c[t] / c.sum()) for t in val]))
    alpha = 0.5
    loop = []
    for a, b in zip(val[:-1], val[1:]):
        n_ab = sum(1 for x, y in zip(train[:-1], train[1:]) if x == a and y == b)
        n_a = sum(1 for x in train[:-1] if x == a)
        loop.append(-math.log((n_ab + alpha) / (n_a + alpha * V)))
    assert et.bigram_loss(train, val, V, alpha) == pytest.approx(np.mean(loop), abs=1e-12)


def test_top_p_keep_is_the_smallest_set_reaching_the_mass():
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = rng.dirichlet(np.ones(9))
        xi = rng.uniform(0.05, 0.99)
        keep = et.top_p_keep(p, xi)
        order = np.argsort(-p)
        m = next(k for k in range(1, 10) if p[order[:k]].sum() >= xi)
        assert keep.sum() == m and set(np.flatnonzero(keep)) == set(order[:m])


# --- the run --------------------------------------------------------------------------------

def test_training_is_deterministic_and_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(et, "store", Runs(tmp_path, Path(et.__file__).parent))
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 20, 3000)
    cfg = dict(et.TRAIN, d=16, n_heads=2, T=16, batch=4, steps=6, eval_every=3, eval_batches=2)
    a = et.train(tokens[:2500], tokens[2500:], 20, cfg)
    b = et.train(tokens[:2500], tokens[2500:], 20, cfg)
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert all(np.array_equal(x, y) for x, y in zip(bp.param_arrays(a[0]).values(), bp.param_arrays(b[0]).values()))
    first = et.trained(tokens[:2500], tokens[2500:], 20, cfg, snapshots=(0,))
    assert len(list(tmp_path.glob("*.npz"))) == 1
    second = et.trained(tokens[:2500], tokens[2500:], 20, cfg, snapshots=(0,))
    assert np.array_equal(first[1], a[1]) and np.array_equal(second[1], a[1])
    assert np.array_equal(second[0]["E"], a[0]["E"])
    assert first[3][0]["E"].shape == (20, 16)


def test_training_is_the_loop_it_describes():
    """`train` against the loop written out: draws of windows from seed + 1 with every target
    inside the tokens, one clipped AdamW step per draw at `lr_at`'s rate, an evaluation at every
    ``eval_every``-th step and after the last, the snapshots asked for (the last one the model)."""
    tokens = np.random.default_rng(4).integers(0, 12, 400)
    V, train, val = 12, tokens[:320], tokens[320:]
    cfg = dict(et.TRAIN, d=8, n_heads=2, L=1, T=6, batch=2, steps=5, eval_every=2, eval_batches=1, warmup=2)
    trace = {}
    model, curve, evals, snaps = et.train(train, val, V, cfg, snapshots=(0, 2, 5), trace=trace)

    ref = bp.init_gpt2(cfg["seed"], V, cfg["T"], cfg["d"], cfg["L"], cfg["n_heads"], dtype=np.float64)
    params, draw, state = bp.param_arrays(ref), np.random.default_rng(cfg["seed"] + 1), {}
    losses, scored, kept, rates, norms = [], [], {}, [], []
    for step in range(cfg["steps"]):
        if step in (0, 2):
            kept[step] = {k: v.copy() for k, v in params.items()}
        if step in (0, 2, 4):
            scored.append((step, et.evaluate(ref, train, cfg), et.evaluate(ref, val, cfg)))
        starts = draw.integers(0, len(train) - cfg["T"] - 1, size=cfg["batch"])
        x = np.stack([train[s:s + cfg["T"]] for s in starts])
        y = np.stack([train[s + 1:s + cfg["T"] + 1] for s in starts])
        loss, grads = bp.loss_and_grads(ref, x, y)
        losses.append(loss)
        norms.append(math.sqrt(sum(float((g * g).sum()) for g in grads.values())))
        rates.append(op.lr_at(step, cfg))
        op.clip_grads(grads, cfg["clip"])
        op.adamw_step(params, grads, state, op.lr_at(step, cfg), weight_decay=cfg["weight_decay"])
    scored.append((5, et.evaluate(ref, train, cfg), et.evaluate(ref, val, cfg)))
    kept[5] = params

    np.testing.assert_allclose(curve, losses, rtol=1e-12)
    assert trace["lr"] == rates
    np.testing.assert_allclose(trace["grad_norm"], norms, rtol=1e-12)
    np.testing.assert_allclose(evals, scored, rtol=1e-12)
    assert sorted(snaps) == [0, 2, 5]
    for step, arrays in kept.items():
        for name, a in arrays.items():
            np.testing.assert_allclose(snaps[step][name], a, rtol=1e-12, err_msg=f"{step} {name}")
    for name, a in bp.param_arrays(model).items():
        np.testing.assert_allclose(a, params[name], rtol=1e-12, err_msg=name)


def test_unigram_loss_smooths_tokens_never_seen_in_training():
    """Add-alpha over the whole vocabulary: tokens above the largest one counted still get alpha."""
    train, val, V = np.array([0, 1, 1, 2]), np.array([1, 4, 5]), 6
    c = [1 + 1, 2 + 1, 1 + 1, 0 + 1, 0 + 1, 0 + 1]
    assert et.unigram_loss(train, val, V) == pytest.approx(-np.mean([math.log(c[t] / sum(c)) for t in val]), abs=1e-12)
    assert et.unigram_loss(train, val, V, alpha=0.5) == pytest.approx(
        -np.mean([math.log((c[t] - 0.5) / (sum(c) - 3)) for t in val]), abs=1e-12)


def test_lr_schedule():
    cfg = et.TRAIN
    assert op.lr_at(0, cfg) == pytest.approx(cfg["lr"] / cfg["warmup"])
    assert op.lr_at(cfg["warmup"], cfg) == pytest.approx(cfg["lr"])
    assert op.lr_at(cfg["steps"], cfg) == pytest.approx(cfg["min_lr"])


def test_the_ablation_is_the_model_with_its_attention_outputs_at_zero():
    """Without attention, the loss and every gradient outside the attention sublayers are those of
    the full model whose W_O and b_O are 0; the attention sublayers' arrays get no gradient."""
    rng = np.random.default_rng(5)
    V, T = 11, 7
    model = bp.init_gpt2(2, V, T, 8, 2, 2, attention=False)
    for a in bp.param_arrays(model).values():
        a += rng.normal(size=a.shape) * 0.1
    full = {k: v for k, v in model.items() if k != "attention"}
    full["blocks"] = [{k: (np.zeros_like(v) if k in ("W_O", "b_O") else v) for k, v in p.items()} for p in model["blocks"]]
    x, y = rng.integers(0, V, (3, T)), rng.integers(0, V, (3, T))
    loss, g = bp.loss_and_grads(model, x, y)
    loss_full, g_full = bp.loss_and_grads(full, x, y)
    assert loss == pytest.approx(loss_full, abs=1e-12)
    np.testing.assert_allclose(bp.forward(model, x), esm.gpt_forward(x, full), atol=1e-12)
    attn = ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "g_1", "beta_1")
    for name in g:
        if name.split(".")[-1] in attn:
            assert not g[name].any(), name
        else:
            np.testing.assert_allclose(g[name], g_full[name], atol=1e-12, err_msg=name)


def test_loss_by_position_averages_to_the_loss():
    tokens = np.random.default_rng(6).integers(0, 12, 400)
    cfg = dict(et.TRAIN, d=8, n_heads=2, L=1, T=6, batch=2, eval_batches=3)
    model = bp.init_gpt2(1, 12, 6, 8, 1, 2)
    by_pos = et.evaluate(model, tokens, cfg, by_position=True)
    assert by_pos.shape == (6,)
    assert by_pos.mean() == pytest.approx(et.evaluate(model, tokens, cfg), abs=1e-12)
    X, Y = et.eval_windows(tokens, cfg)
    Z = esm.gpt_forward(X, model)
    lse = np.log(np.exp(Z).sum(-1))
    np.testing.assert_allclose(by_pos, (lse - np.take_along_axis(Z, Y[..., None], -1)[..., 0]).mean(0), atol=1e-12)


def test_sample_many_is_sample_tokens_side_by_side():
    model = bp.init_gpt2(3, 12, 5, 8, 1, 2, std=0.5)
    prompt = np.array([1, 2, 3])
    many = et.sample_many(model, prompt, 9, [4, 7], top_p=0.8)
    for row, seed in zip(many, (4, 7)):
        np.testing.assert_array_equal(row, et.sample_tokens(model, prompt, 9, np.random.default_rng(seed), top_p=0.8))
