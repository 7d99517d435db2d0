"""P15 Position interpolation and NTK-aware scaling, against rotations of complex numbers."""
import math

import numpy as np

from esm import PALETTE, check_close, check_equal, check_true, figure, glue, rope_angles, rope_rotate, svg


def rotate_complex(x, t, omega):
    """Pair j of x read as the complex number x_2j + i x_2j+1 and multiplied by e^(i t omega_j)."""
    z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * t * omega)
    return np.stack([z.real, z.imag], axis=-1).ravel()


def ntk_base(lam, d_k, b=10000.0):
    return b * lam ** (d_k / (d_k - 2))


# By pencil: d_k = 8, lambda = 4, omega_j = 10^-j.
d_k, lam = 8, 4
omega, ntk = rope_angles(d_k), rope_angles(d_k, ntk_base(lam, d_k))
print(check_close("pencil: omega_j = 10^-j and the NTK-aware omega'_j = omega_j 4^(-j/3)", [omega, ntk],
                  [10.0 ** -np.arange(4), 10.0 ** -np.arange(4) * 4.0 ** (-np.arange(4) / 3)], atol=1e-15, eq="ntk"))
print(glue("pe_dk", d_k), glue("pe_lam", lam), glue("pe_base", ntk_base(lam, d_k), ",.0f"),
      glue("pe_slow1", float(omega[1] / ntk[1]), ".2f"), glue("pe_slow2", float(omega[2] / ntk[2]), ".2f"))

# d_k = 128, lambda = 4: a model trained on 4,096 tokens stretched to 16,384.
d_k, lam, T_train = 128, 4, 4096
j = np.arange(d_k // 2)
omega, ntk = rope_angles(d_k), rope_angles(d_k, ntk_base(lam, d_k))
x, ts = np.random.default_rng(15).normal(size=d_k), [1, 4095, 9000, 16383]
print(check_close("interpolation: rope_rotate at t / lambda = every pair turned by t omega_j / lambda (complex numbers)",
                  [rope_rotate(x, t / lam) for t in ts], [rotate_complex(x, t, omega / lam) for t in ts], atol=1e-9, eq="pi"))
slow = omega / ntk                                                      # how many times slower each pair turns
print(check_close("NTK-aware: pair j turns lambda^(2j/(d_k-2)) times slower, 1 for the fastest, lambda for the slowest",
                  slow, lam ** (2 * j / (d_k - 2)), atol=1e-12, eq="ntk"))
# Pairs with 2 pi b^(2j/d_k) > T_train never complete a turn in training: j > (d_k/2) log_b(T_train / 2 pi).
never = np.flatnonzero(2 * np.pi / omega > T_train)
first = math.floor(d_k / 2 * math.log(T_train / (2 * np.pi), 10000.0)) + 1
print(check_equal("the pairs that never turn in T_train tokens = those with j > (d_k/2) log_b(T_train / 2 pi)", never,
                  np.arange(first, d_k // 2)))
over = lam / slow                      # over T_new tokens, pair j sweeps lambda / slowdown times the angles it met
print(check_true("NTK-aware: all of them but the last sweep past the angles they met", (over[never[:-1]] > 1).all()
                 and abs(over[-1] - 1) < 1e-12, f"pair {first}: {over[first]:.4f}, the last: {over[-1]:.4f}"))
print(glue("rs_dk", d_k), glue("rs_lam", lam), glue("rs_T_train", T_train, ","),
      glue("rs_pairs", d_k // 2), glue("rs_never", len(never)), glue("rs_first_never", int(never[0])),
      glue("rs_overshoot", float(over[never[0]]), ".2f"), glue("rs_neighbour", 1 / lam, ".2f"))

fig, ax = figure(size=(6.4, 3.2))
ends = [0, -1]                                  # log(wavelength) is linear in j: each line is straight on this scale
for w, colour, style, name in ((omega, 0, "-", "original"), (omega / lam, 1, "-", f"interpolation, λ = {lam}"),
                               (ntk, 2, "--", "NTK-aware")):
    ax.plot(j[ends], 2 * np.pi / w[ends], color=PALETTE[colour], linestyle=style, label=name)
ax.axhline(T_train, color="#010101", linewidth=0.8, alpha=0.5, label=f"T_train = {T_train:,}")
ax.axvspan(first - 0.5, d_k // 2 - 0.5, color="#010101", alpha=0.06, linewidth=0)     # never a full turn in training
ax.set(yscale="log", xlabel="pair j", ylabel="tokens per full turn", yticks=[10, 100, 1000, 10**4, 10**5],
       yticklabels=["10", "100", "1,000", "10,000", "100,000"])
ax.minorticks_off()
ax.legend(loc="lower right", frameon=False, fontsize=9)
print(svg(fig, alt=f"Tokens per full turn of the {d_k // 2} pairs, log scale: interpolation {lam} times above the original "
          f"line; NTK-aware from the original line to the interpolation line, below it in between; pairs from {first} "
          f"on shaded.",
          caption=f"Tokens per full turn of pair $j$ ($d_k={d_k}$, $\\lambda={lam}$). Shaded: the pairs that never complete "
                  f"a turn in $T_{{\\mathrm{{train}}}}$ tokens. Over $\\lambda T_{{\\mathrm{{train}}}}$ tokens such a pair "
                  f"stays within the angles it met only on or above the interpolation line."))
