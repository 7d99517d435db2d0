"""Try this: give the three rows of every group the same length (lengths = (1.0, 1.0, 1.0) instead of
(1.0, 1.7, 0.6)). The cosine neighbours do not move, since cosine ignores length, and the raw dot product now
agrees with them: "cat" finds "horse" first by both."""
import numpy as np

from esm import check_equal, cosine_matrix, top_k

groups = {"animals": (["cat", "dog", "horse"], 20),      # name: (tokens, direction in degrees), as in 3.5
          "vehicles": (["car", "bus", "truck"], 110),
          "colours": (["red", "blue", "green"], 200),
          "numbers": (["one", "two", "three"], 290)}
offsets = (0, 25, -12)                                  # degrees, within a group


def table(lengths):
    words, rows = [], []
    for names, deg in groups.values():
        for w, off, length in zip(names, offsets, lengths):
            a = np.radians(deg + off)
            words.append(w)
            rows.append(length * np.array([np.cos(a), np.sin(a)]))
    return words, np.array(rows)


def neighbours(E):
    """Each token's nearest other token by cosine and by raw dot product."""
    V = len(E)
    C = cosine_matrix(E)
    by_cos = [int(top_k(C[i], 1, exclude=[i])[0]) for i in range(V)]
    by_dot = [int(top_k(E @ E[i], 1, exclude=[i])[0]) for i in range(V)]
    return by_cos, by_dot


words, E_page = table((1.0, 1.7, 0.6))
_, E = table((1.0, 1.0, 1.0))                           # changed: was lengths (1.0, 1.7, 0.6)
cos_page, dot_page = neighbours(E_page)
cos_eq, dot_eq = neighbours(E)
cat = words.index("cat")
print(f"'cat', nearest by cosine / by dot product: page's lengths {words[cos_page[cat]]} / {words[dot_page[cat]]}, "
      f"equal lengths {words[cos_eq[cat]]} / {words[dot_eq[cat]]};  tokens where the two disagree: "
      f"{sum(a != b for a, b in zip(cos_page, dot_page))} -> {sum(a != b for a, b in zip(cos_eq, dot_eq))}")
print(check_equal("equal lengths leave every token's nearest neighbour by cosine where it was",
                  [words[j] for j in cos_eq], [words[j] for j in cos_page]))
print(check_equal("and the raw dot product now picks the same neighbour for all 12 tokens",
                  [words[j] for j in dot_eq], [words[j] for j in cos_eq]))
