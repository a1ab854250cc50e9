import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# The graph a beginner meets in PyTorch's autograd tutorial, and the one a first attention head builds
# (our own program): a one-layer network z = x @ w + b with a binary cross-entropy loss, its grad_fn and
# next_functions walked to the leaves, the gradients, and then a causal self-attention head whose matmuls
# and reshapes show the nodes PyTorch's matmul makes. tests/test_parity_printed.py runs it under PyTorch
# and under minigrad (only the import lines changed) and compares every printed line.

torch.manual_seed(0)

x = torch.ones(5)  # input
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = F.binary_cross_entropy_with_logits(z, y)
print("Gradient function for z =", z.grad_fn)
print("Gradient function for loss =", loss.grad_fn)


def walk(fn, depth=0):
    """Every node below ``fn``, indented by depth, with the shape of what it passes on."""
    if fn is None:
        print("  " * depth + "None")
        return
    print("  " * depth + fn.name())
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


walk(loss.grad_fn)
loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad, z._version, z._is_view())
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z_det = (torch.matmul(x, w) + b).detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")


class Head(nn.Module):
    """One head of causal self-attention, as a first transformer writes it."""

    def __init__(self, n_embd, head_size, block_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        B, T, C = x.shape
        k, q = self.key(x), self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        return wei @ self.value(x)


head = Head(8, 4, 6)
xb = torch.randn(2, 6, 8)
att = head(xb)
print(att.shape, att.grad_fn)
walk(att.sum().grad_fn)

proj = nn.Linear(8, 24)
qkv = proj(xb)
q, k, v = (t.view(2, 6, 2, 4).transpose(1, 2) for t in qkv.split(8, dim=2))
scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(4))
y = (scores.softmax(-1) @ v).transpose(1, 2).contiguous().view(2, 6, 8)
print(y.grad_fn, y.grad_fn.next_functions[0][0])
walk(y.grad_fn)
y.pow(2).mean().backward()
print(xb.grad, proj.weight.grad.shape, round(proj.weight.grad.norm().item(), 4))
