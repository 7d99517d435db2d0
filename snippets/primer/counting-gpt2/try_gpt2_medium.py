"""Try this: count GPT-2 medium, n_embd = 1024 and n_layer = 24 instead of 768 and 12. The total comes to the
released "355M", and the blocks, which grow like L d^2, now dwarf the token table, which grows like d: its share
of the model falls to less than half of what it was in GPT-2 small."""
import math

from esm import check_close, check_less


def count(cfg):
    """The demo's route 1: the checkpoint's arrays, named as in the released weights, shapes from cfg."""
    V, T_max, d, L = (cfg[k] for k in ("n_vocab", "n_ctx", "n_embd", "n_layer"))
    arrays = {"wte": (V, d), "wpe": (T_max, d), "ln_f.g": (d,), "ln_f.b": (d,)}
    for i in range(L):
        arrays |= {f"h{i}.ln_1.g": (d,), f"h{i}.ln_1.b": (d,), f"h{i}.attn.c_attn.w": (d, 3 * d),
                   f"h{i}.attn.c_attn.b": (3 * d,), f"h{i}.attn.c_proj.w": (d, d), f"h{i}.attn.c_proj.b": (d,),
                   f"h{i}.ln_2.g": (d,), f"h{i}.ln_2.b": (d,), f"h{i}.mlp.c_fc.w": (d, 4 * d),
                   f"h{i}.mlp.c_fc.b": (4 * d,), f"h{i}.mlp.c_proj.w": (4 * d, d), f"h{i}.mlp.c_proj.b": (d,)}
    total = sum(math.prod(s) for s in arrays.values())
    return total, math.prod(arrays["wte"]) / total


small = {"n_vocab": 50257, "n_ctx": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12}
medium = dict(small, n_embd=1024, n_layer=24, n_head=16)   # changed: was n_embd 768, n_layer 12 (n_head 12)
(n_small, tok_small), (n_medium, tok_medium) = count(small), count(medium)
print(f"GPT-2 small: {n_small:,} parameters, token table {tok_small:.1%}; "
      f"GPT-2 medium: {n_medium:,} parameters, token table {tok_medium:.1%}")
print(check_close("GPT-2 medium, in millions, rounds to the released '355M'", n_medium / 1e6, 355.0, atol=0.5))
print(check_less("the token table's share falls to less than half of GPT-2 small's", tok_medium, tok_small / 2,
                 names=("share in medium", "half the share in small")))
