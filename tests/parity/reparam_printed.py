import warnings

import torch
from torch import nn
import torch.nn.functional as F
import torch.nn.utils.parametrizations

# Weight normalization, spectral normalization and conv-batch-norm fusion as a course meets them (our own
# program): a weight-normed MLP trained with the older hook form, its checkpoint loaded into the newer
# parametrization, the magnitude and the direction printed apart; a GAN discriminator with the older
# spectral norm, its sigma estimates and state dict; a CNN's conv-bn pairs folded for inference; and a
# state-dict hook that renames a checkpoint's keys. In float64, so the printed digits do not depend on
# either library's summation order.

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

# -- 1. weight normalization: magnitude and direction trained apart ------------------------------------------
X = torch.randn(64, 4)
y = (X[:, 0] * X[:, 1] > 0).long()

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    mlp = nn.Sequential(nn.utils.weight_norm(nn.Linear(4, 16)), nn.Tanh(), nn.utils.weight_norm(nn.Linear(16, 2)))
print(mlp)
print([name for name, _ in mlp.named_parameters()])
print("g of the first layer:", mlp[0].weight_g.shape, "v:", mlp[0].weight_v.shape)
print("grad_fn of the weight:", type(mlp[0].weight.grad_fn).__name__)
opt = torch.optim.SGD(mlp.parameters(), lr=0.5)
for step in range(30):
    loss = F.cross_entropy(mlp(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        acc = (mlp(X).argmax(1) == y).double().mean()
        print(f"step {step + 1}: loss {loss.item():.4f}, accuracy {acc.item():.3f}")
row_norms = mlp[0].weight.norm(dim=1)
print("row norms of the weight equal g:", torch.allclose(row_norms, mlp[0].weight_g.flatten()))
print("g:", [round(v, 4) for v in mlp[0].weight_g.flatten()[:4].tolist()])

newer = nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Linear(4, 16)), nn.Tanh(),
                      nn.utils.parametrizations.weight_norm(nn.Linear(16, 2)))
print(newer.load_state_dict(mlp.state_dict()))
print(sorted(newer.state_dict())[:3])
print("same outputs:", torch.allclose(newer(X), mlp(X)))
nn.utils.remove_weight_norm(mlp[0])
print("after remove:", [name for name, _ in mlp[0].named_parameters()], type(mlp[0].weight).__name__)

# -- 2. a spectrally normalized discriminator ---------------------------------------------------------------
disc = nn.Sequential(nn.utils.spectral_norm(nn.Linear(2, 32)), nn.LeakyReLU(0.2),
                     nn.utils.spectral_norm(nn.Linear(32, 1)))
real = torch.randn(128, 2) * 0.5 + torch.tensor([2.0, -1.0])
fake = torch.randn(128, 2)
d_opt = torch.optim.Adam(disc.parameters(), lr=1e-2, betas=(0.5, 0.999))
for step in range(20):
    d_loss = F.binary_cross_entropy_with_logits(disc(real), torch.ones(128, 1)) + \
        F.binary_cross_entropy_with_logits(disc(fake), torch.zeros(128, 1))
    d_opt.zero_grad()
    d_loss.backward()
    d_opt.step()
    if step % 5 == 4:
        sigma = torch.linalg.matrix_norm(disc[0].weight.detach(), ord=2)
        print(f"step {step + 1}: d_loss {d_loss.item():.4f}, largest singular value of the weight {sigma.item():.4f}")
state = disc.state_dict()
print(list(state))
print(state._metadata["0"])
print("grad_fn of the weight:", type(disc[0].weight.grad_fn).__name__,
      [type(fn).__name__ for fn, _ in disc[0].weight.grad_fn.next_functions])
u_before = disc[0].weight_u.clone()
disc.eval()
disc(real)
print("eval keeps u:", torch.equal(disc[0].weight_u, u_before))


# -- 3. folding batch norm into the convolution before it, for inference ----------------------------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4)
        self.conv2, self.bn2 = nn.Conv2d(4, 8, 3, bias=False), nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(x.mean((2, 3)))


net = Net()
images, labels = torch.randn(32, 1, 8, 8), torch.randint(0, 3, (32,))
n_opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    loss = F.cross_entropy(net(images), labels)
    n_opt.zero_grad()
    loss.backward()
    n_opt.step()
print(f"cnn loss after 5 steps: {loss.item():.4f}")
net.eval()
fused = Net().eval()
fused.load_state_dict(net.state_dict())
fused.conv1 = nn.utils.fuse_conv_bn_eval(net.conv1, net.bn1)
fused.conv2 = nn.utils.fuse_conv_bn_eval(net.conv2, net.bn2)
fused.bn1, fused.bn2 = nn.Identity(), nn.Identity()
print(fused)
print("fused bias of conv2:", [round(v, 4) for v in fused.conv2.bias[:3].tolist()])
print("same predictions:", torch.equal(fused(images).argmax(1), net(images).argmax(1)),
      "max difference below 1e-12:", (fused(images) - net(images)).abs().max().item() < 1e-12)


# -- 4. a load pre-hook that renames an older checkpoint's keys ------------------------------------------
def rename_old_keys(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
    for old, new in (("dense.", "fc."),):
        for key in [k for k in state_dict if k.startswith(prefix + old)]:
            state_dict[prefix + new + key[len(prefix + old):]] = state_dict.pop(key)


checkpoint = {k.replace("fc.", "dense."): v for k, v in net.state_dict().items()}
restored = Net()
print(restored.load_state_dict(checkpoint, strict=False).unexpected_keys)
restored.register_load_state_dict_pre_hook(rename_old_keys)
print(restored.load_state_dict(checkpoint))
print("restored equals trained:", torch.equal(restored.eval()(images), net(images)))
torch.set_default_dtype(torch.float32)
