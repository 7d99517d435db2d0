"""Exercise: the Jacobian of the softmax, derived on three logits whose exponentials are 1, 2, 3,
and the cross-entropy gradient p - e_y obtained from it by the chain rule (P4)."""
import math

import numpy as np

from esm import check_close, glue, numerical_grad, one_hot, softmax

z = np.array([0.0, math.log(2.0), math.log(3.0)])   # e^z = (1, 2, 3), so a = (1, 2, 3) / 6
a = softmax(z)
J = np.diag(a) - np.outer(a, a)                      # da_i / dz_j = a_i (1{i=j} - a_j)
fd = np.array([numerical_grad(lambda v: float(softmax(v)[i]), z.copy()) for i in range(3)])   # row i: grad of a_i
print(check_close("(a) da_i/dz_j = a_i (1{i=j} - a_j) (closed form vs central differences)", J, fd, atol=1e-9))
by_hand = np.array([[5, -2, -3], [-2, 8, -6], [-3, -6, 9]]) / 36
print(check_close("(a) on a = (1, 2, 3)/6 the Jacobian is [[5, -2, -3], [-2, 8, -6], [-3, -6, 9]] / 36", J, by_hand,
                  atol=1e-15))
print(check_close("(b) each row sums to 0: adding one constant to every logit changes no weight", J.sum(axis=1),
                  np.zeros(3), atol=1e-15))
y = 1
grad = J.T @ (-one_hot(np.array([y]), 3)[0] / a[y])  # chain rule through -log a_y
print(check_close("(c) the chain rule gives grad_z (-log a_y) = a - e_y (vs central differences of -log a_y)", grad,
                  numerical_grad(lambda v: float(-np.log(softmax(v)[y])), z.copy()), atol=1e-9))
print(check_close("(c) ... and that gradient is a - e_y, here (1, -4, 3)/6", grad, np.array([1, -4, 3]) / 6, atol=1e-15))
print(glue("sj_y", y), sep="")
