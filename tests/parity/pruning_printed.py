import torch
from torch import nn
import torch.nn.utils.prune as prune
import torch.nn.functional as F

# Pruning, in the order of PyTorch's "Pruning Tutorial" (our own program): a LeNet, one layer's weight
# pruned at random and its bias by L1 magnitude - the parameters, buffers, the masked weight and the forward
# pre-hooks printed at each step - then pruned again along channels (a PruningContainer's history), the
# state_dict's keys, the pruning made permanent with remove, several layers pruned in a loop, global
# pruning with the sparsity of each layer, a custom pruning method, and a training step showing that the
# pruned entries get no gradient. (A hook prints as its object: the ids PyTorch keys them by are counted
# across a whole process, so the program prints the hooks, not the ids.)

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square conv kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5x5 image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


model = LeNet().to(device=device)
module = model.conv1
print([(name, tuple(p.shape)) for name, p in module.named_parameters()])
print(list(module.named_buffers()))

prune.random_unstructured(module, name="weight", amount=0.3)
print([name for name, _ in module.named_parameters()])
print([(name, b.shape, int(b.sum().item())) for name, b in module.named_buffers()])
print(module.weight[0])
print(list(module._forward_pre_hooks.values()))

prune.l1_unstructured(module, name="bias", amount=3)
print([name for name, _ in module.named_parameters()])
print([name for name, _ in module.named_buffers()])
print(module.bias)
print(module.bias_mask)
print(len(module._forward_pre_hooks))

prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight[:, 0, 0])
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":  # select out the correct hook
        break
print(list(hook))
print(model.state_dict().keys())

print([name for name, _ in module.named_parameters()])
prune.remove(module, 'weight')
print([name for name, _ in module.named_parameters()])
print([name for name, _ in module.named_buffers()])
print(type(module.weight).__name__, module.weight.requires_grad, int((module.weight == 0).sum().item()))
print(prune.is_pruned(model), prune.is_pruned(model.fc1))

new_model = LeNet()
for name, module in new_model.named_modules():
    # prune 20% of connections in all 2D-conv layers
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name='weight', amount=0.2)
    # prune 40% of connections in all linear layers
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name='weight', amount=0.4)
print(dict(new_model.named_buffers()).keys())  # to verify that all masks exist

model = LeNet()
parameters_to_prune = (
    (model.conv1, 'weight'),
    (model.conv2, 'weight'),
    (model.fc1, 'weight'),
    (model.fc2, 'weight'),
    (model.fc3, 'weight'),
)
prune.global_unstructured(
    parameters_to_prune,
    pruning_method=prune.L1Unstructured,
    amount=0.2,
)
for name in ("conv1", "conv2", "fc1", "fc2", "fc3"):
    w = getattr(model, name).weight
    print("Sparsity in {}.weight: {:.2f}%".format(name, 100. * float(torch.sum(w == 0)) / float(w.nelement())))
total = sum(float(torch.sum(getattr(model, n).weight == 0)) for n in ("conv1", "conv2", "fc1", "fc2", "fc3"))
count = sum(float(getattr(model, n).weight.nelement()) for n in ("conv1", "conv2", "fc1", "fc2", "fc3"))
print("Global sparsity: {:.2f}%".format(100. * total / count))


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor
    """
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name='bias')
print(model.fc3.bias_mask)

# a training step: the optimizer holds weight_orig; the pruned entries get a zero gradient
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 1, 32, 32)
loss = model(x).pow(2).mean()
loss.backward()
print(round(loss.item(), 4), model.fc3.bias_orig.grad[::2].abs().sum().item(), model.fc3.bias.grad_fn)
before = model.fc3.bias.detach().clone()
opt.step()
out = model(x)  # the pre-hook recomputes bias from bias_orig and the mask
print(torch.equal(model.fc3.bias[::2], before[::2]), torch.equal(model.fc3.bias[1::2], before[1::2]))
try:
    prune.remove(model.fc1, "weight")
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
for bad in (lambda: prune.random_unstructured(model.fc1, "weight", amount=1.5),
            lambda: prune.random_unstructured(model.fc1, "weight", amount="all"),
            lambda: prune.l1_unstructured(model.fc2, "bias", amount=100),
            lambda: prune.ln_structured(model.fc2, "bias", amount=1, n=2, dim=0)):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
print([name for name, _ in model.fc2.named_parameters()], prune.is_pruned(model.fc2))
