"""3.3 Euclidean distance: ||u - v||^2 = ||u||^2 + ||v||^2 - 2 u^T v; on unit vectors 2 - 2 cos."""
import numpy as np

from esm import check_close, check_equal, check_true, cosine, cosine_matrix, glue, normalize_rows, shape_table, table, top_k

u = np.array([3.0, 4.0])
v = np.array([4.0, 3.0])
sq_uv = (u - v) @ (u - v)                        # quoted in the prose: the checked value itself
print(check_close("u = (3, 4), v = (4, 3): ||u - v||^2 (squared differences) = 25 + 25 - 2 x 24",
                  sq_uv, u @ u + v @ v - 2 * (u @ v), atol=1e-12, eq="euclid-expand"))
uh, vh = u / 5, v / 5
diff_sq = (uh - vh) ** 2
print(check_close("unit vectors u/5, v/5: squared distance (summed differences) = 2 - 2 cos(u, v)",
                  np.sum(diff_sq), 2 - 2 * cosine(u, v), atol=1e-12, eq="euclid-unit"))

rng = np.random.default_rng(33)
n, d = 6, 5
A = rng.normal(0.0, 1.0, (n, d)) * rng.uniform(0.3, 3.0, (n, 1))
sq = np.sum(A * A, axis=1)
D2 = sq[:, None] + sq[None, :] - 2 * A @ A.T          # all squared distances from norms and a Gram matrix
D2 = np.maximum(D2, 0.0)                              # rounding can leave -1e-16 on the diagonal
U = normalize_rows(A)
D2u = np.sum((U[:, None, :] - U[None, :, :]) ** 2, axis=-1)

print(shape_table({"N": n, "d": d}, [
    ("vectors", "A", A, "N d", "rows of different lengths"),
    ("squared distances", "", D2, "N N", r"from the squared row lengths and the Gram matrix $A A^\top$"),
    ("unit-row squared distances", "", D2u, "N N", r"equal to $2-2\cos$"),
]))
loop = np.array([[sum((A[a, k] - A[b, k]) ** 2 for k in range(d)) for b in range(n)] for a in range(n)])
print(check_close("norms + Gram matrix equal the squared differences summed in a loop",
                  D2, loop, atol=1e-12, eq="euclid-expand"))
print(check_close("unit rows: squared distances equal 2 - 2 cos for all 36 pairs",
                  D2u, 2 - 2 * cosine_matrix(A), atol=1e-12, eq="euclid-unit"))
same = all(np.array_equal(top_k(-D2u[a], 2, exclude=[a]), top_k(cosine_matrix(A)[a], 2, exclude=[a]))
           for a in range(n))
print(check_equal("unit rows: the 2 nearest by distance are the 2 most similar by cosine, for every row",
                  same, True))

# The Gram route errs by about eps (||u||^2 + ||v||^2), not by a fraction of the distance: in float32, two
# near-duplicate rows of length about 20 at distance 0.001 get a squared distance that is wrong by any factor.
d_dup = 384
u_dup = rng.normal(0.0, 1.0, d_dup)
pair = np.stack([u_dup, u_dup + rng.normal(0.0, 1.0, d_dup) * 1e-3 / np.sqrt(d_dup)]).astype(np.float32)


def dot32(a, b):
    """a . b in float32, summed left to right: one order, so the same float32 result on every machine."""
    total = np.float32(0.0)
    for x, y in zip(a, b):
        total = np.float32(total + x * y)
    return total


p, r = pair
gram32 = float(dot32(p, p) + dot32(r, r) - np.float32(2.0) * dot32(p, r))   # the Gram route, in float32
exact = float(np.sum((p.astype(float) - r.astype(float)) ** 2))       # the same float32 rows, in float64
direct32 = float(np.sum((p - r) ** 2))                                # subtract first, in float32
sq32 = np.sum(pair * pair, axis=1)
scale32 = float(np.finfo(np.float32).eps * (sq32[0] + sq32[1]))
# Worst case, any summation order: each dot product errs by at most d u sum|x_i y_i| (u = eps/2, the unit
# roundoff), the two sums by u each, and the first-order total is (2d + 3) u S = (d + 1.5) eps S, with
# S = ||u||^2 + ||v||^2; (d + 2) eps S covers the second-order terms too.
bound32 = (d_dup + 2) * scale32
print(check_close("near-duplicate float32 rows: subtracting first gives the squared distance of the float64 loop "
                  "(relative 1e-5)", direct32, exact, rtol=1e-5, atol=0))
print(check_true("... the Gram route in float32, summed in order, misses it by more than half, and its error stays "
                 "within (d + 2) eps (||u||^2 + ||v||^2), the worst-case rounding bound of its three dot products "
                 "and two sums", abs(gram32 - exact) > 0.5 * exact and abs(gram32 - exact) <= bound32,
                 f"exact {exact:.3e}, Gram route {gram32:.3e}, error {abs(gram32 - exact):.2e}, bound {bound32:.2e}"))
blas32 = float(sq32[0] + sq32[1] - 2 * (pair @ pair.T)[0, 1])          # the BLAS route: its order depends on the CPU
print(check_true("the same Gram route through BLAS (pair @ pair.T), whose summation order depends on the CPU, "
                 "stays within the same bound", abs(blas32 - exact) <= bound32, f"bound {bound32:.2e}"))
print(glue("dup_len", float(np.sqrt(sq32[0])), ".1f"), glue("dup_dist", np.sqrt(exact), ".5f"),
      glue("dup_gram", gram32, ".1e"), glue("dup_scale", scale32, ".1e"), glue("eps32", float(np.finfo(np.float32).eps), ".1e"))
# Clipped at 0, as libraries do, the Gram route reports distance 0: the two rows look identical,
# though the float64 loop over their entries says they differ.
print(check_true("clipped at 0, the Gram route's squared distance is 0, where the float64 loop finds a positive one",
                 max(gram32, 0.0) == 0.0 and exact > 0, f"Gram route {gram32:.2e}, clipped {max(gram32, 0.0):g}; "
                 f"loop {exact:.3e}"))

# Without normalisation the two rankings can disagree.
q = np.array([1.0, 0.0])
far_same_dir = np.array([3.0, 0.3])       # almost the direction of q, but long
near_other_dir = np.array([0.7, 0.7])     # 45 degrees away, but close
C = [cosine(q, far_same_dir), cosine(q, near_other_dir)]
dist = [np.linalg.norm(q - far_same_dir), np.linalg.norm(q - near_other_dir)]
print(check_equal("raw vectors: cosine prefers (3, 0.3), distance prefers (0.7, 0.7)",
                  (int(np.argmax(C)), int(np.argmin(dist))), (0, 1)))
print(check_close("the two distances, against the expansion sqrt(||q||^2 + ||c||^2 - 2 q.c)",
                  dist, [np.sqrt(q @ q + c @ c - 2 * q @ c) for c in (far_same_dir, near_other_dir)],
                  atol=1e-12, eq="euclid-expand"))
print(table(("candidate", "cosine with q = (1, 0)", "distance to q"),
            [("(3, 0.3)", f"{C[0]:.4f}", f"{dist[0]:.4f}"), ("(0.7, 0.7)", f"{C[1]:.4f}", f"{dist[1]:.4f}")]))

print(glue("eu_sq", sq_uv, "g"))
print(glue("eu_u_sq", u @ u, "g"))
print(glue("eu_sq_unit", np.sum(diff_sq), ".2f"))
print(glue("eu_q", q, "g"))
print(glue("eu_far", far_same_dir, "g"))
print(glue("eu_near", near_other_dir, "g"))
print(glue("eu_cos_far", C[0], ".3f"))
print(glue("eu_dist_near", dist[1], ".2f"))
