import os
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

# Data, a training loop that reports as the "Optimization" tutorial's does, then save and load
# (our own program, on made-up data so nothing is downloaded).
torch.manual_seed(42)


class Blobs(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        g = torch.Generator().manual_seed(3)
        self.labels = torch.randint(0, 3, (n,), generator=g)
        self.points = torch.randn(n, 4, generator=g) + self.labels[:, None].float() * 2
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        x, y = self.points[idx], self.labels[idx]
        if self.transform:
            x = self.transform(x)
        if self.target_transform:
            y = self.target_transform(y)
        return x, y


data = Blobs(300, target_transform=lambda y: int(y))
print(len(data), data[0])
train_data, test_data = random_split(data, [240, 60])
print(len(train_data), len(test_data), train_data.indices[:5])
train_dataloader = DataLoader(train_data, batch_size=64, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=64)
features, labels = next(iter(train_dataloader))
print(f"Feature batch shape: {features.size()}")
print(f"Labels batch shape: {labels.size()}")
print(labels[:10])

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * 64 + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(3):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
path = os.path.join(tempfile.mkdtemp(), "model_weights.pth")
torch.save(model.state_dict(), path)
model2 = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
print(model2.load_state_dict(torch.load(path, weights_only=True)))
model2.eval()
print(model2[0].bias)
print(list(model2.state_dict().keys()))
print(model2.state_dict()["2.bias"])
sd = model2.state_dict()
sd.pop("2.bias")
print(model2.load_state_dict(sd, strict=False))
ds = TensorDataset(torch.arange(6.0).view(3, 2), torch.tensor([0, 1, 0]))
for xb, yb in DataLoader(ds, batch_size=2):
    print(xb, yb)
import io
buffer = io.BytesIO()
torch.save({"epoch": 3, "model": model2.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
buffer.seek(0)
checkpoint = torch.load(buffer, map_location="cpu")
print(checkpoint["epoch"], sorted(checkpoint), checkpoint["optimizer"]["param_groups"])
print(model2.load_state_dict(checkpoint["model"]))
print(model2)
