import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Bernoulli, Categorical, Independent, Normal, OneHotCategorical, Uniform, kl_divergence
from torch.distributions import constraints

# torch.distributions as a course meets them (our own program): Normal, Categorical, Bernoulli, Uniform,
# Independent, OneHotCategorical, their draws, scores, errors and KL divergences, then a REINFORCE step.
torch.manual_seed(0)
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(n, n.batch_shape, n.event_shape, n.mean, n.stddev, n.variance)
print(Normal(0.0, 1.0), Normal(torch.tensor(0.5), 2.0))
s = n.sample()
print(s, n.sample((3,)))
loc = torch.tensor([0.5, -0.5], requires_grad=True)
scale = torch.tensor([1.5, 0.5], requires_grad=True)
m = Normal(loc, scale)
r = m.rsample((4,))
print(r)
lp = m.log_prob(r)
print(lp)
lp.sum().backward()
print(loc.grad, scale.grad)
print(m.entropy(), m.cdf(torch.tensor([0.0, 0.0])), m.icdf(torch.tensor([0.25, 0.75])))
print(m.entropy().grad_fn, lp.grad_fn, r.grad_fn, m.sample().requires_grad)
print(kl_divergence(m, Normal(0.0, 1.0)))
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print("ValueError:", e)
try:
    m.log_prob(torch.zeros(3))
except ValueError as e:
    print("ValueError:", e)

logits = torch.randn(2, 4, requires_grad=True)
c = Categorical(logits=logits)
print(c, c.batch_shape, c.event_shape, c.probs, c.logits)
a = c.sample()
print(a, c.sample((5,)), c.sample((2, 3)).shape)
print(c.log_prob(a), c.entropy(), c.mode, c.mean, c.support, c.enumerate_support())
loss = -(c.log_prob(a) * torch.tensor([1.0, -2.0])).sum()
loss.backward()
print(logits.grad, loss.grad_fn)
p = Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))
print(p, p.probs, p.logits, p.sample((6,)), p.log_prob(torch.tensor([0, 2])), p.perplexity())
print(kl_divergence(p, Categorical(probs=torch.tensor([0.0, 0.5, 0.5]))))
print(kl_divergence(Categorical(probs=torch.tensor([0.0, 0.5, 0.5])), p))
try:
    Categorical(probs=torch.tensor([0.2, -0.3, 0.5]))
except ValueError as e:
    print("ValueError:", e)
try:
    Categorical(torch.tensor([0.5, 0.5]), torch.tensor([0.0, 0.0]))
except ValueError as e:
    print("ValueError:", e)
try:
    p.log_prob(torch.tensor([3]))
except ValueError as e:
    print("ValueError:", e)

b = Bernoulli(probs=torch.tensor([0.1, 0.5, 0.9]))
print(b, b.sample(), b.sample((2,)), b.log_prob(torch.tensor([1.0, 0.0, 1.0])), b.entropy(), b.mode, b.variance)
bl = Bernoulli(logits=torch.tensor([-1.0, 2.0]))
print(bl, bl.probs, bl.enumerate_support(), kl_divergence(b, Bernoulli(0.5)))
print(Bernoulli(0.3), Bernoulli(0.3).sample((4,)))
try:
    b.log_prob(torch.tensor([0.5, 0.0, 1.0]))
except ValueError as e:
    print("ValueError:", e)

u = Uniform(torch.tensor([0.0, 1.0]), torch.tensor([2.0, 5.0]))
print(u, u.sample(), u.rsample((2,)), u.log_prob(torch.tensor([1.0, 4.0])), u.entropy(), u.mean, u.stddev, u.cdf(torch.tensor([1.0, 2.0])))
print(kl_divergence(Uniform(0.0, 1.0), Uniform(-1.0, 2.0)), kl_divergence(Uniform(0.0, 1.0), Normal(0.0, 1.0)))
try:
    Uniform(1.0, 0.0)
except ValueError as e:
    print("ValueError:", e)

d = Independent(Normal(torch.zeros(3, 2), torch.ones(3, 2)), 1)
print(d, d.batch_shape, d.event_shape, d.log_prob(torch.ones(3, 2)), d.sample().shape, d.entropy())
print(kl_divergence(d, Independent(Normal(torch.ones(3, 2), 2 * torch.ones(3, 2)), 1)))
oh = OneHotCategorical(probs=torch.tensor([0.1, 0.2, 0.7]))
print(oh, oh.sample(), oh.sample((3,)), oh.log_prob(torch.tensor([0.0, 0.0, 1.0])), oh.mode, oh.enumerate_support())
print(constraints.positive, constraints.real, constraints.simplex, constraints.unit_interval, constraints.real_vector,
      constraints.integer_interval(0, 3), constraints.boolean, constraints.one_hot, constraints.greater_than(2))
ex = n.expand((3, 2))
print(ex, ex.batch_shape, ex.sample().shape)
try:
    kl_divergence(b, n)
except NotImplementedError as e:
    print("NotImplementedError:", e)

# a REINFORCE step
policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
state = torch.randn(5, 4)
probs = F.softmax(policy(state), dim=1)
dist = Categorical(probs)
action = dist.sample()
returns = torch.tensor([1.0, 0.5, 0.25, 0.125, 0.0625])
returns = (returns - returns.mean()) / (returns.std() + 1e-8)
loss = (-dist.log_prob(action) * returns).sum()
opt.zero_grad()
loss.backward()
opt.step()
print(action, loss, policy[0].weight.grad[0, :2])
