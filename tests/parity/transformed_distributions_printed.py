import torch
import torch.nn as nn
from torch.distributions import (AffineTransform, ComposeTransform, ExpTransform, LogNormal, Normal, SigmoidTransform,
                                 TanhTransform, TransformedDistribution, Uniform)
from torch.distributions.transforms import PowerTransform, SoftplusTransform, identity_transform

# Transformed distributions (our own program): a log-normal, a logistic from a uniform, and a squashed Gaussian
# policy as soft actor-critic writes it.
torch.manual_seed(2)
ln = LogNormal(torch.tensor([0.0, 0.5]), torch.tensor([1.0, 0.25]))
print(ln, ln.batch_shape, ln.support, ln.mean, ln.variance, ln.mode, ln.entropy())
print(ln.sample((3,)), ln.log_prob(torch.tensor([1.0, 2.0])), ln.cdf(torch.tensor([1.0, 2.0])), ln.icdf(torch.tensor([0.1, 0.9])))
logistic = TransformedDistribution(Uniform(0.0, 1.0), [SigmoidTransform().inv, AffineTransform(loc=1.0, scale=2.0)])
print(logistic, logistic.support, logistic.sample((4,)), logistic.log_prob(torch.tensor([0.0, 1.0, 3.0])))
t = ComposeTransform([ExpTransform(), AffineTransform(1.0, 3.0)])
print(t, t.inv, t.sign, t.domain, t.codomain, t(torch.tensor([0.0, 1.0])), t.inv(torch.tensor([4.0, 10.0])))
print(t.log_abs_det_jacobian(torch.tensor([0.0, 1.0]), t(torch.tensor([0.0, 1.0]))))
print(PowerTransform(torch.tensor(2.0))(torch.tensor([3.0])), SoftplusTransform().inv(torch.tensor([1.0])), identity_transform)


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 16), nn.ReLU())
        self.mu = nn.Linear(16, 2)
        self.log_std = nn.Linear(16, 2)

    def forward(self, obs):
        h = self.body(obs)
        std = self.log_std(h).clamp(-5, 2).exp()
        dist = TransformedDistribution(Normal(self.mu(h), std), [TanhTransform(cache_size=1)])
        action = dist.rsample()
        return action, dist.log_prob(action).sum(-1)


actor = Actor()
opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
obs = torch.randn(4, 3)
action, logp = actor(obs)
print(action.round(decimals=4), logp.round(decimals=4))
print(logp.grad_fn, logp.grad_fn.next_functions)
loss = (0.2 * logp - action.sum(-1)).mean()
opt.zero_grad()
loss.backward()
opt.step()
print(round(loss.item(), 4), actor.mu.weight.grad[0, :3].round(decimals=5))
try:
    TransformedDistribution(Normal(0.0, 1.0), "exp")
except ValueError as e:
    print("ValueError:", e)
try:
    LogNormal(0.0, 1.0).log_prob(torch.tensor(-1.0))
except ValueError as e:
    print("ValueError:", e)
