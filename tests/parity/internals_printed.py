import torch
import torch.nn as nn
import torch.nn.functional as F

# What a tensor and an optimizer are made of (our own program, in the order an internals lecture shows them):
# a tensor is a view of a storage (bytes, an offset, strides), views share it, a copy does not; detach_()
# cuts a tensor out of the graph; then an optimizer's state: per-parameter buffers, the step count, the
# state dict a checkpoint saves, hooks around step(), a closure, and two older rules (Rprop, ASGD).
# tests/test_parity_printed.py runs it whole under PyTorch and under minigrad (only the import lines
# changed) and compares the printed lines.

torch.manual_seed(0)

# -- storage ----------------------------------------------------------------------------------------
x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
s = x.untyped_storage()
print("bytes:", s.nbytes(), "elements:", x.numel(), "element size:", x.element_size())
print("strides:", x.stride(), "offset:", x.storage_offset())
row = x[1]
print("row shares:", row.untyped_storage().data_ptr() == s.data_ptr(), "offset:", row.storage_offset())
col = x[:, 2]
print("column strides:", col.stride(), "offset:", col.storage_offset(), "contiguous:", col.is_contiguous())
xt = x.T
print("transpose shares:", xt.untyped_storage().data_ptr() == s.data_ptr(), "strides:", xt.stride())
print("its storage is the whole matrix:", xt.untyped_storage().nbytes())
c = xt.contiguous()
print("contiguous copy shares:", c.untyped_storage().data_ptr() == s.data_ptr(), "strides:", c.stride())
row[0] = 100.0
print("write through the view:", x[1, 0].item())
small = torch.tensor([1, 2, 258], dtype=torch.int16)
print("the bytes of", small.tolist(), "->", small.untyped_storage().tolist())
print(torch.tensor([7, 300], dtype=torch.int16).untyped_storage())

# -- leaving the graph ------------------------------------------------------------------------------
w = torch.randn(3, requires_grad=True)
h = w * 2
print("before detach_:", h.requires_grad, h.grad_fn is not None, h.is_leaf)
h.detach_()
print("after detach_:", h.requires_grad, h.grad_fn, h.is_leaf)
try:
    (w * 2)[1:].detach_()
except RuntimeError as e:
    print("a view:", str(e)[:46])
parts = torch.randn(2, 3, requires_grad=True).unbind()
print("output_nr of the parts:", [p.output_nr for p in parts])

# -- an optimizer's state -------------------------------------------------------------------------
model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
print(opt.state_dict())
X, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
first = model[0].weight
print("state keys:", list(opt.state[first]))
print("step:", opt.state[first]["step"])
print("exp_avg_sq[0]:", opt.state[first]["exp_avg_sq"][0])
saved = opt.state_dict()
print("saved steps:", [saved["state"][i]["step"] for i in saved["state"]])
print("groups:", {k: v for k, v in saved["param_groups"][0].items() if k != "params"}, saved["param_groups"][0]["params"])

# hooks around step(), and a closure
log = []
pre = opt.register_step_pre_hook(lambda o, args, kwargs: log.append("pre"))
post = opt.register_step_post_hook(lambda o, args, kwargs: log.append("post"))


def closure():
    opt.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    log.append("closure")
    return loss


print("closure loss:", round(opt.step(closure).item(), 4), log)
pre.remove()
post.remove()
print("after the hooks are removed:", opt.step(closure), log[-1])

# named parameters keep their names in the groups
named = torch.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
print("names:", named.param_groups[0]["param_names"])

# the older rules
for cls in (torch.optim.Rprop, torch.optim.ASGD):
    torch.manual_seed(1)
    net = nn.Linear(4, 1)
    o = cls(net.parameters(), lr=0.05)
    for _ in range(4):
        o.zero_grad()
        F.mse_loss(net(X), X.sum(1, keepdim=True)).backward()
        o.step()
    print(cls.__name__, [round(v, 4) for v in net.weight.detach().flatten().tolist()], list(o.state[net.weight]))
print(o.state_dict()["state"][1])
print(o)
