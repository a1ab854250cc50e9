import torch

# Double backward with custom autograd Functions, in the order of PyTorch's "Double Backward with Custom
# Functions" tutorial (our own program): a Function that saves its input, one that saves its output, one that
# saves intermediate results (returned as outputs, so that the backward's graph can use them), and one whose
# backward is not differentiable (once_differentiable); gradcheck and gradgradcheck on each, the gradients and
# second derivatives printed, and what a second backward through the last one says.


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Because we are saving one of the inputs use `save_for_backward`
        # Save non-tensors and non-inputs/non-outputs directly on ctx
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        # A function support double backward automatically if autograd
        # is able to record the computations performed in backward
        x, = ctx.saved_tensors
        return grad_out * 2 * x


# Use double precision because finite differencing method magnifies errors
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x))
# Use gradcheck to verify second-order derivatives
print(torch.autograd.gradgradcheck(Square.apply, x))
out = Square.apply(x)
grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
print(grad_x.grad_fn.name(), torch.allclose(grad_x, 2 * x))
grad_grad_x, = torch.autograd.grad(grad_x.sum(), x)
print(grad_grad_x)


class Exp(torch.autograd.Function):
    # Simple case where everything goes well
    @staticmethod
    def forward(ctx, x):
        # This time we save the output
        result = torch.exp(x)
        # Note that we should use `save_for_backward` here when
        # the tensor saved is an output (or an input).
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out


x = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
# Validate our gradients using gradcheck
print(torch.autograd.gradcheck(Exp.apply, x))
print(torch.autograd.gradgradcheck(Exp.apply, x))
y = Exp.apply(x)
g, = torch.autograd.grad(y, x, create_graph=True)
gg, = torch.autograd.grad(g, x)
print(y.item(), g.item(), gg.item())


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        # In order to be able to save the intermediate results, a trick is to
        # include them as our outputs, so that the backward graph is constructed
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        # We cannot skip accumulating these even though we won't use the outputs
        # directly. They will be used later in the second backward.
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    # Create a wrapper that only returns the first output
    return Sinh.apply(x)[0]


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(sinh, x))
print(torch.autograd.gradgradcheck(sinh, x))
out = sinh(x)
grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
print(torch.allclose(grad_x, torch.cosh(x)))
gg, = torch.autograd.grad(grad_x.sum(), x)
print(torch.allclose(gg, torch.sinh(x)))


class SinhBad(torch.autograd.Function):
    # This is an example of what NOT to do!
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.expx = expx
        ctx.expnegx = expnegx
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        expx = ctx.expx
        expnegx = ctx.expnegx
        grad_input = grad_out * (expx + expnegx) / 2
        return grad_input


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
out = SinhBad.apply(x)
grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
print(grad_x.grad_fn, torch.allclose(grad_x, torch.cosh(x)))  # right, but with no history to differentiate
try:
    # (minigrad's message differs: by its engine rule a gradient under create_graph=True always requires grad,
    # Paddle's, so it says x is not in the graph where PyTorch says the output does not require grad)
    torch.autograd.grad(grad_x.sum(), x)
except RuntimeError:
    print("RuntimeError: the intermediates kept on ctx carried no graph: no second derivative")


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)


class CubeBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return grad_out * 3 * x**2

    @staticmethod
    def backward(ctx, grad_out):
        x, grad_out_saved = ctx.saved_tensors
        return grad_out * 3 * x**2, grad_out * 6 * x * grad_out_saved


x = torch.tensor(2., requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Cube.apply, x))
print(torch.autograd.gradgradcheck(Cube.apply, x))
g, = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
gg, = torch.autograd.grad(g, x)
print(g.item(), gg.item(), type(g.grad_fn).__name__)


class OnlyOnce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * x.exp()


x = torch.tensor([0.5, 1.0], requires_grad=True, dtype=torch.double)
v = torch.ones(2, dtype=torch.double, requires_grad=True)  # a vector-Jacobian product by a v that requires grad
g, = torch.autograd.grad(OnlyOnce.apply(x), x, grad_outputs=v, create_graph=True)
print(g, g.grad_fn.name())
try:
    torch.autograd.grad(g.sum(), x)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
print(torch.autograd.gradcheck(OnlyOnce.apply, x))
try:
    g.sum().backward()  # reaches the Error node itself
except RuntimeError as e:  # (minigrad names the node that raised first: "in Error#7 (backward of ...): ")
    print("RuntimeError:", str(e).splitlines()[0].split("): ")[-1])
