"""Each cell written out plainly, as independent references for the tests: one sequence, one step at a
time, column vectors, one-hot inputs, the exp-based sigmoid; forward and backward, nothing shared with
rnn_core. Each returns (loss, grads, the last state, the starting state's gradient), the states as
{name: array}.
"""

import numpy as np


def rnn_reference(params, inputs, targets, h0):
    """The vanilla RNN written out plainly, forward and backward, for one sequence."""
    W_xh, W_hh, W_yh, b_h, b_o = (params[k] for k in ("W_xh", "W_hh", "W_yh", "b_h", "b_o"))
    V = W_xh.shape[1]
    steps, h, loss = [], h0[:, None], 0.0
    for x_t, y_t in zip(inputs, targets):
        x = np.zeros((V, 1))
        x[x_t] = 1.0
        h_new = np.tanh(W_hh @ h + W_xh @ x + b_h[:, None])
        z = W_yh @ h_new + b_o[:, None]
        p = np.exp(z - z.max())
        p /= p.sum()
        loss -= np.log(p[y_t, 0])
        steps.append(dict(x=x, y=y_t, h_prev=h, h=h_new, p=p))
        h = h_new
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    dh_next = np.zeros_like(h)
    for s in reversed(steps):
        dz = s["p"].copy()
        dz[s["y"]] -= 1.0
        grads["W_yh"] += dz @ s["h"].T
        grads["b_o"] += dz[:, 0]
        da = (W_yh.T @ dz + dh_next) * (1.0 - s["h"] ** 2)
        grads["W_xh"] += da @ s["x"].T
        grads["W_hh"] += da @ s["h_prev"].T
        grads["b_h"] += da[:, 0]
        dh_next = W_hh.T @ da
    return loss, grads, {"h": h[:, 0]}, {"h": dh_next[:, 0]}


def lstm_reference(params, inputs, targets, h0, c0):
    """The LSTM written out plainly (exp-based sigmoid, one-hot columns), forward and backward.

    Returns (loss, grads, {"h": h_T, "c": c_T}, {"h": dh0, "c": dc0}) for one sequence.
    """
    W_x, W_h, b, W_yh, b_o = (params[k] for k in ("W_x", "W_h", "b", "W_yh", "b_o"))
    H, V = W_h.shape[1], W_x.shape[1]

    def sig(z):
        return 1.0 / (1.0 + np.exp(-z))

    steps = []
    h, c, loss = h0[:, None], c0[:, None], 0.0
    for x_t, y_t in zip(inputs, targets):
        x = np.zeros((V, 1))
        x[x_t] = 1.0
        a = W_x @ x + W_h @ h + b[:, None]
        i, f, g, q = sig(a[:H]), sig(a[H : 2 * H]), np.tanh(a[2 * H : 3 * H]), sig(a[3 * H :])
        c_new = f * c + i * g
        h_new = q * np.tanh(c_new)
        z = W_yh @ h_new + b_o[:, None]
        p = np.exp(z - z.max())
        p /= p.sum()
        loss -= np.log(p[y_t, 0])
        steps.append(dict(x=x, y=y_t, h_prev=h, c_prev=c, i=i, f=f, g=g, q=q, c=c_new, h=h_new, p=p))
        h, c = h_new, c_new
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    dh_next, dc_next = np.zeros((H, 1)), np.zeros((H, 1))
    for s in reversed(steps):
        dz = s["p"].copy()
        dz[s["y"]] -= 1.0
        grads["W_yh"] += dz @ s["h"].T
        grads["b_o"] += dz[:, 0]
        dh = W_yh.T @ dz + dh_next
        tc = np.tanh(s["c"])
        dc = dc_next + dh * s["q"] * (1.0 - tc**2)
        da = np.vstack(
            [
                dc * s["g"] * s["i"] * (1.0 - s["i"]),
                dc * s["c_prev"] * s["f"] * (1.0 - s["f"]),
                dc * s["i"] * (1.0 - s["g"] ** 2),
                dh * tc * s["q"] * (1.0 - s["q"]),
            ]
        )
        grads["W_x"] += da @ s["x"].T
        grads["W_h"] += da @ s["h_prev"].T
        grads["b"] += da[:, 0]
        dh_next, dc_next = W_h.T @ da, dc * s["f"]
    return loss, grads, {"h": h[:, 0], "c": c[:, 0]}, {"h": dh_next[:, 0], "c": dc_next[:, 0]}


def gru_reference(params, inputs, targets, h0):
    """The GRU written out plainly (exp-based sigmoid, one-hot columns, each gate's blocks by name),
    forward and backward. Returns (loss, grads, {"h": h_T}, {"h": dh0}) for one sequence."""
    H, V = params["W_h"].shape[1], params["W_x"].shape[1]
    blocks = {}
    for k, gate in enumerate("rzn"):
        rows = slice(k * H, (k + 1) * H)
        blocks[f"W_x{gate}"], blocks[f"W_h{gate}"] = params["W_x"][rows], params["W_h"][rows]
        blocks[f"b_{gate}"] = params["b"][rows, None]
    W_yh, b_o = params["W_yh"], params["b_o"][:, None]

    def sig(a):
        return 1.0 / (1.0 + np.exp(-a))

    steps, h, loss = [], h0[:, None], 0.0
    for x_t, y_t in zip(inputs, targets):
        x = np.zeros((V, 1))
        x[x_t] = 1.0
        r = sig(blocks["W_xr"] @ x + blocks["W_hr"] @ h + blocks["b_r"])
        z = sig(blocks["W_xz"] @ x + blocks["W_hz"] @ h + blocks["b_z"])
        m = blocks["W_hn"] @ h
        n = np.tanh(blocks["W_xn"] @ x + r * m + blocks["b_n"])
        h_new = z * h + (1 - z) * n
        logits = W_yh @ h_new + b_o
        p = np.exp(logits - logits.max())
        p /= p.sum()
        loss -= np.log(p[y_t, 0])
        steps.append(dict(x=x, y=y_t, h_prev=h, r=r, z=z, m=m, n=n, h=h_new, p=p))
        h = h_new
    g = {k: np.zeros_like(v) for k, v in blocks.items()}
    dW_yh, db_o, dh_next = np.zeros_like(W_yh), np.zeros(len(b_o)), np.zeros((H, 1))
    for s in reversed(steps):
        dlogits = s["p"].copy()
        dlogits[s["y"]] -= 1.0
        dW_yh += dlogits @ s["h"].T
        db_o += dlogits[:, 0]
        dh = W_yh.T @ dlogits + dh_next
        dn, dz = dh * (1 - s["z"]), dh * (s["h_prev"] - s["n"])
        da_n = dn * (1 - s["n"] ** 2)
        da_r = da_n * s["m"] * s["r"] * (1 - s["r"])
        da_z = dz * s["z"] * (1 - s["z"])
        for gate, da in (("r", da_r), ("z", da_z), ("n", da_n)):
            g[f"W_x{gate}"] += da @ s["x"].T
            g[f"b_{gate}"] += da
        g["W_hr"] += da_r @ s["h_prev"].T
        g["W_hz"] += da_z @ s["h_prev"].T
        g["W_hn"] += (da_n * s["r"]) @ s["h_prev"].T
        dh_next = dh * s["z"] + blocks["W_hr"].T @ da_r + blocks["W_hz"].T @ da_z + blocks["W_hn"].T @ (da_n * s["r"])
    grads = {
        "W_x": np.vstack([g["W_xr"], g["W_xz"], g["W_xn"]]),
        "W_h": np.vstack([g["W_hr"], g["W_hz"], g["W_hn"]]),
        "b": np.vstack([g["b_r"], g["b_z"], g["b_n"]])[:, 0],
        "W_yh": dW_yh,
        "b_o": db_o,
    }
    return loss, grads, {"h": h[:, 0]}, {"h": dh_next[:, 0]}
