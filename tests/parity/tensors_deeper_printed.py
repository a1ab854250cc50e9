import math

import numpy as np
import torch

# A longer hour with tensors, the way the "Introduction to PyTorch" video series spends it (our own
# program): factory functions and *_like, dtypes, scalar and tensor arithmetic, broadcasting and its
# error, the math library (rounding, trig, bitwise, comparisons, reductions, linear algebra), in-place
# ops and out=, copies, devices, reshaping and its errors, and the NumPy bridge.
# tests/test_parity_printed.py runs it under both frameworks and compares every printed line.

print("--- creating")
z = torch.zeros(2, 3)
print(type(z), z.shape, z.dtype)
e = torch.empty(3, 4)
print(e.shape, e.dtype, e.device)
print(torch.zeros(2, 3), torch.ones(2, 3), sep="\n")
torch.manual_seed(1729)
r1 = torch.rand(2, 3)
print(r1)
r2 = torch.rand(2, 3)
print(r2)
torch.manual_seed(1729)
r3 = torch.rand(2, 3)
print(r3, torch.equal(r1, r3), torch.equal(r1, r2))
x = torch.empty(2, 2, 3)
print(x.shape)
print(torch.empty_like(x).shape, torch.zeros_like(x), torch.ones_like(x), sep="\n")
print(torch.rand_like(x))
print(torch.full_like(x, 7), torch.full((2, 2), 3.5), sep="\n")
some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]])
print(some_constants)
some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19))
print(some_integers, some_integers.dtype)
more_integers = torch.tensor(((2, 4, 6), [3, 6, 9]))
print(more_integers)
print(torch.tensor([True, False]), torch.tensor(3.5), torch.tensor(4), torch.tensor([]))
print(torch.tensor([1, 2.5]).dtype, torch.tensor([[1], [2]]).shape)

print("--- dtypes")
a = torch.ones((2, 3), dtype=torch.int16)
print(a)
b = torch.rand((2, 3), dtype=torch.float64) * 20.0
print(b)
c = b.to(torch.int32)
print(c)
print(b.int(), b.long().dtype, b.half().dtype, b.double().dtype, b.float().dtype, b.bool(), sep="\n")
print(a.to(dtype=torch.float32), a.type(torch.float64), a.type(), b.type(), sep="\n")
print(torch.zeros(2, dtype=torch.uint8), torch.ones(2, dtype=torch.bfloat16), torch.ones(2, dtype=torch.float16))
print(torch.arange(5), torch.arange(1, 4), torch.arange(0, 1, 0.25), torch.arange(6.0))
print(torch.linspace(0, 1, steps=5), torch.linspace(-1, 1, 4), torch.logspace(0, 2, 3))
print(torch.eye(3), torch.eye(2, 3), sep="\n")

print("--- math with scalars")
ones = torch.zeros(2, 2) + 1
twos = torch.ones(2, 2) * 2
threes = (torch.ones(2, 2) * 7 - 1) / 2
fours = twos ** 2
sqrt2s = twos ** 0.5
print(ones, twos, threes, fours, sqrt2s, sep="\n")
powers2 = twos ** torch.tensor([[1, 2], [3, 4]])
print(powers2)
fives = ones + fours
print(fives)
dozens = threes * fours
print(dozens)
print(1 - ones, 10 / twos, 2 ** twos, 7 // twos, 7 % twos, -twos, sep="\n")
print(torch.tensor([5, 7]) // 2, torch.tensor([5, 7]) / 2, torch.tensor([-5, 7]) % 3)
try:
    print(torch.rand(2, 3) + torch.rand(3, 2))
except RuntimeError as err:
    print("RuntimeError:", err)

print("--- broadcasting")
rand = torch.rand(2, 4)
doubled = rand * (torch.ones(1, 4) * 2)
print(rand)
print(doubled)
a = torch.ones(4, 3, 2)
b = a * torch.rand(3, 2)
print(b)
c = a * torch.rand(3, 1)
print(c)
d = a * torch.rand(1, 2)
print(d)
print(torch.broadcast_shapes((4, 1, 2), (3, 1)), torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))[0].shape)
for shape in [(4, 3), (2, 3), ()]:
    try:
        print((a * torch.ones(shape)).shape)
    except RuntimeError as err:
        print("RuntimeError:", err)
try:
    torch.ones(4, 3).expand(4, 2)
except RuntimeError as err:
    print("RuntimeError:", err)
print(torch.ones(3, 1).expand(3, 4), torch.ones(1, 2).expand(2, -1), sep="\n")

print("--- more math")
a = torch.rand(2, 4) * 2 - 1
print("Common functions:")
print(torch.abs(a))
print(torch.ceil(a))
print(torch.floor(a))
print(torch.clamp(a, -0.5, 0.5))
print(torch.round(a * 10), torch.trunc(a * 10), torch.frac(a * 10), torch.sign(a), sep="\n")
print(torch.clamp(a, min=0), torch.clamp(a, max=0), a.clip(-0.1, 0.1), sep="\n")
print(torch.tensor([0.5, 1.5, 2.5, -0.5]).round(), torch.tensor([-1.5, 2.5]).round())
print(torch.round(a, decimals=2), torch.tensor([2.675, 1234.5]).round(decimals=-1), a.round(decimals=3).grad_fn)
angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
sines = torch.sin(angles)
inverses = torch.asin(sines)
print("\nSine and arcsine:")
print(angles)
print(sines)
print(inverses)
print(torch.cos(angles), torch.tan(angles[:2]), torch.atan2(sines, torch.cos(angles)), sep="\n")
print(torch.acos(torch.tensor([1.0, 0.0, -1.0])), torch.atan(torch.tensor([1.0, -1.0])))
print(torch.sinh(angles), torch.cosh(angles), torch.tanh(angles), torch.asinh(angles), sep="\n")
print(torch.exp(angles), torch.log(angles + 1), torch.log2(angles + 1), torch.log10(angles + 1), sep="\n")
print(torch.sqrt(angles), torch.rsqrt(angles + 1), torch.sigmoid(angles), torch.square(angles), sep="\n")
print("\nBitwise XOR:")
b = torch.tensor([1, 5, 11])
c = torch.tensor([2, 7, 10])
print(torch.bitwise_xor(b, c))
print(torch.bitwise_and(b, c), torch.bitwise_or(b, c), torch.bitwise_not(b), b ^ c, b & c, b | c, ~b)
print(b << 1, b >> 1, torch.bitwise_left_shift(b, c % 3), torch.tensor([True, False]) ^ True)
print("\nBroadcasted, element-wise equality comparison:")
d = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
e = torch.ones(1, 2)
print(torch.eq(d, e))
print(d > 2, d <= 2, torch.ne(d, e), torch.ge(d, 3), d == d.T, sep="\n")
print(torch.equal(d, d.clone()), torch.allclose(d, d + 1e-9), torch.isclose(d, d + 0.5, atol=0.6))
print(torch.maximum(d, d.T), torch.minimum(d, d.T), torch.where(d > 2, d, -d), sep="\n")
print("\nReduction ops:")
print(torch.max(d))
print(torch.max(d).item())
print(torch.mean(d))
print(torch.std(d))
print(torch.prod(d))
print(torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))
print(torch.max(d, dim=0))
print(torch.min(d, 1), torch.argmax(d), torch.argmin(d, dim=1), sep="\n")
print(d.sum(), d.sum(0), d.sum(1, keepdim=True), d.var(), d.var(0, unbiased=False), sep="\n")
print(d.std(1), d.median(), d.mean(dim=1), d.norm(), d.cumsum(0), d.cumprod(1), sep="\n")
print(torch.unique(torch.tensor([3, 1, 3, 2]), return_counts=True))
print(torch.unique(torch.tensor([3, 1, 3, 2]), return_inverse=True))
print(torch.all(d > 0), torch.any(d > 3), d.count_nonzero(), torch.logsumexp(d, 1), sep="\n")
print(torch.topk(torch.tensor([4.0, 1.0, 3.0, 2.0]), 2), torch.sort(torch.tensor([4, 1, 3, 2]), descending=True))
print(torch.amax(d, 0), torch.aminmax(d), sep="\n")
print("\nVectors & Matrices:")
v1 = torch.tensor([1.0, 0.0, 0.0])
v2 = torch.tensor([0.0, 1.0, 0.0])
m1 = torch.rand(2, 2)
m2 = torch.tensor([[3.0, 0.0], [0.0, 3.0]])
print(torch.linalg.cross(v2, v1))
print(torch.cross(v1, v2, dim=0))
print(m1)
m3 = torch.linalg.matmul(m1, m2)
print(m3)
print(torch.linalg.svd(m3))
print(torch.det(m2), torch.linalg.det(m2), torch.dot(v1, v2), torch.outer(v1, v2), sep="\n")
print(torch.mm(m2, m2), torch.mv(m2, torch.tensor([1.0, 2.0])), torch.inverse(m2), m2.T, m2.trace(), sep="\n")
print(torch.linalg.norm(m2), torch.linalg.inv(m2), torch.diag(m2), torch.tril(torch.ones(3, 3)), sep="\n")
print(torch.linalg.solve(m2, torch.tensor([3.0, 6.0])), torch.linalg.matrix_rank(m2), torch.kron(m2, torch.eye(1)))
print(torch.bmm(torch.ones(2, 1, 3), torch.ones(2, 3, 2)), torch.einsum("ij,jk->ik", m2, m2), sep="\n")
try:
    torch.mm(torch.ones(2, 3), torch.ones(2, 3))
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    torch.dot(torch.ones(2), torch.ones(3))
except RuntimeError as err:
    print("RuntimeError:", err)

print("--- in place")
a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print("a:")
print(a)
print(torch.sin(a))
print(a)
b = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print("\nb:")
print(b)
print(torch.sin_(b))
print(b)
a = torch.ones(2, 2)
b = torch.rand(2, 2)
print("Before:")
print(a)
print(b)
print("\nAfter adding:")
print(a.add_(b))
print(a)
print(b)
print("\nAfter multiplying")
print(b.mul_(b))
print(b)
print(a.sub_(1), a.div_(2), a.clamp_(0.1, 0.3), a.zero_(), a.fill_(2), a.pow_(2), a.neg_(), a.abs_(), sep="\n")
try:
    torch.ones(2, dtype=torch.int64).add_(0.5)
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    torch.ones(2, 1).add_(torch.ones(2, 2))
except RuntimeError as err:
    print("RuntimeError:", err)
a = torch.rand(2, 2)
b = torch.rand(2, 2)
c = torch.zeros(2, 2)
old_id = id(c)
print(c)
d = torch.matmul(a, b, out=c)
print(c)
assert c is d
assert id(c) == old_id
torch.rand(2, 2, out=c)
print(c)
assert id(c) == old_id
torch.add(a, b, out=c)
print(c)
torch.mul(a, 2, out=c)
print(c, torch.sum(a, 0, out=torch.empty(2)), torch.sin(a, out=torch.empty(2, 2)), sep="\n")

print("--- copies")
a = torch.ones(2, 2)
b = a
a[0][1] = 561
print(b)
a = torch.ones(2, 2)
b = a.clone()
assert b is not a
print(torch.eq(a, b))
a[0][1] = 561
print(b)
a = torch.rand(2, 2, requires_grad=True)
print(a)
b = a.clone()
print(b)
c = a.detach().clone()
print(c)
print(a)
print(b.requires_grad, c.requires_grad, b.is_leaf, c.is_leaf, b.grad_fn.name(), c.grad_fn)
d = a.detach()
d[0, 0] = 0.0
print(a, d.data_ptr() == a.data_ptr(), torch.empty_like(a).requires_grad, sep="\n")
e = a.new_zeros(3)
print(e, a.new_ones(2, 1), a.new_full((2,), 9.0), a.new_tensor([1, 2]), a.new_empty(0).shape, sep="\n")
print(a.data, a.data.requires_grad, sep="\n")
try:
    a.copy_(torch.zeros(2, 2))
except RuntimeError as err:
    print("RuntimeError:", err)
with torch.no_grad():
    print(a.copy_(torch.zeros(2, 2)) is a, a, a.data.copy_(torch.ones(2, 2)), a, sep="\n")

print("--- devices")
print(torch.cuda.is_available(), torch.cuda.device_count())
print(torch.accelerator.is_available(), torch.accelerator.device_count())
if torch.accelerator.is_available():
    my_device = torch.accelerator.current_accelerator()
else:
    my_device = torch.device("cpu")
print(f"Device: {my_device}")
x = torch.rand(2, 2, device=my_device)
print(x, x.device, x.is_cuda, x.to("cpu").device, x.cpu().device, sep="\n")
print(torch.device("cpu"), repr(torch.device("cpu")), torch.device("cuda:0"), torch.device("cuda", 1).index)
print(torch.device("cpu").type, torch.device("cuda:1").type, torch.device("cpu") == torch.device("cpu"))

print("--- changing dimensions")
a = torch.rand(3, 226, 226)
b = a.unsqueeze(0)
print(a.shape)
print(b.shape)
c = torch.rand(1, 1, 1, 1, 1)
print(c)
a = torch.rand(1, 20)
print(a.shape)
print(a)
b = a.squeeze(0)
print(b.shape)
print(b)
c = torch.rand(2, 2)
print(c.shape)
d = c.squeeze(0)
print(d.shape)
a = torch.ones(4, 3, 2)
c = a * torch.rand(3, 1)
print(c)
a = torch.ones(4, 3, 2)
b = torch.rand(3)
c = b.unsqueeze(1)
print(c.shape)
print(a * c)
batch_me = torch.rand(3, 226, 226)
print(batch_me.shape)
batch_me.unsqueeze_(0)
print(batch_me.shape)
output3d = torch.rand(6, 20, 20)
print(output3d.shape)
input1d = output3d.reshape(6 * 20 * 20)
print(input1d.shape)
print(torch.reshape(output3d, (6 * 20 * 20,)).shape)
print(output3d.view(6, -1).shape, output3d.flatten().shape, output3d.flatten(1).shape, output3d.permute(2, 0, 1).shape)
print(output3d.transpose(0, 1).is_contiguous(), output3d.transpose(0, 1).contiguous().is_contiguous())
try:
    output3d.transpose(0, 1).view(-1)
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    output3d.view(7, -1)
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    output3d.reshape(-1, -1)
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    output3d.squeeze(3)
except IndexError as err:
    print("IndexError:", err)
print(output3d.unflatten(0, (2, 3)).shape, torch.ones(2, 1, 3, 1).squeeze().shape, torch.ones(2, 1, 3, 1).squeeze((1, 3)).shape)
print(torch.stack([torch.ones(2), torch.zeros(2)]), torch.cat([torch.ones(1, 2), torch.zeros(1, 2)], 1), sep="\n")
print(torch.chunk(torch.arange(5), 2), torch.split(torch.arange(5), [2, 3]), torch.arange(6).view(2, 3).unbind(1))
print(torch.arange(4).repeat(2), torch.arange(3).flip(0), torch.arange(6).view(2, 3).t(), sep="\n")

print("--- numpy bridge")
numpy_array = np.ones((2, 3))
print(numpy_array)
pytorch_tensor = torch.from_numpy(numpy_array)
print(pytorch_tensor)
pytorch_rand = torch.rand(2, 3)
print(pytorch_rand)
numpy_rand = pytorch_rand.numpy()
print(numpy_rand)
numpy_array[1, 1] = 23
print(pytorch_tensor)
pytorch_rand[1, 1] = 17
print(numpy_rand)
print(torch.as_tensor(numpy_array).dtype, torch.tensor(numpy_array.astype(np.float32)).dtype)
print(torch.from_numpy(np.arange(3, dtype=np.int32)), torch.tensor(np.float64(2.5)), np.asarray(torch.ones(2)))
print(torch.ones(2, requires_grad=True).detach().numpy(), torch.ones(3).tolist(), torch.tensor(5).item())
try:
    torch.ones(2, requires_grad=True).numpy()
except RuntimeError as err:
    print("RuntimeError:", err)
