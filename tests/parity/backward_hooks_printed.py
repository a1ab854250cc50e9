import torch
from torch import nn
from torch.autograd.graph import Node, register_multi_grad_hook

# Backward hooks as PyTorch's autograd notes explain them (our own program): tensor hooks and retain_grad,
# a grad node's own pre-hooks and hooks, AccumulateGrad's, post-accumulate-grad hooks, the order they run in,
# what each may replace, a hook registered before an in-place change, hooks that do not fire, multi-grad
# hooks, and a module's full backward hooks - each step printed.

torch.manual_seed(0)
log = []


def show(title):
    print(f"{title}: {log}")
    log.clear()


# -- 1. who runs, in which order -------------------------------------------------------------------------
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b.sin()
b.retain_grad()
b.register_hook(lambda g: log.append(("tensor hook on b", [round(v, 4) for v in g.tolist()])))
b.grad_fn.register_prehook(lambda gos: log.append(("b.grad_fn pre-hook", len(gos))))
b.grad_fn.register_hook(lambda gis, gos: log.append(("b.grad_fn hook", len(gis), len(gos))))
acc = b.grad_fn.next_functions[0][0]
print(type(acc).__name__, acc.name(), isinstance(acc, Node), isinstance(b.grad_fn, Node))
a.register_hook(lambda g: log.append(("tensor hook on a", [round(v, 4) for v in g.tolist()])))
acc.register_prehook(lambda gos: log.append(("AccumulateGrad pre-hook", [round(v, 4) for v in gos[0].tolist()])))
acc.register_hook(lambda gis, gos: log.append(("AccumulateGrad hook", gis, len(gos))))
a.register_post_accumulate_grad_hook(lambda p: log.append(("post-accumulate", [round(v, 4) for v in p.grad.tolist()])))
c.sum().backward()
show("order")
print([round(v, 4) for v in b.grad.tolist()], [round(v, 4) for v in a.grad.tolist()])

# -- 2. what a hook's return value replaces ----------------------------------------------------------------
x = torch.tensor([1.0, -1.0, 3.0], requires_grad=True)
w = torch.tensor([2.0, 2.0, 2.0], requires_grad=True)
y = x * w
y.register_hook(lambda g: g + 1)                         # the tensor hook: 1 -> 2
y.grad_fn.register_prehook(lambda gos: (gos[0] * 10,))    # the node's: 2 -> 20
y.grad_fn.register_hook(lambda gis, gos: (gis[0], gis[1] * 0))  # w's gradient dropped to zeros
y.sum().backward()
print("x.grad", x.grad.tolist(), "w.grad", w.grad.tolist())
print(y.grad_fn.metadata)
y.grad_fn.metadata["note"] = "seen"
print(y.grad_fn.metadata)

# -- 3. a gradient that does not flow: hooks that do not fire --------------------------------------------------
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = torch.tensor([3.0, 4.0], requires_grad=True)
r = p * 2
unused = q * 3
unused.register_hook(lambda g: log.append("never"))
r.sum().backward()
show("unused tensor's hook")
print(q.grad)

# -- 4. a hook registered before an in-place change ----------------------------------------------------------
u = torch.tensor([1.0, 2.0], requires_grad=True)
v = u.clone()
v.register_hook(lambda g: log.append(("hook before the change", g.tolist())))
v.mul_(3)
v.register_hook(lambda g: log.append(("hook after the change", g.tolist())))
(v * v).sum().backward()
show("in-place")
print(u.grad.tolist())

# -- 5. multi-grad hooks ----------------------------------------------------------------------------------
t1 = torch.tensor([1.0], requires_grad=True)
t2 = torch.tensor([2.0], requires_grad=True)
t3 = torch.tensor([3.0], requires_grad=True)
m1, m2, m3 = t1 * 1, t2 * 1, t3 * 1
handle = register_multi_grad_hook(
    (m1, m2, m3), lambda grads: log.append(["all", [None if g is None else g.tolist() for g in grads]]))
(m1 * 5 + m3 * 7).sum().backward(retain_graph=True)  # m2 takes no part: None for it
(m3 * 2).sum().backward(retain_graph=True)
handle.remove()
register_multi_grad_hook((m1, m2), lambda g: log.append(["any", g.tolist()]), mode="any")
(m2 + m3).sum().backward()  # of the pair only m2 takes part
(m1 * 4).sum().backward()
show("multi-grad")


# -- 6. a module's full backward hooks ---------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, x):
        return torch.tanh(self.lin(x))


block = Block()
block.register_full_backward_pre_hook(lambda m, gout: log.append(("module pre", [tuple(g.shape) for g in gout])))
block.register_full_backward_hook(lambda m, gin, gout: log.append(("module", [tuple(g.shape) for g in gin])))
inp = torch.randn(4, 3, requires_grad=True)
out = block(inp)
print(type(out.grad_fn).__name__)
out.sum().backward()
show("module")
print([round(v, 4) for v in inp.grad[0].tolist()])
