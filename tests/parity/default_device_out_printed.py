import torch

# torch.set_default_device and out=, written the way PyTorch's "Tensors" tutorial uses them (our own
# code): factory functions follow the default device, and results are written into a given tensor.
# tests/test_parity_printed.py runs it whole under PyTorch and under minigrad (only the import lines
# changed) and compares the printed lines.

print(torch.get_default_device())
torch.set_default_device("cpu")
print(torch.get_default_device())
x = torch.ones(2, 3)
print(x.device, x.dtype)
print(torch.float32, torch.int64, x.dtype == torch.float32)

torch.manual_seed(0)
y = torch.rand(2, 3)
result = torch.empty(2, 3)
torch.add(x, y, out=result)
print(result)
print(torch.add(x, y, out=result) is result)
torch.mul(x, 3, out=result)
print(result)
torch.sub(result, x, out=result)
print(result)
torch.div(result, 4, out=result)
print(result)
torch.matmul(x, y.T, out=torch.empty(2, 2))
z = torch.empty(0)
torch.matmul(x, y.T, out=z)
print(z)
c = torch.empty(4, 3)
torch.cat([x, y], out=c)
print(c)
s = torch.empty(2, 2, 3)
torch.stack([x, y], out=s)
print(s.shape)
e = torch.empty(2, 3)
torch.exp(torch.zeros(2, 3), out=e)
print(e)
total = torch.empty(3)
torch.sum(c, 0, out=total)
print(total)
print(torch.pow(torch.arange(1.0, 5.0), 0.5))
print(torch.arange(1.0, 5.0) ** 2, torch.arange(1.0, 5.0) ** -1)

a = torch.ones(2, requires_grad=True)
try:
    torch.mul(a, 2, out=torch.empty(2))
except RuntimeError as err:
    print(err)
with torch.no_grad():
    print(torch.mul(a, 2, out=torch.empty(2)))
torch.set_default_device(None)
print(torch.get_default_device())
