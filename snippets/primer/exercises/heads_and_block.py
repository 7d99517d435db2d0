"""Exercise: multi-head shapes at GPT-2 small's size (heads indexed from 0), and a block's parameter
count from the shapes of its arrays, with the share its MLP holds."""
import numpy as np

from esm import check_close, check_equal, glue, merge_heads, shape_table, split_heads

d, H = 768, 12                                             # GPT-2 small's width and heads
d_k = d // H
rng = np.random.default_rng(117)
X = rng.normal(0.0, 1.0, (2, 8, d))                         # 2 sequences of 8 positions (small T to run)
Xh = split_heads(X, H)
print(shape_table({"B": 2, "T": 8, "H": H, "d": d, "d_k": d_k}, [
    ("states", "X", X, "B T d", ""), ("split into heads", "", Xh, "B H T d_k", r"head $h=0,\dots,H-1$ gets columns $hd_k$ to $(h+1)d_k-1$"),
]))
# Independent: split by slicing columns head by head, as the shape table's role says.
by_slices = np.stack([X[..., h * d_k:(h + 1) * d_k] for h in range(H)], axis=1)
print(check_close("(a) split_heads equals slicing the columns head by head", Xh, by_slices, atol=0.0))
print(check_close("(a) merge_heads undoes split_heads", merge_heads(Xh), X, atol=0.0))
# (b) one block's arrays, with the released checkpoint's shapes (np.empty: no memory touched).
block = {"ln_1.weight": (d,), "ln_1.bias": (d,), "attn.c_attn.weight": (d, 3 * d), "attn.c_attn.bias": (3 * d,),
         "attn.c_proj.weight": (d, d), "attn.c_proj.bias": (d,), "ln_2.weight": (d,), "ln_2.bias": (d,),
         "mlp.c_fc.weight": (d, 4 * d), "mlp.c_fc.bias": (4 * d,), "mlp.c_proj.weight": (4 * d, d),
         "mlp.c_proj.bias": (d,)}
per_block = sum(np.empty(shape, dtype=np.float32).size for shape in block.values())
print(check_equal("(b) a block's arrays hold 12 d^2 + 13 d numbers", per_block, 12 * d * d + 13 * d))
mlp = sum(np.empty(shape, dtype=np.float32).size for name, shape in block.items() if name.startswith("mlp."))
print(check_close("(c) the MLP's share of a block is (8d^2 + 5d) / (12d^2 + 13d) (closed form vs the arrays)",
                  mlp / per_block, (8 * d * d + 5 * d) / (12 * d * d + 13 * d), atol=1e-15))
print(glue("e17_d", d), glue("e17_H", H), glue("e17_dk", d_k), glue("e17_block", per_block, ","),
      glue("e17_attn", 4 * d * d + 4 * d, ","), glue("e17_mlp", 8 * d * d + 5 * d, ","),
      glue("e17_mlp_share", mlp / per_block, ".1%"), glue("e17_last", H - 1), sep="")
