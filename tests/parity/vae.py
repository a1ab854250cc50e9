import torch
from torch import nn, optim
from torch.nn import functional as F

# A variational autoencoder in the style of PyTorch's VAE example (our own code, tiny sizes): an encoder
# to the mean and log-variance of q(z|x), the reparameterisation trick, a sigmoid decoder, and the loss
# binary cross-entropy + KL(q(z|x) || N(0, I)). tests/test_parity_programs.py runs it under PyTorch and
# under minigrad, changing only the import lines above.

D_IN, D_HIDDEN, D_Z = 16, 12, 3


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D_IN, D_HIDDEN)
        self.fc21 = nn.Linear(D_HIDDEN, D_Z)  # mean
        self.fc22 = nn.Linear(D_HIDDEN, D_Z)  # log-variance
        self.fc3 = nn.Linear(D_Z, D_HIDDEN)
        self.fc4 = nn.Linear(D_HIDDEN, D_IN)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        # z = mu + sigma * eps: the noise is an input, so the gradient reaches mu and logvar
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, D_IN))
        z = self.reparameterize(mu, logvar) if self.training else mu
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    """Reconstruction + KL divergence, summed over the batch."""
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, D_IN), reduction="sum")
    # KL(N(mu, sigma^2) || N(0, 1)) = -1/2 * sum(1 + log sigma^2 - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(model, batches, epochs=2, lr=1e-2):
    optimizer = optim.Adam(model.parameters(), lr=lr)
    model.train()
    losses = []
    for epoch in range(epochs):
        for data in batches:
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(data)
            loss = loss_function(recon_batch, data, mu, logvar)
            loss.backward()
            losses.append(loss.item())
            optimizer.step()
    return losses


def test(model, batches):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for data in batches:
            recon, mu, logvar = model(data)
            test_loss += loss_function(recon, data, mu, logvar).item()
    return test_loss / sum(len(d) for d in batches)
