"""Try this: build 6.2's sinusoidal table with a single pair of coordinates (d = 32 to 2), and two
positions 44 apart nearly coincide: one pair turning at 1 radian per position comes back almost to
where it started after 44 positions (seven turns), and only the slower pairs told them apart."""
import math

import numpy as np

from esm import check_close, check_equal, check_true, sinusoidal_positions, table

T = 64
d = 2                                             # changed: was d = 32


def by_offset(PE):
    """|PE_k - PE_0| for k = 1..T-1: the distance of two encodings k apart (the same for every t, as the
    dot product is), the nearest offset and its distance."""
    dist = np.linalg.norm(PE[1:] - PE[0], axis=1)
    k = int(np.argmin(dist)) + 1
    return dist, k, float(dist[k - 1])


PE = sinusoidal_positions(T, d)
dist, k, near = by_offset(PE)
dist32, k32, near32 = by_offset(sinusoidal_positions(T, 32))
print(table(("d", "offset whose encodings are nearest", "their distance", "distance at offset 1"),
            [(d, k, f"{near:.3f}", f"{dist[0]:.3f}"), (32, k32, f"{near32:.3f}", f"{dist32[0]:.3f}")]))
print(check_equal(f"with d = {d}, of all offsets up to {T - 1} the encodings 44 apart are the nearest", k, 44))
print(check_true("they are nearer each other than 0.05, while neighbours are more than 0.9 apart",
                 near < 0.05 and dist[0] > 0.9, f"|PE_44 - PE_0| = {near:.4f}, |PE_1 - PE_0| = {dist[0]:.4f}"))
print(check_close("the same for every t: |PE_(t+44) - PE_t| = 2 |sin(44 / 2)| for every t of the table",
                  np.linalg.norm(PE[44:] - PE[:-44], axis=1), np.full(T - 44, 2 * abs(math.sin(22))), atol=1e-12))
print(check_true("with d = 32 the nearest encodings are neighbours (offset 1), more than 1 apart",
                 k32 == 1 and near32 > 1, f"nearest offset {k32}, distance {near32:.4f}"))
