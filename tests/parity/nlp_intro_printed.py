import torch

# The NLP series' first page, as our own program: tensors from lists, indexing, randn, cat, view,
# and what autograd records.
torch.manual_seed(1)
vec = torch.tensor([2., 4., 8.])
print(vec)
mat = torch.tensor([[1., 0., 2.], [3., 5., 7.]])
print(mat)
cube = torch.tensor([[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]])
print(cube)
print(vec[0], vec[0].item(), mat[1], cube[0])
ints = torch.tensor([[3, 1], [4, 1]])
print(ints, ints.dtype)
r = torch.randn((2, 3, 4))
print(r)
a = torch.tensor([1., 2., 3.])
b = torch.tensor([10., 20., 30.])
print(a + b)
top = torch.randn(2, 5)
bottom = torch.randn(3, 5)
print(torch.cat([top, bottom]))
left = torch.randn(2, 3)
right = torch.randn(2, 5)
print(torch.cat([left, right], 1))
try:
    torch.cat([left, torch.randn(3, 2)], 1)
except RuntimeError as e:
    print("RuntimeError:", e)
grid = torch.randn(2, 3, 4)
print(grid.view(2, 12))
print(grid.view(2, -1))
try:
    grid.view(5, -1)
except RuntimeError as e:
    print("RuntimeError:", e)

p = torch.tensor([1., 2., 3.], requires_grad=True)
q = torch.tensor([4., 5., 6.], requires_grad=True)
s = p + q
print(s)
print(s.grad_fn)
total = s.sum()
print(total)
print(total.grad_fn)
total.backward()
print(p.grad)
u = torch.randn(2, 2)
v = torch.randn(2, 2)
print(u.requires_grad, v.requires_grad)
w = u + v
print(w.grad_fn)
u = u.requires_grad_()
v = v.requires_grad_()
w = u + v
print(w.grad_fn)
print(w.requires_grad)
frozen = w.detach()
print(frozen.grad_fn, frozen.requires_grad)
print(torch.add(frozen, w).grad_fn)
print(p.requires_grad)
print((p ** 2).requires_grad)
with torch.no_grad():
    print((p ** 2).requires_grad)
