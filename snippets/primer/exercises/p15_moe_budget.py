"""Exercise: experts on a budget. A hypothetical mixture-of-experts model counted with P15's N(m), checked
against the sizes of its arrays; the held-to-used ratio against E/k; and finer experts (each split into m
narrower ones, m times as many routed) against the original."""
import math

from esm import check_equal, check_less, check_true, glue

CFG = dict(d=2048, L=24, H=16, n_kv=4, d_k=128, V=50_000, d_ff=5632, E=16, k=2)


def N(c, m):
    """P15's count with m experts per layer: untied table and head, attention, m SwiGLU experts, router, gains."""
    d = c["d"]
    return (2 * c["V"] * d + c["L"] * (2 * d * c["H"] * c["d_k"] + 2 * d * c["n_kv"] * c["d_k"]
                                       + m * 3 * d * c["d_ff"] + d * c["E"] + 2 * d) + d)


def by_arrays(c, m):
    """The same from the shapes of the arrays: table, head, final gain, and per layer W_Q, W_K, W_V, W_O,
    m experts of three matrices, the router and two gains."""
    d, dq, dkv = c["d"], c["H"] * c["d_k"], c["n_kv"] * c["d_k"]
    layer = [(d, dq), (d, dkv), (d, dkv), (dq, d)] + [(d, c["d_ff"]), (d, c["d_ff"]), (c["d_ff"], d)] * m \
        + [(d, c["E"]), (d,), (d,)]
    return 2 * c["V"] * d + d + c["L"] * sum(math.prod(s) for s in layer)


# (a) held and used
held, used = N(CFG, CFG["E"]), N(CFG, CFG["k"])
print(check_equal("(a) N(E) and N(k) = the summed sizes of the arrays", (held, used),
                  (by_arrays(CFG, CFG["E"]), by_arrays(CFG, CFG["k"]))))
print(glue("p15_held", held, ","), glue("p15_used", used, ","), glue("p15_ratio", held / used, ".2f"),
      glue("p15_Ek", CFG["E"] // CFG["k"]))

# (b) N(E) / N(k) = (S + E x) / (S + k x) < E / k whenever S > 0 and k < E, S the shared part, x one expert layer-stack.
x = CFG["L"] * 3 * CFG["d"] * CFG["d_ff"]
S = N(CFG, 0)                                          # everything but the experts: counted in both
print(check_equal("(b) N(m) = S + m x: the shared part plus m experts' weights, for m = E and m = k", (S + CFG["E"] * x, S + CFG["k"] * x),
                  (held, used)))
print(check_less("(b) N(E) / N(k) < E / k", held / used, CFG["E"] / CFG["k"], names=("N(E)/N(k)", "E/k")))
print(glue("p15_shared", S / 1e9, ".2f"), glue("p15_expert", x / 1e9, ".2f"), glue("p15_S_kx", S / (CFG["k"] * x), ".2f"))

# (c) each expert split into m = 4 experts of width d_ff / 4; a token uses m k of the m E.
m = 4
fine = dict(CFG, E=m * CFG["E"], k=m * CFG["k"], d_ff=CFG["d_ff"] // m)
held_f, used_f = N(fine, fine["E"]), N(fine, fine["k"])
print(check_equal("(c) finer experts: held and used change only by the router's extra columns, L d (m - 1) E",
                  (held_f - held, used_f - used), (CFG["L"] * CFG["d"] * (m - 1) * CFG["E"],) * 2))
sets, sets_f = math.comb(CFG["E"], CFG["k"]), math.comb(fine["E"], fine["k"])
print(check_true("(c) the number of expert sets a token can use grows from C(E, k) to C(mE, mk)", sets_f > 10 ** 6 * sets,
                 f"{sets:,} against {sets_f:,}"))
print(glue("p15_router_extra", CFG["L"] * CFG["d"] * (m - 1) * CFG["E"], ","), glue("p15_sets", sets, ","),
      glue("p15_sets_f", sets_f, ","))
