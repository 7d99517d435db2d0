"""P15 Mixtral 8x7B's parameters held and used per token, from its configuration (Jiang et al., 2024)."""
from esm import check_equal, glue, table

MIXTRAL = dict(d=4096, L=32, d_k=128, d_ff=14336, H=32, n_kv=8, V=32000, E=8, k=2)
PUBLISHED = dict(total=46.7, active=12.9)      # billions, Mistral AI's announcement


def parts(c, m):
    """Parameters by part with m experts per layer; no biases, an untied head, a d x E router per layer."""
    d, L = c["d"], c["L"]
    return {"token table and head": 2 * c["V"] * d,
            "attention": L * (2 * d * c["H"] * c["d_k"] + 2 * d * c["n_kv"] * c["d_k"]),   # W_Q, W_O; W_K, W_V
            "experts": L * m * 3 * d * c["d_ff"],
            "router": L * d * c["E"],
            "RMSNorm gains": 2 * L * d + d}


held, used = parts(MIXTRAL, MIXTRAL["E"]), parts(MIXTRAL, MIXTRAL["k"])
total, active = sum(held.values()), sum(used.values())
print(table(["part", "held", "used per token"], [(n, f"{held[n]:,}", f"{used[n]:,}") for n in held] +
            [("**all**", f"**{total:,}**", f"**{active:,}**")]))
print(check_equal("held and used, in tenths of a billion = the announcement's 46.7 and 12.9",
                  (round(total / 1e8), round(active / 1e8)), (round(PUBLISHED["total"] * 10), round(PUBLISHED["active"] * 10)),
                  eq="moe-count"))
dense = sum(parts(dict(MIXTRAL, E=0), 1).values())             # one SwiGLU layer, no router: Mistral 7B's shape
print(glue("mx_total", total, ","), glue("mx_active", active, ","), glue("mx_pub_total", PUBLISHED["total"], ".1f"),
      glue("mx_pub_active", PUBLISHED["active"], ".1f"), glue("mx_ratio", total / active, ".1f"),
      glue("mx_ffn_share", held["experts"] / total, ".0%"), glue("mx_gb16", total * 2 / 1e9, ".1f"),
      glue("mx_eight_dense", 8 * dense / 1e9, ".1f"))
