import math

import torch

# The first lecture of a "from zero" course, in our own words: a scalar Value with an autograd graph,
# a neuron built from it, and the same neuron written with tensors to check the gradients.
# tests/test_parity_programs.py runs it under PyTorch and under minigrad (only the import line changes).


class Value:
    """A scalar that remembers how it was computed, so it can pass gradients back to its inputs."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float))
        out = Value(self.data ** other, (self,), f"**{other}")

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad
        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def __radd__(self, other):
        return self + other

    def __truediv__(self, other):
        return self * other ** -1

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def tanh(self):
        t = (math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


def neuron_with_values(x1, x2, w1, w2, b):
    """o = tanh(x1*w1 + x2*w2 + b), tanh spelled out with exp as the lecture does the second time."""
    x1, x2, w1, w2, b = Value(x1), Value(x2), Value(w1), Value(w2), Value(b)
    n = x1 * w1 + x2 * w2 + b
    e = (2 * n).exp()
    o = (e - 1) / (e + 1)
    o.backward()
    return o.data, [v.grad for v in (x1, x2, w1, w2, b)]


def neuron_with_tensors(x1, x2, w1, w2, b):
    """The same neuron with one-element tensors, as the lecture checks it against the framework."""
    x1 = torch.Tensor([x1]).double(); x1.requires_grad = True
    x2 = torch.Tensor([x2]).double(); x2.requires_grad = True
    w1 = torch.Tensor([w1]).double(); w1.requires_grad = True
    w2 = torch.Tensor([w2]).double(); w2.requires_grad = True
    b = torch.Tensor([b]).double(); b.requires_grad = True
    n = x1 * w1 + x2 * w2 + b
    o = torch.tanh(n)
    o.backward()
    return o.data.item(), [t.grad.item() for t in (x1, x2, w1, w2, b)]


class Neuron:
    def __init__(self, weights, bias):
        self.w = [Value(w) for w in weights]
        self.b = Value(bias)

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh()

    def parameters(self):
        return self.w + [self.b]


class MLP:
    """A multi-layer perceptron of Values, its weights given (so a tensor twin can use the same)."""

    def __init__(self, layers):
        self.layers = [[Neuron(w, b) for w, b in zip(W, B)] for W, B in layers]

    def __call__(self, x):
        for layer in self.layers:
            x = [n(x) for n in layer]
        return x[0] if len(x) == 1 else x

    def parameters(self):
        return [p for layer in self.layers for n in layer for p in n.parameters()]


def train_values(layers, xs, ys, steps=5, lr=0.05):
    model = MLP(layers)
    losses = []
    for _ in range(steps):
        ypred = [model(x) for x in xs]
        loss = sum(((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred)), Value(0.0))
        for p in model.parameters():
            p.grad = 0.0
        loss.backward()
        for p in model.parameters():
            p.data += -lr * p.grad
        losses.append(loss.data)
    return losses


def train_tensors(layers, xs, ys, steps=5, lr=0.05):
    """The same network as matrices: h = tanh(x @ W.T + b) per layer, squared error summed."""
    params = []
    for W, B in layers:
        params += [torch.tensor(W, dtype=torch.float64, requires_grad=True),
                   torch.tensor(B, dtype=torch.float64, requires_grad=True)]
    X = torch.tensor(xs, dtype=torch.float64)
    Y = torch.tensor(ys, dtype=torch.float64)
    losses = []
    for _ in range(steps):
        h = X
        for W, b in zip(params[::2], params[1::2]):
            h = torch.tanh(h @ W.T + b)
        loss = ((h.squeeze(1) - Y) ** 2).sum()
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        losses.append(loss.item())
    return losses
