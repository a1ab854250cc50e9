"""A convolutional classifier for 8x8 digit images, with its own train/test loops over a DataLoader.

The shape of PyTorch's MNIST example, small enough to train in seconds on scikit-learn's
bundled digits (no download): two ``Conv2d`` layers, ``max_pool2d``, ``Dropout``,
``flatten``, ``log_softmax`` with ``nll_loss``; ``DataLoader(TensorDataset(...),
shuffle=True)`` for the batches, ``Adadelta`` with a ``StepLR`` schedule, and a ``test``
loop under ``no_grad`` that counts correct predictions with ``argmax``/``eq``/``view_as``.

Run it::

    python examples/cnn.py                   # 3 epochs, about 90% test accuracy, some seconds
    python examples/cnn.py --epochs 1 --steps 5
    python examples/cnn.py --device cuda     # on a GPU (each batch copied there, as PyTorch's example does)
    minigrad-tui examples/cnn.py --steps 1   # step through one training step's backward pass

Only the import lines name minigrad; with ``torch`` in their place the file runs on PyTorch.
"""

from __future__ import annotations

import argparse
from typing import Sequence

import numpy as np

import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.optim.lr_scheduler import StepLR
from minigrad.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)   # 8x8 -> 6x6
        self.conv2 = nn.Conv2d(8, 16, 3, 1)  # 6x6 -> 4x4, pooled to 2x2
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(16 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = self.dropout1(F.max_pool2d(x, 2))
        x = torch.flatten(x, 1)
        x = self.dropout2(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


def train(model, loader, optimizer, epoch: int, max_steps: int | None = None, verbose: bool = True,
          device: str = "cpu") -> list[float]:
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(loader):
        if max_steps is not None and batch_idx >= max_steps:
            break
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose and batch_idx % 10 == 0:
            print(f"epoch {epoch} [{batch_idx * len(data):4d}/{len(loader.dataset)}]  loss {loss.item():.4f}")
    return losses


def test(model, loader, verbose: bool = True, device: str = "cpu") -> float:
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    n = len(loader.dataset)
    if verbose:
        print(f"test: average loss {test_loss / n:.4f}, accuracy {correct}/{n} ({100.0 * correct / n:.1f}%)")
    return correct / n


def load_digits(seed: int = 0):
    """scikit-learn's 1797 digit images (8x8, values 0..16), scaled to [0, 1] and split 3:1."""
    from sklearn.datasets import load_digits as sk_digits

    digits = sk_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    cut = len(y) * 3 // 4
    return (x[order[:cut]], y[order[:cut]]), (x[order[cut:]], y[order[cut:]])


def run(epochs: int = 3, steps: int | None = None, batch_size: int = 16, lr: float = 1.0, seed: int = 0,
        verbose: bool = True, device: str = "cpu") -> tuple[list[float], float]:
    """Train and test; returns the training losses and the final test accuracy."""
    torch.manual_seed(seed)
    (xtr, ytr), (xte, yte) = load_digits(seed)
    train_loader = DataLoader(TensorDataset(torch.tensor(xtr), torch.tensor(ytr)), batch_size=batch_size,
                              shuffle=True, generator=torch.Generator().manual_seed(seed))
    test_loader = DataLoader(TensorDataset(torch.tensor(xte), torch.tensor(yte)), batch_size=256)
    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=lr)  # on a GPU its foreach form: a few launches a step
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    losses, accuracy = [], 0.0
    for epoch in range(1, epochs + 1):
        losses += train(model, train_loader, optimizer, epoch, steps, verbose, device)
        accuracy = test(model, test_loader, verbose, device)
        scheduler.step()
    return losses, accuracy


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None, help="stop each epoch after this many batches")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help='"cuda" to train on the GPU')
    a = parser.parse_args(argv)
    run(a.epochs, a.steps, a.batch_size, a.lr, a.seed, device=a.device)


if __name__ == "__main__":
    main()
