"""Train a small CNN on scikit-learn's digits with xjit.grad, next to JAX.

The model is written once against a JAX-like module (`xjit` or `jax`):
conv 3x3 (16) + ReLU + 2x2 max pool, conv 3x3 (32) + ReLU + 2x2 max pool,
dense 128 -> 10, softmax cross-entropy, plain SGD with the gradient from
`grad`. After training, `vmap(grad)` gives every test example's own
gradient, whose norms are printed. With JAX installed the same model, init
(the same threefry keys), data and batch order train with JAX in the same
process, and both step times are printed.

    python examples/cnn_digits.py
"""
import time

import numpy as np

LEARNING_RATE = 0.1
BATCH = 64
EPOCHS = 12


def load_data():
    """(x_train, x_test, y_train, y_test): 8x8x1 images in [0, 1], int32 labels."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32).reshape(-1, 8, 8, 1)
    y = digits.target.astype(np.int32)
    return train_test_split(x, y, test_size=0.25, random_state=0)


class Model:
    """The CNN and its training functions for the JAX-like module `jx`."""

    def __init__(self, jx):
        self.jx = jx
        self.step = jx.jit(self._step)
        self.per_example_grad_norms = jx.jit(self._per_example_grad_norms)
        self.predict = jx.jit(lambda params, x: self.jx.numpy.argmax(self.logits(params, x), 1))

    def init(self, seed=0):
        jx = self.jx
        k1, k2, k3 = jx.random.split(jx.random.PRNGKey(seed), 3)

        def he(key, shape, fan_in):
            return jx.random.normal(key, shape, np.float32) * np.float32(np.sqrt(2.0 / fan_in))

        zeros = lambda n: jx.numpy.zeros(n, np.float32)
        return {"conv1": (he(k1, (3, 3, 1, 16), 9), zeros(16)),
                "conv2": (he(k2, (3, 3, 16, 32), 144), zeros(32)),
                "dense": (he(k3, (128, 10), 128), zeros(10))}

    def logits(self, params, x):
        lax, relu = self.jx.lax, self.jx.nn.relu

        def conv(h, w, b):
            return lax.conv_general_dilated(h, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC")) + b

        def pool(h):
            return lax.reduce_window(h, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

        h = pool(relu(conv(x, *params["conv1"])))   # [n, 4, 4, 16]
        h = pool(relu(conv(h, *params["conv2"])))   # [n, 2, 2, 32]
        w, b = params["dense"]
        return h.reshape(h.shape[0], -1) @ w + b

    def loss(self, params, x, y):
        jnp, nn = self.jx.numpy, self.jx.nn
        logp = nn.log_softmax(self.logits(params, x))
        return -jnp.mean(jnp.sum(logp * nn.one_hot(y, 10), axis=1))

    def _step(self, params, x, y):
        loss, grads = self.jx.value_and_grad(self.loss)(params, x, y)
        new = self.jx.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads)
        return new, loss

    def _per_example_grad_norms(self, params, x, y):
        """The gradient norm of each example's own loss: vmap of grad over the batch."""
        jnp = self.jx.numpy
        one = lambda p, xi, yi: self.loss(p, xi[None], yi[None])
        grads = self.jx.vmap(self.jx.grad(one), in_axes=(None, 0, 0))(params, x, y)
        squares = [jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1)
                   for g in self.jx.tree_util.tree_leaves(grads)]
        return jnp.sqrt(sum(squares))


def train(model, x_train, y_train, epochs=EPOCHS, seed=0, max_steps=None):
    """Trains from `model.init(seed)`; returns (params, losses, median step seconds)."""
    jx = model.jx
    params = model.init(seed)
    order = np.random.default_rng(seed)
    n_batches = len(x_train) // BATCH
    losses, times = [], []
    warm = False
    for _ in range(epochs):
        perm = order.permutation(len(x_train))
        for i in range(n_batches):
            idx = perm[i * BATCH:(i + 1) * BATCH]
            xb, yb = jx.device_put(x_train[idx]), jx.device_put(y_train[idx])
            if not warm:  # compile outside the timing
                jx.block_until_ready(model.step(params, xb, yb))
                warm = True
            t0 = time.perf_counter()
            params, loss = model.step(params, xb, yb)
            loss.block_until_ready()
            times.append(time.perf_counter() - t0)
            losses.append(float(loss))
            if max_steps is not None and len(losses) >= max_steps:
                return params, losses, float(np.median(times))
    return params, losses, float(np.median(times))


def run(jx, data):
    x_train, x_test, y_train, y_test = data
    model = Model(jx)
    params, losses, step_time = train(model, x_train, y_train)
    accuracy = float(np.mean(np.asarray(model.predict(params, x_test)) == y_test))
    norms = np.asarray(model.per_example_grad_norms(params, x_test, y_test))
    return losses[-1], accuracy, step_time, norms


def main():
    import xjit
    data = load_data()
    results = {"xjit": run(xjit, data)}
    try:
        import jax
    except ImportError:
        jax = None
    if jax is not None:
        results["jax"] = run(jax, data)
    print(f"digits: {len(data[0])} train / {len(data[1])} test images, CNN conv16-pool-conv32-"
          f"pool-dense10, {EPOCHS} epochs of batch {BATCH}, SGD {LEARNING_RATE}")
    print(f"{'':6s} {'final loss':>10s} {'test acc':>9s} {'step time':>10s} "
          f"{'per-example grad norm (median / max)':>38s}")
    for name, (loss, acc, t, norms) in results.items():
        print(f"{name:6s} {loss:10.4f} {acc:9.3f} {t * 1e6:8.0f}us "
              f"{np.median(norms):18.4f} / {norms.max():.4f}")
    if jax is not None:
        print(f"xjit step time / jax step time: {results['xjit'][2] / results['jax'][2]:.2f}x")


if __name__ == "__main__":
    main()
