import os
import tempfile

import torch
from torch import nn
from torch.nn import functional as F

# The "builder's guide" of a deep-learning textbook, as its PyTorch edition teaches it (our own program, in
# the book's order): layers and blocks (a sequential block written by hand, a block with constant weights and
# control flow), parameter management (state dicts, .data, named parameters, a tied layer), initialization
# (apply with normal, constant, xavier and a custom rule), lazy initialization (LazyLinear before and after a
# dummy batch), custom layers with and without parameters, saving and loading tensors and models, and a
# LeNet of lazy layers whose output shapes are printed layer by layer and which trains a few steps.

torch.manual_seed(0)

# -- layers and blocks --------------------------------------------------------------------------------------
X = torch.rand(2, 20)
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net(X).shape)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.LazyLinear(256)
        self.out = nn.LazyLinear(10)

    def forward(self, X):
        return self.out(F.relu(self.hidden(X)))


print(MLP()(X).shape)


class MySequential(nn.Module):
    def __init__(self, *args):
        super().__init__()
        for idx, module in enumerate(args):
            self.add_module(str(idx), module)

    def forward(self, X):
        for module in self.children():
            X = module(X)
        return X


net = MySequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net(X).shape)


class FixedHiddenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.rand_weight = torch.rand((20, 20))
        self.linear = nn.LazyLinear(20)

    def forward(self, X):
        X = self.linear(X)
        X = F.relu(X @ self.rand_weight + 1)
        X = self.linear(X)  # the same parameters again
        while X.abs().sum() > 1:
            X /= 2
        return X.sum()


print(f"{FixedHiddenMLP()(X).item():.6f}")

# -- parameter management ---------------------------------------------------------------------------------
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net[2].state_dict().keys())
print(type(net[2].bias), net[2].bias.data)
print(net[2].weight.grad is None)
print([(name, param.shape) for name, param in net.named_parameters()])

shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.LazyLinear(1))
net(X)
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0])
print(len(list(net.parameters())))

# -- initialization ---------------------------------------------------------------------------------------
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
net(X)


def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_constant(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)


net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_xavier(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)


def init_42(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 42)


net[0].apply(init_xavier)
net[2].apply(init_42)
print(net[0].weight.data[0])
print(net[2].weight.data)


def my_init(module):
    if type(module) == nn.Linear:
        print("Init", *[(name, param.shape) for name, param in module.named_parameters()][0])
        nn.init.uniform_(module.weight, -10, 10)
        module.weight.data *= module.weight.data.abs() >= 5


net.apply(my_init)
print(net[0].weight[:2])
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])

# -- lazy initialization ----------------------------------------------------------------------------------
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net[0].weight)
print(net)
X = torch.rand(2, 20)
net(X)
print(net[0].weight.shape)
print(net)

# -- custom layers ----------------------------------------------------------------------------------------


class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(f"{Y.mean().item():.1e}" if abs(Y.mean().item()) > 1e-6 else "mean is about zero")


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)))

# -- file I/O ---------------------------------------------------------------------------------------------
folder = tempfile.mkdtemp()
x = torch.arange(4)
torch.save(x, os.path.join(folder, "x-file"))
x2 = torch.load(os.path.join(folder, "x-file"))
print(x2)
y = torch.zeros(4)
torch.save([x, y], os.path.join(folder, "x-files"))
x2, y2 = torch.load(os.path.join(folder, "x-files"))
print((x2, y2))
mydict = {"x": x, "y": y}
torch.save(mydict, os.path.join(folder, "mydict"))
print(torch.load(os.path.join(folder, "mydict")))

net = MLP()
X = torch.randn(size=(2, 20))
Y = net(X)
torch.save(net.state_dict(), os.path.join(folder, "mlp.params"))
clone = MLP()
print(clone.load_state_dict(torch.load(os.path.join(folder, "mlp.params"))))
print(clone)
clone.eval()
print(clone(X) == Y)

# -- LeNet of lazy layers ---------------------------------------------------------------------------------
lenet = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.LazyLinear(120), nn.Sigmoid(),
    nn.LazyLinear(84), nn.Sigmoid(),
    nn.LazyLinear(10))
X = torch.randn(1, 1, 28, 28)
for layer in lenet:
    X = layer(X)
    print(layer.__class__.__name__, "output shape:\t", X.shape)


def init_cnn(module):
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


lenet.apply(init_cnn)
images, labels = torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,))
optimizer = torch.optim.SGD(lenet.parameters(), lr=0.9)
for epoch in range(5):
    loss = F.cross_entropy(lenet(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch + 1}, loss {loss.item():.4f}")
print(sum(p.numel() for p in lenet.parameters()))
