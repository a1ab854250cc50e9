import torch
import torch.nn as nn
import torch.nn.functional as F

# Channels-last memory format, in the order PyTorch's "Channels Last Memory Format" tutorial teaches it
# (our own program): strides of a batch of images in both formats, the checks, tensors made channels last,
# what keeps the format, then a small CNN converted to channels last and trained a few steps, printing
# where the format survives and where it ends. tests/test_parity_printed.py runs it whole under PyTorch
# and under minigrad (only the import lines changed) and compares the printed lines.

torch.manual_seed(0)
N, C, H, W = 8, 3, 16, 16

batch = torch.empty(N, C, H, W)
print("NCHW strides:", batch.stride())
batch = batch.to(memory_format=torch.channels_last)
print("shape kept:", tuple(batch.shape), "strides now:", batch.stride())
batch = batch.to(memory_format=torch.contiguous_format)
print("back to contiguous:", batch.stride())
batch = batch.contiguous(memory_format=torch.channels_last)
print("contiguous(channels_last):", batch.stride())
print("is channels last:", batch.is_contiguous(memory_format=torch.channels_last), "is contiguous:", batch.is_contiguous())

# one channel: both formats at once, and only `to` re-strides the size-1 dim
gray = torch.empty(4, 1, 5, 5)
print("gray is both:", gray.is_contiguous(memory_format=torch.channels_last),
      gray.is_contiguous(memory_format=torch.contiguous_format))
print("gray to / contiguous:", gray.to(memory_format=torch.channels_last).stride(),
      gray.contiguous(memory_format=torch.channels_last).stride())

made = torch.empty(N, C, H, W, memory_format=torch.channels_last)
print("empty(memory_format=...):", made.stride())
print("clone keeps it:", made.clone().stride())
print("float64 keeps it:", made.double().stride())
print("empty_like keeps it:", torch.empty_like(made).stride())
print("zeros_like(contiguous_format):", torch.zeros_like(made, memory_format=torch.contiguous_format).stride())
print("pointwise keeps it:", (made + torch.empty_like(made)).stride(), torch.relu(made).stride())
print("a slice:", made[:, :, ::2].stride(), "its empty_like:", torch.empty_like(made[:, :, ::2]).stride())


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.gn = nn.GroupNorm(4, 16)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x, report=False):
        steps = []
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        steps.append(("block 1", x))
        x = F.interpolate(x, scale_factor=0.5, mode="bilinear", align_corners=False)
        steps.append(("resized", x))
        x = self.pool(F.relu(self.gn(self.conv2(F.pad(x, (1, 1, 1, 1))))))
        steps.append(("block 2", x))
        x = F.adaptive_avg_pool2d(x, 4)
        steps.append(("pooled", x))
        flat = torch.flatten(x, 1)
        steps.append(("flattened", flat))
        if report:
            for name, t in steps:
                cl = t.is_contiguous(memory_format=torch.channels_last) if t.dim() == 4 else "-"
                print(f"  {name:10s} {tuple(t.shape)} strides {t.stride()} channels last: {cl}")
        return self.head(flat)


model = SmallNet()
model = model.to(memory_format=torch.channels_last)
print("conv1.weight:", model.conv1.weight.stride(), model.conv1.weight.is_contiguous(memory_format=torch.channels_last))
print("head.weight untouched:", model.head.weight.stride())

images = torch.randint(0, 10, (N, C, H, W), dtype=torch.float32, requires_grad=True)
images = images.to(memory_format=torch.channels_last)
labels = torch.randint(0, 10, (N,))
print("input:", images.stride(), "from a leaf:", images.is_leaf)
print("a channels-last input:")
model(images, report=True)
print("a contiguous input, channels-last weights:")
model(images.contiguous(), report=True)

# the training data needs no gradient (minigrad, as Paddle, refuses a second backward through the
# released `to` node; PyTorch allows it for a node that saved nothing)
data = images.detach() / 10
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(data), labels)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
print("conv1.weight.grad:", model.conv1.weight.grad.stride())
print("conv2.weight.grad:", model.conv2.weight.grad.stride())
print("bn1.weight.grad:", model.bn1.weight.grad.stride(), "head.weight.grad:", model.head.weight.grad.stride())
print("conv1.weight after the steps:", model.conv1.weight.stride())
