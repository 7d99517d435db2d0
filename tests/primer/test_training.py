"""Primer chapter P10 (the training code): the helpers of snippets/esm/train.py against
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


@pytest.mark.source
def test_the_page_code_is_the_code_that_trains():
    """One copy: the names other code imports are the page's functions, and P10 and P11 show
    those files whole (each block pastes one; its checks follow)."""
    assert bp.forward is bw.forward and bp.loss_and_grads is bw.loss_and_grads
    assert et._loop is lp and et.forward is bw.forward
    assert lp.loss_and_grads is bw.loss_and_grads and lp.adamw_step is op.adamw_step and lp.clip_grads is op.clip_grads
    primer = Path(__file__).resolve().parents[2] / "docs" / "primer"
    pages = {p: (primer / p).read_text(encoding="utf-8") for p in ("training.md", "training-run.md")}
    pages["modern-trained.md"] = (primer / "modern-trained.md").read_text(encoding="utf-8")
    for name, page in (("initialise", "training.md"), ("backward", "training.md"), ("optim", "training.md"),
                       ("loop", "training-run.md"), ("modern", "modern-trained.md")):
        assert f'```python exec="on" source="above"\n--8<-- "esm/{name}.py"\n```' in pages[page], name


@pytest.mark.parametrize("name, allowed", [("backward", {"math", "numpy"}), ("optim", {"math", "numpy"}),
                                           ("initialise", {"math", "numpy"}),
                                           ("loop", {"numpy", "esm.initialise", "esm.backward", "esm.optim", "esm.modern"}),
                                           ("modern", {"math", "numpy", "esm.backward", "esm.math"})])
@pytest.mark.source
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


@pytest.mark.parametrize("name", ["backward.py", "optim.py", "loop.py", "initialise.py", "backprop.py", "train.py",
                                  "modern.py"])
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


# --- optimiser ----------------------------------------------------------------------------

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


def test_lr_schedule():
    cfg = et.TRAIN
    assert op.lr_at(0, cfg) == pytest.approx(cfg["lr"] / cfg["warmup"])
    assert op.lr_at(cfg["warmup"], cfg) == pytest.approx(cfg["lr"])
    assert op.lr_at(cfg["steps"], cfg) == pytest.approx(cfg["min_lr"])


def test_plain_strips_marks_and_collapses_blank_runs():
    """A heading loses its #, a bold speaker becomes NAME:, a hard break its two spaces, and a run
    of blank lines becomes one."""
    assert tk._plain("# ACT I\n\n\n\n**HAMLET**\nTo be  \n") == "ACT I\n\nHAMLET:\nTo be\n"


def test_init_gpt2_in_float32_rounds_every_array():
    """Drawn in float64 (the same numbers), then rounded: every array, the blocks' too."""
    m = bp.init_gpt2(1, V=11, T_max=6, d=8, L=2, n_heads=2)
    m32 = bp.init_gpt2(1, V=11, T_max=6, d=8, L=2, n_heads=2, dtype=np.float32)
    a, a32 = bp.param_arrays(m), bp.param_arrays(m32)
    assert a32.keys() == a.keys() and len(a) == 4 + 2 * 16
    for k in a:
        assert a32[k].dtype == np.float32, k
        assert np.array_equal(a32[k], a[k].astype(np.float32)), k


def test_run_name_depends_on_the_token_values_not_their_dtype():
    cfg = {"seed": 0}
    a = et.run_name([1, 2, 3], [4, 5], 7, cfg)
    assert et.run_name(np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32), 7, cfg) == a
    assert et.run_name(np.array([1, 2, 3], np.uint16), np.array([4, 5], np.uint16), 7, cfg) == a
    assert et.run_name([1, 2, 3], [4, 6], 7, cfg) != a
