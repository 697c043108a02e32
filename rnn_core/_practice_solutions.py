"""Reference solutions of the exercises, as ``practice.solution(name)`` prints them.

Plain, notebook-style code: one sequence, column vectors, a loop over time where the maths has
one. Not rnn_core's vectorised engine: the answer a reader could have written. Each is the source
of one function, using only ``np`` (numpy, imported as in every notebook) and, where a solution
builds on an earlier exercise, the names it imports itself. tests/test_practice.py runs every one
through ``practice.check``.
"""

SOLUTIONS = {
    "one_hot": """
def one_hot(y, num_classes):
    # one row per index, with a single 1 in the column the index names
    rows = np.zeros((len(y), num_classes))
    rows[np.arange(len(y)), y] = 1.0
    return rows
""",
    "softmax": """
def softmax(o):
    z = o - np.max(o)  # the largest exponent is 0: no overflow, and the sum below is at least 1
    e = np.exp(z)
    return e / e.sum()
""",
    "softmax_jacobian": """
def softmax_jacobian(p):
    # J[i, k] = dp_i / do_k = p_i ([i == k] - p_k): p_i (1 - p_i) on the diagonal, -p_i p_k elsewhere
    return np.diag(p) - np.outer(p, p)
""",
    "cross_entropy_grad": """
def cross_entropy_grad(o, y):
    # dL/do = y_hat - onehot(y): the probabilities minus the target
    e = np.exp(o - np.max(o))
    y_hat = e / e.sum()
    do = y_hat.copy()
    do[y] -= 1.0
    return do
""",
    "step_forward": """
def step_forward(params, x_t, h_prev):
    # h_t = tanh(W_hh h_{t-1} + W_xh x_t + b_h); with a one-hot x_t, W_xh x_t is column x_t of W_xh
    return np.tanh(params["W_hh"] @ h_prev + params["W_xh"][:, x_t] + params["b_h"])
""",
    "step_backward": """
def step_backward(params, dh_t, h_t, h_prev, x_t):
    da = dh_t * (1 - h_t**2)  # back through the tanh of this step: delta_t
    dW_xh = np.zeros_like(params["W_xh"])
    dW_xh[:, x_t] = da  # delta_t x_t^T: x_t is one-hot, so only column x_t
    grads = {"W_xh": dW_xh, "W_hh": np.outer(da, h_prev), "b_h": da}
    dh_prev = params["W_hh"].T @ da  # back through W_hh h_{t-1}
    return dh_prev, grads
""",
    "loss_and_grads": """
def loss_and_grads(params, inputs, targets, h0):
    W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in ("W_xh", "W_hh", "W_yh", "b_h", "b_o"))
    V, T = W_yh.shape[0], len(inputs)
    # forward, keeping every state: hs[t] is h_t, with hs[0] = h0
    hs, y_hats, loss = [h0], [], 0.0
    for t in range(T):
        hs.append(np.tanh(W_hh @ hs[t] + W_xh[:, inputs[t]] + b_h))
        o = W_yh @ hs[t + 1] + b_o
        e = np.exp(o - o.max())
        y_hats.append(e / e.sum())
        loss -= np.log(y_hats[t][targets[t]])
    # backward, from t = T down to 1
    grads = {name: np.zeros_like(params[name]) for name in ("W_xh", "W_hh", "W_yh", "b_h", "b_o")}
    dh_next = np.zeros_like(h0)  # what comes back to h_t from step t + 1; nothing after the last step
    for t in range(T, 0, -1):
        do = y_hats[t - 1].copy()
        do[targets[t - 1]] -= 1.0  # y_hat_t - onehot(y_t)
        grads["W_yh"] += np.outer(do, hs[t])
        grads["b_o"] += do
        dh = W_yh.T @ do + dh_next  # from o_t, and from h_{t+1}
        da = (1 - hs[t] ** 2) * dh  # delta_t
        grads["W_hh"] += np.outer(da, hs[t - 1])
        grads["W_xh"][:, inputs[t - 1]] += da
        grads["b_h"] += da
        dh_next = W_hh.T @ da
    return loss, grads, hs[T]
""",
    "clip_global_norm": """
def clip_global_norm(grads, max_norm):
    norm = np.sqrt(sum(np.sum(g**2) for g in grads.values()))  # one norm for all the arrays together
    scale = max_norm / norm if norm > max_norm else 1.0
    return {name: g * scale for name, g in grads.items()}, norm  # new arrays; the norm before clipping
""",
    "adam_update": """
def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    t = state["t"] + 1  # this is update number t
    m = {name: beta1 * state["m"][name] + (1 - beta1) * grads[name] for name in params}
    v = {name: beta2 * state["v"][name] + (1 - beta2) * grads[name] ** 2 for name in params}
    new = {}
    for name in params:
        m_hat = m[name] / (1 - beta1**t)  # bias correction: m and v started at 0
        v_hat = v[name] / (1 - beta2**t)
        new[name] = params[name] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new, {"t": t, "m": m, "v": v}
""",
    "global_norm": """
def global_norm(grads):
    # the square root of the sum of the squares of every entry of every array
    return float(np.sqrt(sum(np.sum(g**2) for g in grads.values())))
""",
    "lstm.step_forward": """
def lstm_step_forward(params, x_t, h_prev, c_prev):
    H = h_prev.shape[0]
    a = params["W_x"][:, x_t] + params["W_h"] @ h_prev + params["b"]  # (4H,): the four gates, stacked i, f, g, o
    sigmoid = lambda z: 1 / (1 + np.exp(-z))
    i, f = sigmoid(a[0:H]), sigmoid(a[H : 2 * H])
    g, o = np.tanh(a[2 * H : 3 * H]), sigmoid(a[3 * H : 4 * H])
    c = f * c_prev + i * g  # keep some of the old cell, write some of the candidate
    h = o * np.tanh(c)  # show some of the cell
    cache = {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, "i": i, "f": f, "g": g, "o": o, "c": c}
    return h, c, cache
""",
    "lstm.step_backward": """
def lstm_step_backward(params, dh_t, dc_t, cache):
    i, f, g, o, c = (cache[name] for name in ("i", "f", "g", "o", "c"))
    tanh_c = np.tanh(c)
    do = dh_t * tanh_c  # back through h_t = o * tanh(c_t), to the output gate ...
    dc = dc_t + dh_t * o * (1 - tanh_c**2)  # ... and into the cell, besides what step t + 1 sends
    di, df, dg = dc * g, dc * cache["c_prev"], dc * i  # back through c_t = f * c_{t-1} + i * g
    da = np.concatenate([di * i * (1 - i), df * f * (1 - f), dg * (1 - g**2), do * o * (1 - o)])  # i, f, g, o
    dW_x = np.zeros_like(params["W_x"])
    dW_x[:, cache["x"]] = da  # da_t x_t^T: only column x_t
    grads = {"W_x": dW_x, "W_h": np.outer(da, cache["h_prev"]), "b": da}
    return params["W_h"].T @ da, dc * f, grads  # dh_{t-1}, dc_{t-1}, this step's gradients
""",
    "gru.step_forward": """
def gru_step_forward(params, x_t, h_prev):
    H = h_prev.shape[0]
    W_x, W_h, b = params["W_x"], params["W_h"], params["b"]  # three blocks of H rows each: r, z, n
    sigmoid = lambda a: 1 / (1 + np.exp(-a))
    r = sigmoid(W_x[0:H, x_t] + W_h[0:H] @ h_prev + b[0:H])  # reset gate
    z = sigmoid(W_x[H : 2 * H, x_t] + W_h[H : 2 * H] @ h_prev + b[H : 2 * H])  # update gate: keeps the old state
    m = W_h[2 * H : 3 * H] @ h_prev  # the old state as the candidate reads it, W_hn h_{t-1}
    n = np.tanh(W_x[2 * H : 3 * H, x_t] + r * m + b[2 * H : 3 * H])  # candidate: r scales m after the product
    h = z * h_prev + (1 - z) * n
    return h, {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "m": m}
""",
    "gru.step_backward": """
def gru_step_backward(params, dh_t, cache):
    r, z, n, m, h_prev = (cache[name] for name in ("r", "z", "n", "m", "h_prev"))
    dn = dh_t * (1 - z)  # back through h_t = z * h_{t-1} + (1 - z) * n ...
    dz = dh_t * (h_prev - n)  # ... to n and to z
    da_n = dn * (1 - n**2)  # back through the candidate's tanh
    dm, dr = da_n * r, da_n * m  # back through r * m
    da_r, da_z = dr * r * (1 - r), dz * z * (1 - z)  # back through the gates' sigmoids
    da_x = np.concatenate([da_r, da_z, da_n])  # what reaches W_x x_t + b, stacked r, z, n
    da_h = np.concatenate([da_r, da_z, dm])  # what reaches W_h h_{t-1}
    dW_x = np.zeros_like(params["W_x"])
    dW_x[:, cache["x"]] = da_x  # only column x_t
    grads = {"W_x": dW_x, "W_h": np.outer(da_h, h_prev), "b": da_x}
    dh_prev = dh_t * z + params["W_h"].T @ da_h  # the direct path, and through all three blocks
    return dh_prev, grads
""",
}
