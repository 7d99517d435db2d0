"""Try this: double GPT-2 small's context, n_ctx = 1024 to 2048. Only the position table grows, by one row of
d = 768 numbers per added position, and the total rises by less than 1%: in parameters, a longer window is
cheap."""
import math

from esm import check_equal, check_less


def count(cfg):
    """The demo's route 1: the sizes of the checkpoint's arrays, shapes from cfg."""
    V, T_max, d, L = (cfg[k] for k in ("n_vocab", "n_ctx", "n_embd", "n_layer"))
    arrays = {"wte": (V, d), "wpe": (T_max, d), "ln_f.g": (d,), "ln_f.b": (d,)}
    for i in range(L):
        arrays |= {f"h{i}.ln_1.g": (d,), f"h{i}.ln_1.b": (d,), f"h{i}.attn.c_attn.w": (d, 3 * d),
                   f"h{i}.attn.c_attn.b": (3 * d,), f"h{i}.attn.c_proj.w": (d, d), f"h{i}.attn.c_proj.b": (d,),
                   f"h{i}.ln_2.g": (d,), f"h{i}.ln_2.b": (d,), f"h{i}.mlp.c_fc.w": (d, 4 * d),
                   f"h{i}.mlp.c_fc.b": (4 * d,), f"h{i}.mlp.c_proj.w": (4 * d, d), f"h{i}.mlp.c_proj.b": (d,)}
    return sum(math.prod(s) for s in arrays.values())


cfg = {"n_vocab": 50257, "n_ctx": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12}
longer = dict(cfg, n_ctx=2048)                       # changed: was n_ctx 1024
n, n_long = count(cfg), count(longer)
print(f"{n:,} parameters with 1,024 positions, {n_long:,} with 2,048: {n_long / n - 1:.2%} more")
print(check_equal("the rise is the position table's new rows: 1,024 more rows of d = 768", n_long - n, 1024 * 768))
print(check_less("the total rises by less than 1%", n_long / n - 1, 0.01, names=("rise", "1%")))
