"""Train a small MLP on scikit-learn's digits with xjit.jit, next to numpy.

The same numpy-style training step runs twice: once with numpy, once with
xjit.numpy under xjit.jit. Gradients are written out by hand (backprop for a
two-layer network) so both sides compute exactly the same thing.

    python examples/mlp_digits.py
"""
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import xjit
import xjit.numpy as jnp

HIDDEN = 128
LEARNING_RATE = 0.1
BATCH = 128
EPOCHS = 30


def make_step(xp):
    """A full SGD step (forward, softmax cross-entropy, backward, update) for numpy module `xp`."""

    def step(params, x, y_onehot):
        w1, b1, w2, b2 = params
        h_pre = x @ w1 + b1
        h = xp.maximum(h_pre, 0.0)
        logits = h @ w2 + b2
        logits = logits - xp.max(logits, axis=1, keepdims=True)
        e = xp.exp(logits)
        probs = e / xp.sum(e, axis=1, keepdims=True)
        n = x.shape[0]
        loss = -xp.sum(y_onehot * xp.log(probs + 1e-9)) / n
        d_logits = (probs - y_onehot) / n
        d_w2 = h.T @ d_logits
        d_b2 = xp.sum(d_logits, axis=0)
        d_h = (d_logits @ w2.T) * (h_pre > 0)
        d_w1 = x.T @ d_h
        d_b1 = xp.sum(d_h, axis=0)
        new = (w1 - LEARNING_RATE * d_w1, b1 - LEARNING_RATE * d_b1,
               w2 - LEARNING_RATE * d_w2, b2 - LEARNING_RATE * d_b2)
        return new, loss

    return step


def predict(xp, params, x):
    w1, b1, w2, b2 = params
    h = xp.maximum(x @ w1 + b1, 0.0)
    return xp.argmax(h @ w2 + b2, axis=1)


def init_params(rng, n_in, n_out):
    w1 = (rng.standard_normal((n_in, HIDDEN)) * np.sqrt(2.0 / n_in)).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, n_out)) * np.sqrt(2.0 / HIDDEN)).astype(np.float32)
    return (w1, np.zeros(HIDDEN, np.float32), w2, np.zeros(n_out, np.float32))


def train(step, params, x_train, y_train, to_device, sync):
    n_batches = len(x_train) // BATCH
    batches = [(to_device(x_train[i * BATCH:(i + 1) * BATCH]),
                to_device(y_train[i * BATCH:(i + 1) * BATCH])) for i in range(n_batches)]
    params, _ = step(params, *batches[0])  # warm-up (compiles once for xjit)
    sync(params)
    step_times = []
    loss = None
    for _ in range(EPOCHS):
        for xb, yb in batches:
            t0 = time.perf_counter()
            params, loss = step(params, xb, yb)
            sync(loss)
            step_times.append(time.perf_counter() - t0)
    return params, float(loss), float(np.median(step_times))


def main():
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[digits.target]
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=0)
    params0 = init_params(np.random.default_rng(0), x.shape[1], 10)

    np_params, np_loss, np_time = train(make_step(np), params0, x_train, y_train,
                                        to_device=lambda a: a, sync=lambda a: None)
    np_acc = float(np.mean(predict(np, np_params, x_test) == y_test.argmax(1)))

    # numpy's bundled OpenBLAS keeps its worker threads spinning for a while
    # after its last matmul; on a machine of few cores they would take the
    # cores xjit's step runs on (a 64-128-10 step: ~41us alone, ~470us next to
    # them). Let them park first, so each side is timed on its own.
    time.sleep(1.0)
    xj_step = xjit.jit(make_step(jnp))
    xj_params, xj_loss, xj_time = train(
        xj_step, tuple(xjit.device_put(p) for p in params0), x_train, y_train,
        to_device=xjit.device_put, sync=lambda a: xjit.tree_util.tree_map(
            lambda l: l.block_until_ready(), a))
    xj_acc = float(np.mean(np.asarray(predict(jnp, xj_params, jnp.asarray(x_test)))
                           == y_test.argmax(1)))

    print(f"digits: {len(x_train)} train / {len(x_test)} test images, MLP 64-{HIDDEN}-10, "
          f"{EPOCHS} epochs of batch {BATCH}")
    print(f"{'':8s} {'final loss':>10s} {'test acc':>9s} {'step time':>11s}")
    print(f"{'numpy':8s} {np_loss:10.4f} {np_acc:9.3f} {np_time * 1e6:9.1f}us")
    print(f"{'xjit':8s} {xj_loss:10.4f} {xj_acc:9.3f} {xj_time * 1e6:9.1f}us")
    print(f"xjit step time / numpy step time: {xj_time / np_time:.2f}x")


if __name__ == "__main__":
    main()
