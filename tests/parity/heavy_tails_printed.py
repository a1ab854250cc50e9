import torch
from torch.distributions import Cauchy, Geometric, Gumbel, HalfCauchy, HalfNormal

# Heavy tails, halves, maxima and waiting counts (our own program): Cauchy, HalfCauchy and HalfNormal priors,
# a Gumbel, a Geometric; draws, scores, moments and the errors a bad parameter gets.
torch.manual_seed(8)
c = Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(c, c.sample((3,)), c.rsample(), c.log_prob(torch.tensor([0.5, 2.0])), c.cdf(torch.tensor([0.5, 2.0])))
print(c.icdf(torch.tensor([0.25, 0.9])), c.entropy(), c.mean, c.variance, c.mode)
hc = HalfCauchy(torch.tensor([1.0, 2.0]), validate_args=False)
print(hc, hc.sample((2,)), hc.log_prob(torch.tensor([0.5, -1.0])), hc.cdf(torch.tensor([0.5, 3.0])), hc.entropy(), hc.mean)
hn = HalfNormal(torch.tensor([0.5, 2.0]))
print(hn, hn.support, hn.sample((2,)), hn.log_prob(torch.tensor([0.3, 1.0])), hn.mean, hn.variance, hn.entropy())
print(hn.icdf(torch.tensor([0.5, 0.9])), hn.cdf(torch.tensor([0.3, 1.0])))
g = Gumbel(torch.tensor([1.0, 0.0]), torch.tensor([2.0, 0.5]))
print(g, g.sample((3,)), g.log_prob(torch.tensor([0.0, 1.0])), g.mean, g.stddev, g.entropy(), g.cdf(torch.tensor([0.0, 1.0])))
print(Gumbel(0.0, 1.0).sample((4,)))
geo = Geometric(torch.tensor([0.2, 0.9]))
print(geo, geo.sample((4,)), geo.log_prob(torch.tensor([0.0, 3.0])), geo.mean, geo.variance, geo.entropy())
print(Geometric(logits=torch.tensor([0.0, -2.0])).probs, Geometric(torch.tensor([1.0])).log_prob(torch.tensor([0.0])))
p = torch.tensor([0.3], requires_grad=True)
lp = Geometric(p).log_prob(torch.tensor([2.0]))
lp.backward()
print(lp, p.grad)
for bad in [lambda: Geometric(torch.tensor([0.0, 0.5])), lambda: HalfNormal(-1.0), lambda: Cauchy(0.0, torch.tensor([-1.0])),
            lambda: Geometric(torch.tensor([0.5])).log_prob(torch.tensor([1.5]))]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
