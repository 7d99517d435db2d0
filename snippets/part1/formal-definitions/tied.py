"""2.4 Input, output and tied embeddings: logits z = W h; tying sets W = E."""
import numpy as np

from esm import check_close, check_equal, numerical_grad, shape_table, softmax

# Output head alone: the numbers of the worked example.
h = np.array([1.0, -1.0])
W = np.array([[0.2, 0.0],
              [-0.1, 0.3],
              [0.4, -0.2]])            # |V| = 3 rows, d = 2
z = W @ h
z_loop = np.array([sum(W[j, k] * h[k] for k in range(2)) for j in range(3)])
print(check_close("z = W h: logit j is the dot product of row j with h (loop)", z, z_loop, eq="output-logits"))
print(check_close("the logits are [0.2, -0.4, 0.6]", z, [0.2, -0.4, 0.6], atol=1e-12))
p = softmax(z)
print(check_close("softmax of the logits is [0.3289, 0.1805, 0.4906]", p, [0.3289, 0.1805, 0.4906], atol=5e-5))

# A tied model with no layers: h = x = E[i], z = E h. Where does the gradient of the loss go?
rng = np.random.default_rng(24)
V, d = 5, 3
E = rng.normal(0.0, 1.0, (V, d))
i, y = 1, 3                             # input token 1, target token 3


def loss(table):
    x = table[i]
    z = table @ x                       # tied: the output head is the same table
    return -(z[y] - np.log(np.sum(np.exp(z))))


x = E[i]
dz = softmax(E @ x) - np.eye(V)[y]     # dl/dz = p - e_y
G_out = np.outer(dz, x)                # through the output head: (p - e_y) h^T
G_in = np.zeros_like(E)
G_in[i] = E.T @ dz                     # through the lookup: row i only
G_fd = numerical_grad(loss, E)

print(shape_table({"V": V, "d": d}, [
    ("tied table", "E=W", E, "V d", "input lookup and output head"),
    ("hidden state", r"\mathbf h", x, "d", r"here $\mathbf h=\mathbf x=E_{1,:}$"),
    ("logits", r"\mathbf z", E @ x, "V", r"$\mathbf z=E\mathbf h$"),
    ("output-side gradient", "", G_out, "V d", r"$(\mathbf p-\mathbf e_y)\mathbf h^\top$: every row"),
    ("input-side gradient", "", G_in, "V d", r"row $i$ only"),
]))
print(check_close("tied: finite differences equal output-side + input-side gradients",
                  G_fd, G_out + G_in, atol=1e-6, eq="tied-gradient"))
print(check_close("the output side alone misses row i (the difference is exactly the input side)",
                  (G_fd - G_out)[i], G_in[i], atol=1e-6))
print(check_equal("GPT-2 small untied would have 124,439,808 + 38,597,376 parameters",
                  124_439_808 + 50_257 * 768, 163_037_184))
