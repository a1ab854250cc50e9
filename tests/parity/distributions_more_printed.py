import torch
from torch.distributions import Exponential, Laplace, MultivariateNormal, kl_divergence

# More of torch.distributions (our own program): a MultivariateNormal given by covariance, scale_tril and precision,
# its scores and gradients, KL divergences, refused parameters; Exponential and Laplace.
torch.manual_seed(5)
A = torch.randn(3, 3, dtype=torch.float64)
cov = A @ A.T + 0.5 * torch.eye(3, dtype=torch.float64)
loc = torch.randn(3, dtype=torch.float64, requires_grad=True)
cov.requires_grad_()
m = MultivariateNormal(loc, covariance_matrix=cov)
print(m, m.batch_shape, m.event_shape)
print(m.scale_tril, m.precision_matrix, m.variance, m.entropy())
x = m.rsample((4,))
lp = m.log_prob(x)
print(x, lp)
lp.sum().backward()
print(loc.grad, cov.grad)
mb = MultivariateNormal(torch.zeros(2, 3, dtype=torch.float64), scale_tril=torch.linalg.cholesky(cov).expand(2, 3, 3))
print(mb, mb.log_prob(torch.ones(5, 2, 3, dtype=torch.float64)), mb.sample((2,)).shape)
mp = MultivariateNormal(torch.zeros(3, dtype=torch.float64), precision_matrix=torch.linalg.inv(cov.detach()))
print(mp.scale_tril, mp.covariance_matrix)
print(kl_divergence(m, mp), kl_divergence(mb, m))
for bad in [lambda: MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
            lambda: MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 1.0], [0.0, 1.0]])),
            lambda: MultivariateNormal(torch.zeros(2), torch.eye(2), scale_tril=torch.eye(2)),
            lambda: MultivariateNormal(torch.tensor(0.0), torch.eye(2)),
            lambda: MultivariateNormal(torch.zeros(2), covariance_matrix=torch.ones(2)),
            lambda: MultivariateNormal(torch.zeros(2), torch.eye(2)).log_prob(torch.zeros(3)),
            lambda: MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 0.5], [0.4, 1.0]]))]:
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
e = Exponential(torch.tensor([0.5, 2.0]))
print(e, e.sample((3,)), e.rsample(), e.log_prob(torch.tensor([1.0, 0.1])), e.entropy(), e.cdf(torch.tensor([1.0, 1.0])), e.mean)
lap = Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(lap, lap.sample((3,)), lap.log_prob(torch.tensor([0.3, 0.3])), lap.entropy(), lap.cdf(torch.tensor([0.3, 2.0])), lap.icdf(torch.tensor([0.2, 0.9])))
print(kl_divergence(e, Exponential(1.0)), kl_divergence(lap, Laplace(0.0, 2.0)))
try:
    Exponential(torch.tensor([-1.0]))
except ValueError as err:
    print(err)
print(kl_divergence(MultivariateNormal(torch.zeros(3), torch.eye(3)), MultivariateNormal(torch.ones(3), 2 * torch.eye(3))))
