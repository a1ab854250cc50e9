import torch

# Autograd mechanics a course shows next (our own program): requires_grad flags, no_grad, detach,
# views and in-place, retain_grad, hooks, grad of non-scalars, jacobian/hessian, inference_mode.
# tests/test_parity_printed.py runs it under both frameworks.
torch.manual_seed(0)
x = torch.randn(5, 5)
y = torch.randn(5, 5)
z = torch.randn((5, 5), requires_grad=True)
a = x + y
print(a.requires_grad, (a + z).requires_grad)
model = torch.nn.Linear(3, 2)
for param in model.parameters():
    param.requires_grad = False
model.bias.requires_grad_(True)
print([p.requires_grad for p in model.parameters()])
print(model(torch.ones(1, 3)))
w = torch.ones(3, requires_grad=True)
with torch.no_grad():
    v = w * 2
print(v, v.requires_grad, v.grad_fn)
with torch.inference_mode():
    u = w * 2
print(u.requires_grad, torch.is_inference_mode_enabled())
d = w.detach()
d.zero_()
print(w, d._version, w._version)
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = b * 2
c.retain_grad()
h = c.register_hook(lambda g: g * 10)
e = (c ** 2).sum()
e.backward()
print(b.grad, c.grad, c.is_leaf, b.is_leaf, e.is_leaf)
h.remove()
out = b.exp()
out.backward(torch.tensor([1.0, 0.1, 0.01]))
print(b.grad)
f = lambda t: (t ** 3).sum()
print(torch.autograd.functional.jacobian(lambda t: t ** 2, torch.tensor([1.0, 2.0])))
print(torch.autograd.functional.hessian(f, torch.tensor([1.0, 2.0])))
g = torch.tensor([2.0], requires_grad=True)
y2 = g ** 3
(dy,) = torch.autograd.grad(y2, g, create_graph=True)
(d2y,) = torch.autograd.grad(dy, g)
print(dy, d2y)
base = torch.arange(6.0).view(2, 3)
view = base[:, 1]
view.mul_(10)
print(base, view._base is base, view.is_contiguous(), base.stride(), view.stride())
t = torch.ones(2, 3, requires_grad=True)
s = t.clone()
s[0, 0] = 5
print(s, s.grad_fn)
s.sum().backward()
print(t.grad)
q = torch.randn(2, 2, requires_grad=True)
print(q.T.grad_fn, q.view(4).grad_fn, q[0].grad_fn, q.unsqueeze(0).grad_fn, q.flatten().grad_fn)
print(torch.autograd.grad((q * q).sum(), q)[0].shape)
m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh())
print(sum(p.numel() for p in m.parameters() if p.requires_grad))
print(m.state_dict().keys(), m[0].weight.dtype)
print(m.double()[0].weight.dtype, next(m.parameters()).device)
