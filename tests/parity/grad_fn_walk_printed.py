import torch
import torch.nn as nn
import torch.nn.functional as F

# The autograd part of a beginner's first hour, as PyTorch's tutorials walk it (our own program):
# print a tensor that has history, print its grad_fn, and follow loss.grad_fn.next_functions back
# through a small network. tests/test_parity_printed.py runs it whole under PyTorch and under
# minigrad (only the import lines changed) and compares every printed line (object addresses aside).

torch.manual_seed(0)

x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)

a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)

v = torch.randn(3, requires_grad=True)
w = v * 2
while w.data.norm() < 1000:
    w = w * 2
print(w.grad_fn)
w.backward(torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float))
print(v.grad)
print(v.requires_grad, (v ** 2).requires_grad)
with torch.no_grad():
    print((v ** 2).requires_grad)
print(v.detach().requires_grad)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())

inp = torch.randn(1, 1, 32, 32)
output = net(inp)
target = torch.randn(10).view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # the bias's AccumulateGrad


def walk(fn, depth=0):
    """Every node below ``fn``, indented by depth: the graph PyTorch's autograd built."""
    if fn is None or depth > 14:
        return
    print("  " * depth + type(fn).__name__)
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


walk(loss.grad_fn)

net.zero_grad()
print(net.conv1.bias.grad)
loss.backward()
print(net.conv1.bias.grad is not None, net.conv1.bias.grad.shape)

logits = net(torch.randn(4, 1, 32, 32))
ce = F.cross_entropy(logits, torch.tensor([1, 0, 4, 9]))
print(ce.grad_fn, ce.grad_fn.next_functions)
print(logits[0].grad_fn, logits[:, 1:3].grad_fn, (-logits).grad_fn)
seq = nn.Linear(8, 3)(torch.randn(2, 5, 8))
print(seq.grad_fn.name(), [type(f).__name__ for f, _ in seq.grad_fn.next_functions[0][0].next_functions])
