"""Exercise 10.17: multi-head shapes at GPT-2 small's size, and a block's parameter count from
the shapes of its arrays, checked against the published total of the model."""
import numpy as np

from esm import check_close, check_equal, glue, merge_heads, shape_table, split_heads

d, H, T, L, V, T_max = 768, 12, 1024, 12, 50257, 1024     # GPT-2 small's released configuration
d_k = d // H
rng = np.random.default_rng(117)
X = rng.normal(0.0, 1.0, (2, 8, d))                         # 2 sequences of 8 positions (small T to run)
Xh = split_heads(X, H)
print(shape_table({"B": 2, "T": 8, "H": H, "d": d, "d_k": d_k}, [
    ("states", "X", X, "B T d", ""), ("split into heads", "", Xh, "B H T d_k", r"head $h$ gets columns $(h-1)d_k$ to $hd_k-1$"),
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
embeddings = V * d + T_max * d                               # tied head: counted once
total = embeddings + L * per_block + 2 * d                   # plus the final layer norm
print(check_equal("(c) embeddings + 12 blocks + final layer norm = the published 124,439,808", total, 124_439_808))
print(glue("e17_d", d), glue("e17_H", H), glue("e17_dk", d_k), glue("e17_block", per_block, ","),
      glue("e17_blocks", L * per_block, ","), glue("e17_emb", embeddings, ","),
      glue("e17_block_share", L * per_block / total, ".1%"), glue("e17_attn", 4 * d * d + 4 * d, ","),
      glue("e17_mlp", 8 * d * d + 5 * d, ","), sep="")
