"""A variational autoencoder on 8x8 digit images: encode to a Gaussian, sample, decode.

The shape of PyTorch's VAE example at a size that trains in seconds on scikit-learn's
bundled digits: an encoder gives the mean and log-variance of q(z|x); the
**reparameterisation** ``z = mu + eps * exp(logvar / 2)`` with ``eps = randn_like(std)``
keeps the sample differentiable in ``mu`` and ``logvar``; a sigmoid decoder; the loss is
``F.binary_cross_entropy`` (reconstruction) plus the closed-form KL divergence to N(0, I).
The batches come from a shuffled ``DataLoader``.

Run it::

    python examples/vae.py                   # 5 epochs, some seconds
    python examples/vae.py --epochs 2
    minigrad-tui examples/vae.py --steps 1   # one step's backward pass through the sample

Only the import lines name minigrad; with ``torch`` in their place the file runs on PyTorch.
"""

from __future__ import annotations

import argparse
from typing import Sequence

import numpy as np

import minigrad as torch
from minigrad import nn, optim
from minigrad.nn import functional as F
from minigrad.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, d_in: int = 64, d_hidden: int = 64, d_z: int = 4) -> None:
        super().__init__()
        self.d_in = d_in
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc21 = nn.Linear(d_hidden, d_z)  # mean of q(z|x)
        self.fc22 = nn.Linear(d_hidden, d_z)  # log-variance of q(z|x)
        self.fc3 = nn.Linear(d_z, d_hidden)
        self.fc4 = nn.Linear(d_hidden, d_in)

    def encode(self, x):
        h = F.relu(self.fc1(x))
        return self.fc21(h), self.fc22(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)  # the randomness is an input: no gradient flows into it
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, self.d_in))
        return self.decode(self.reparameterize(mu, logvar)), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    """Reconstruction (binary cross-entropy) + KL(q(z|x) || N(0, I)), summed over the batch."""
    bce = F.binary_cross_entropy(recon_x, x.view(-1, recon_x.size(-1)), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def load_digits() -> np.ndarray:
    from sklearn.datasets import load_digits as sk_digits

    return (sk_digits().data / 16.0).astype(np.float32)


def train(epochs: int = 5, steps: int | None = None, batch_size: int = 64, lr: float = 3e-3, seed: int = 0,
          verbose: bool = True) -> list[float]:
    """Train; returns the average loss per image of each epoch."""
    torch.manual_seed(seed)
    images = torch.tensor(load_digits())
    loader = DataLoader(TensorDataset(images), batch_size=batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(seed))
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=lr)
    history = []
    for epoch in range(1, epochs + 1):
        model.train()
        total, seen = 0.0, 0
        for i, (x,) in enumerate(loader):
            if steps is not None and i >= steps:
                break
            optimizer.zero_grad()
            recon, mu, logvar = model(x)
            loss = loss_function(recon, x, mu, logvar)
            loss.backward()
            optimizer.step()
            total, seen = total + loss.item(), seen + len(x)
        history.append(total / seen)
        if verbose:
            print(f"epoch {epoch:2d}  loss per image {history[-1]:.2f}")
    if verbose:
        with torch.no_grad():  # decode a few points of the prior: new "digits"
            samples = model.decode(torch.randn(3, 4)).view(3, 8, 8)
        for img in samples.tolist():
            print("\n".join("".join(" .:-=+*#%@"[min(int(v * 10), 9)] for v in row) for row in img) + "\n")
    return history


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=None, help="stop each epoch after this many batches")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args(argv)
    train(a.epochs, a.steps, a.batch_size, seed=a.seed)


if __name__ == "__main__":
    main()
