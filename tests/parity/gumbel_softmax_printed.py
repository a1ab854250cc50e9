import torch
import torch.nn.functional as F
from torch.distributions import RelaxedBernoulli, RelaxedOneHotCategorical

# The Gumbel-softmax (our own program): F.gumbel_softmax soft and hard, and the relaxed distributions, with the
# gradients a discrete VAE's encoder gets through them.
torch.manual_seed(4)
logits = torch.randn(3, 5, requires_grad=True)
y = F.gumbel_softmax(logits, tau=0.5)
print(y, y.sum(-1))
h = F.gumbel_softmax(logits, tau=1.0, hard=True)
print(h, h.grad_fn)
(y[:, 0].sum() + (h * torch.arange(5.0)).sum()).backward()
print(logits.grad)
temp = torch.tensor(0.7)
rb = RelaxedBernoulli(temp, logits=torch.tensor([0.3, -1.0]))
s = rb.rsample((3,))
print(rb, s, rb.log_prob(torch.tensor([0.2, 0.9])), rb.support)
rc = RelaxedOneHotCategorical(temp, probs=torch.tensor([0.2, 0.3, 0.5]))
x = rc.rsample((2,))
print(rc, x, x.sum(-1), rc.log_prob(x), rc.probs)
print(F.gumbel_softmax(torch.zeros(2, 3), dim=0))
