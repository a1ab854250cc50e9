import warnings
import torch
from torch.distributions import Bernoulli, Categorical, Distribution, ExponentialFamily, Independent, Normal, Uniform, kl_divergence, register_kl


# The graphs torch.distributions builds (our own program): a VAE's KL and log-probability walked node by node,
# entropies, validation switched off and on, a KL registered for a subclass, expand.


def walk(fn, depth=0, seen=None):
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen or depth > 12:
        return
    seen.add(id(fn))
    print("  " * depth + type(fn).__name__)
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1, seen)


torch.manual_seed(3)
mu = torch.randn(2, 3, requires_grad=True)
logvar = torch.randn(2, 3, requires_grad=True)
std = torch.exp(0.5 * logvar)
q = Independent(Normal(mu, std), 1)
print(q)
z = q.rsample()
prior = Independent(Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
kl = kl_divergence(q, prior)
print(z, kl)
walk(kl.grad_fn)
lp = q.log_prob(z)
walk(lp.grad_fn)
(kl.sum() - lp.sum()).backward()
print(mu.grad, logvar.grad)
n = Normal(torch.tensor([0.3, -1.0]), torch.tensor([0.7, 1.3]))
print(ExponentialFamily.entropy(n), n.entropy())
print(kl_divergence(Bernoulli(torch.tensor([0.2, 0.0, 1.0])), Bernoulli(torch.tensor([0.5, 0.5, 0.0]))))
print(Normal(torch.tensor([0.0]), torch.tensor([-1.0]), validate_args=False).log_prob(torch.tensor([1.0])))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(n.sample_n(2).shape, [str(x.category.__name__) for x in w])
Distribution.set_default_validate_args(False)
print(Uniform(1.0, 0.0))
Distribution.set_default_validate_args(True)
lp_cat = Categorical(logits=torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True))
v = lp_cat.log_prob(torch.tensor([2, 0]))
print(v)
walk(v.grad_fn)
e = lp_cat.entropy()
walk(e.grad_fn)
b = Bernoulli(logits=torch.tensor([0.5, -0.5], requires_grad=True))
walk(b.log_prob(torch.tensor([1.0, 0.0])).grad_fn)
walk(b.entropy().grad_fn)


class MyNormal(Normal):
    pass


@register_kl(MyNormal, Normal)
def _kl_mine(p, q):
    return torch.zeros(p.batch_shape)


print(kl_divergence(MyNormal(0.0, 1.0), Normal(1.0, 1.0)), kl_divergence(Normal(0.0, 1.0), MyNormal(1.0, 1.0)))
try:
    MyNormal(0.0, 1.0).expand((2,))
    print("expanded")
except NotImplementedError as e:
    print("NotImplementedError:", e)
print(Normal(torch.zeros(2), 1.0).expand((3, 2)).log_prob(torch.zeros(3, 2)))
print(Categorical(torch.tensor([[0.2, 0.8], [0.5, 0.5]])).expand((3, 2)).sample().shape)
print(Independent(Normal(torch.zeros(3), torch.ones(3)), 1).support, Normal(0., 1.).support, Categorical(torch.ones(3)).support)
print(Normal(torch.zeros(3), torch.ones(3)).arg_constraints, Uniform(0., 1.).arg_constraints)
