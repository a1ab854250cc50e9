from itertools import count

import torch
import torch.nn.functional as F

# Fitting a polynomial with one linear layer, written the way PyTorch's regression example writes it
# (our own code): random batches from torch.randn, smooth L1 loss, a hand-written gradient step, and the
# learned and true functions printed with '{:+.2f}'. tests/test_parity_printed.py runs it whole under
# PyTorch and under minigrad (only the import lines changed) and compares the printed lines.

POLY_DEGREE = 4
torch.manual_seed(7)
W_target = torch.randn(POLY_DEGREE, 1) * 2
b_target = torch.randn(1) * 2


def make_features(x):
    """Columns x, x^2, x^3, x^4 for a column vector x."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(batch_size=16):
    random = torch.randn(batch_size)
    x = make_features(random)
    y = f(x)
    return x, y


fc = torch.nn.Linear(W_target.size(0), 1)
print(fc.weight.shape, W_target.size(), make_features(torch.tensor([0.5, -1.0])))

for batch_idx in count(1):
    batch_x, batch_y = get_batch()
    fc.zero_grad()
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    for param in fc.parameters():
        param.data.add_(-0.05 * param.grad)
    if batch_idx % 50 == 0:
        print('batch {}: loss {:.4f}'.format(batch_idx, loss))
    if loss < 1e-2 or batch_idx >= 300:
        break

print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))
