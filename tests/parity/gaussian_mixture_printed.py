import torch
from torch.distributions import Categorical, Independent, MixtureSameFamily, MultivariateNormal, Normal

# A Gaussian mixture fitted by gradient descent (our own program), as a course's GMM lab writes it.
torch.manual_seed(11)
data = torch.cat([torch.randn(40, 2) * 0.5 + torch.tensor([2.0, 0.0]), torch.randn(60, 2) * 0.8 - 1.0])
logits = torch.zeros(3, requires_grad=True)
means = torch.randn(3, 2, requires_grad=True)
log_stds = torch.zeros(3, 2, requires_grad=True)
opt = torch.optim.Adam([logits, means, log_stds], lr=0.05)
for step in range(61):
    gmm = MixtureSameFamily(Categorical(logits=logits), Independent(Normal(means, log_stds.exp()), 1))
    nll = -gmm.log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 20 == 0:
        print(step, f"{nll.item():.4f}")
print(gmm)
print(gmm.batch_shape, gmm.event_shape, gmm.support)
print(nll.grad_fn, nll.grad_fn.next_functions)
print(gmm.mean.round(decimals=3), gmm.variance.round(decimals=3))
print(gmm.sample((5,)).round(decimals=3))
print(gmm.log_prob(torch.zeros(2)).round(decimals=3))
g1 = MixtureSameFamily(Categorical(torch.tensor([0.3, 0.7])), Normal(torch.tensor([-1.0, 1.0]), torch.tensor([0.5, 2.0])))
print(g1, g1.log_prob(torch.tensor([0.0, 1.0])), g1.cdf(torch.tensor([0.0, 1.0])), g1.mean, g1.variance, g1.sample((4,)))
g2 = MixtureSameFamily(Categorical(torch.ones(2, 3)), MultivariateNormal(torch.zeros(2, 3, 2), torch.eye(2)))
print(g2.batch_shape, g2.event_shape, g2.sample().shape, g2.log_prob(torch.ones(4, 2, 2)).shape)
for bad in [lambda: MixtureSameFamily(Normal(0.0, 1.0), Normal(torch.zeros(2), 1.0)),
            lambda: MixtureSameFamily(Categorical(torch.ones(3)), Normal(torch.zeros(2), 1.0)),
            lambda: MixtureSameFamily(Categorical(torch.ones(2)), 3),
            lambda: MixtureSameFamily(Categorical(torch.ones(2, 2)), Normal(torch.zeros(3, 2), 1.0))]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
