"""Train an MLP on scikit-learn's bundled digits data set (no network needed).

Run:  python examples/train_digits.py            (about 10 s on a laptop)
      MINIGRAD_TRACE=run.jsonl python examples/train_digits.py --epochs 1   (records everything)

Reaches >= 95% test accuracy with mg.nn and mg.optim.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import minigrad as mg


def make_model() -> mg.nn.Module:
    return mg.nn.Sequential(
        mg.nn.Linear(64, 128),
        mg.nn.ReLU(),
        mg.nn.Linear(128, 128),
        mg.nn.ReLU(),
        mg.nn.Linear(128, 10),
    )


def load(seed: int = 0):
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.25, random_state=seed, stratify=y)


def accuracy(model: mg.nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    with mg.no_grad():
        logits = model(mg.tensor(x))
    return float((logits.numpy().argmax(axis=1) == y).mean())


def train(epochs: int = 20, batch_size: int = 64, lr: float = 1e-3, seed: int = 0, verbose: bool = True) -> float:
    mg.manual_seed(seed)
    x_train, x_test, y_train, y_test = load(seed)
    model = make_model()
    opt = mg.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        total = 0.0
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            xb, yb = mg.tensor(x_train[idx]), mg.tensor(y_train[idx])
            loss = mg.nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if verbose:
            print(f"epoch {epoch + 1:2d}  loss {total / len(x_train):.4f}  test acc {accuracy(model, x_test, y_test):.3f}")
    return accuracy(model, x_test, y_test)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    acc = train(args.epochs, lr=args.lr, seed=args.seed)
    print(f"final test accuracy: {acc:.3f}")


if __name__ == "__main__":
    main()
