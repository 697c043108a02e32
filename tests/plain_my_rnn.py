"""A complete my_rnn.py as a reader who finished every exercise might write it: plain loops, one sequence.

Written for the tests of ``rnn_core.course.yours`` (check_all, train_yours) and for
benchmarks/train_yours.py, independently of rnn_core (nothing here imports it) and of the reference
solutions. The names are the ones my_rnn.py uses: an exercise's name, with the dot of
"lstm.step_forward" written as an underscore. As in my_rnn.py, the functions call each other by
their module-level names: loss_and_grads is built from step_forward, softmax, cross_entropy_grad
and step_backward.
"""

import numpy as np


def one_hot(y, num_classes):
    if np.ndim(y) == 0:  # one index: one vector
        vector = np.zeros(num_classes)
        vector[y] = 1.0
        return vector
    y = np.asarray(y)
    rows = np.zeros((y.shape[0], num_classes))
    for row, index in enumerate(y):
        rows[row, index] = 1.0
    return rows


def softmax(o):
    o = np.asarray(o, dtype=float)
    shifted = o - o.max()  # exp of a number <= 0 never overflows
    e = np.exp(shifted)
    return e / np.sum(e)


def softmax_jacobian(y_hat):
    y_hat = np.asarray(y_hat, dtype=float)
    V = y_hat.shape[0]
    J = np.empty((V, V))
    for i in range(V):
        for k in range(V):
            J[i, k] = y_hat[i] * ((1.0 if i == k else 0.0) - y_hat[k])
    return J


def cross_entropy_grad(o, y):
    do = softmax(o)
    do[y] = do[y] - 1.0
    return do


def step_forward(params, x_t, h_prev):
    a = params["W_hh"] @ h_prev + params["b_h"]
    a = a + params["W_xh"][:, x_t]  # W_xh times a one-hot column
    return np.tanh(a)


def step_backward(params, dh_t, h_t, h_prev, x_t):
    delta = (1.0 - h_t * h_t) * dh_t
    dW_xh = np.zeros_like(params["W_xh"])
    dW_xh[:, x_t] = delta
    grads = {"W_xh": dW_xh, "W_hh": np.outer(delta, h_prev), "b_h": delta.copy()}
    return params["W_hh"].T @ delta, grads


def loss_and_grads(params, inputs, targets, h0):
    T = len(inputs)
    hs = [h0]
    y_hats = []
    loss = 0.0
    for t in range(T):
        h = step_forward(params, inputs[t], hs[-1])
        hs.append(h)
        y_hat = softmax(params["W_yh"] @ h + params["b_o"])
        y_hats.append(y_hat)
        loss = loss - np.log(y_hat[targets[t]])
    grads = {name: np.zeros_like(array) for name, array in params.items()}
    dh_later = np.zeros_like(h0)  # from h_{t+1} into h_t; nothing after the last step
    for t in reversed(range(T)):
        do = y_hats[t].copy()
        do[targets[t]] -= 1.0
        grads["W_yh"] += np.outer(do, hs[t + 1])
        grads["b_o"] += do
        dh = params["W_yh"].T @ do + dh_later
        dh_later, step = step_backward(params, dh, hs[t + 1], hs[t], inputs[t])
        for name in step:
            grads[name] += step[name]
    return float(loss), grads, hs[-1], dh_later


def global_norm(grads):
    total = 0.0
    for g in grads.values():
        total += float(np.sum(g * g))
    return float(np.sqrt(total))


def clip_global_norm(grads, max_norm):
    norm = global_norm(grads)
    factor = 1.0
    if norm > max_norm:
        factor = max_norm / norm
    return {name: factor * g for name, g in grads.items()}, norm


def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    t = state["t"] + 1
    new_params, m, v = {}, {}, {}
    for name in params:
        g = grads[name]
        m[name] = beta1 * state["m"][name] + (1.0 - beta1) * g
        v[name] = beta2 * state["v"][name] + (1.0 - beta2) * g * g
        m_hat = m[name] / (1.0 - beta1**t)
        v_hat = v[name] / (1.0 - beta2**t)
        new_params[name] = params[name] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_params, {"t": t, "m": m, "v": v}


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def lstm_step_forward(params, x_t, h_prev, c_prev):
    H = h_prev.shape[0]
    a = params["W_h"] @ h_prev + params["b"] + params["W_x"][:, x_t]
    i = sigmoid(a[:H])
    f = sigmoid(a[H : 2 * H])
    g = np.tanh(a[2 * H : 3 * H])
    q = sigmoid(a[3 * H :])  # the output gate
    c = f * c_prev + i * g
    h = q * np.tanh(c)
    return h, c, {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, "i": i, "f": f, "g": g, "q": q, "c": c}


def lstm_step_backward(params, dh_t, dc_t, cache):
    i, f, g, q, c = cache["i"], cache["f"], cache["g"], cache["q"], cache["c"]
    dc = dc_t + dh_t * q * (1.0 - np.tanh(c) ** 2)
    da = np.concatenate(
        [
            dc * g * i * (1.0 - i),
            dc * cache["c_prev"] * f * (1.0 - f),
            dc * i * (1.0 - g * g),
            dh_t * np.tanh(c) * q * (1.0 - q),
        ]
    )
    dW_x = np.zeros_like(params["W_x"])
    dW_x[:, cache["x"]] = da
    grads = {"W_x": dW_x, "W_h": np.outer(da, cache["h_prev"]), "b": da}
    return params["W_h"].T @ da, f * dc, grads


def gru_step_forward(params, x_t, h_prev):
    H = h_prev.shape[0]
    W_x, W_h, b = params["W_x"], params["W_h"], params["b"]
    r = sigmoid(W_x[:H, x_t] + W_h[:H] @ h_prev + b[:H])
    z = sigmoid(W_x[H : 2 * H, x_t] + W_h[H : 2 * H] @ h_prev + b[H : 2 * H])
    h_bar = W_h[2 * H :] @ h_prev
    n = np.tanh(W_x[2 * H :, x_t] + b[2 * H :] + r * h_bar)
    h = (1.0 - z) * n + z * h_prev
    return h, {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "h_bar": h_bar}


def gru_step_backward(params, dh_t, cache):
    r, z, n, h_bar, h_prev = cache["r"], cache["z"], cache["n"], cache["h_bar"], cache["h_prev"]
    da_n = dh_t * (1.0 - z) * (1.0 - n * n)
    da_z = dh_t * (h_prev - n) * z * (1.0 - z)
    da_r = da_n * h_bar * r * (1.0 - r)
    to_x = np.concatenate([da_r, da_z, da_n])
    to_h = np.concatenate([da_r, da_z, da_n * r])
    dW_x = np.zeros_like(params["W_x"])
    dW_x[:, cache["x"]] = to_x
    grads = {"W_x": dW_x, "W_h": np.outer(to_h, h_prev), "b": to_x}
    return z * dh_t + params["W_h"].T @ to_h, grads


def dropout_backward(d_out, keep, rate):
    d_h = np.zeros_like(d_out, dtype=float)
    scale = 1.0 / (1.0 - rate)  # what the forward pass multiplied a kept unit by
    for index in np.ndindex(d_out.shape):
        if keep[index]:
            d_h[index] = d_out[index] * scale
    return d_h


def seq2seq_masked_loss_and_grad(o, y, lengths):
    B, T, V = o.shape
    N = int(np.sum(lengths))
    loss, do = 0.0, np.zeros(o.shape)
    for b in range(B):
        for t in range(int(lengths[b])):
            y_hat = np.exp(o[b, t] - o[b, t].max())
            y_hat = y_hat / y_hat.sum()
            loss += -np.log(y_hat[y[b, t]]) / N
            do[b, t] = y_hat / N
            do[b, t, y[b, t]] -= 1.0 / N
    return loss, do


def seq2seq_beam_step(log_p, log_probs, beam_size):
    K, V = log_probs.shape
    flat = [(log_p[k] + log_probs[k, v], k, v) for k in range(K) for v in range(V)]
    order = sorted(range(len(flat)), key=lambda i: -flat[i][0])  # sorted() is stable
    kept = [flat[i] for i in order[:beam_size]]
    return np.array([k for _, k, _ in kept]), np.array([v for _, _, v in kept]), np.array([s for s, _, _ in kept])


def attention_forward(h, u, mask):
    B, S, H = u.shape
    alpha, context = np.zeros((B, S)), np.zeros((B, H))
    for b in range(B):
        scores = np.full(S, -np.inf)
        for s in range(S):
            if mask[b, s]:
                scores[s] = h[b] @ u[b, s]
        weights = np.exp(scores - scores.max())  # exp(-inf) = 0 at the pads
        alpha[b] = weights / weights.sum()
        for s in range(S):
            context[b] += alpha[b, s] * u[b, s]
    return alpha, context


def attention_backward(dcontext, h, u, alpha):
    B, S, H = u.shape
    dh, du = np.zeros((B, H)), np.zeros((B, S, H))
    for b in range(B):
        dalpha = np.array([dcontext[b] @ u[b, s] for s in range(S)])
        dscores = alpha[b] * (dalpha - alpha[b] @ dalpha)
        for s in range(S):
            dh[b] += dscores[s] * u[b, s]
            du[b, s] = alpha[b, s] * dcontext[b] + dscores[s] * h[b]
    return dh, du
