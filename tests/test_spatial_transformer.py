"""PyTorch's Spatial Transformer Networks tutorial, written once for both frameworks (``lib`` is ``minigrad``
or ``torch``): a localization net gives each image an affine ``theta``, ``F.affine_grid`` and ``F.grid_sample``
warp the image, and a small CNN classifies it. From the same weights and the same batch, both frameworks must
give the same losses and gradients over a few SGD steps (the tutorial's identity-initialised ``theta`` moves
away from the identity after the first step, so the warp is a real one), and the graph must be PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _net(lib: Any) -> Any:
    nn = lib.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d()
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)
            # Spatial transformer localization-network
            self.localization = nn.Sequential(
                nn.Conv2d(1, 8, kernel_size=7), nn.MaxPool2d(2, stride=2), nn.ReLU(True),
                nn.Conv2d(8, 10, kernel_size=5), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
            # Regressor for the 3 * 2 affine matrix
            self.fc_loc = nn.Sequential(nn.Linear(10 * 3 * 3, 32), nn.ReLU(True), nn.Linear(32, 3 * 2))
            # Initialize the weights/bias with identity transformation
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(lib.tensor([1, 0, 0, 0, 1, 0], dtype=lib.float))

        def stn(self, x: Any) -> Any:
            xs = self.localization(x)
            xs = xs.view(-1, 10 * 3 * 3)
            theta = self.fc_loc(xs)
            theta = theta.view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size())
            return F.grid_sample(x, grid)

        def forward(self, x: Any) -> Any:
            x = self.stn(x)
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, training=self.training)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    return Net()


def _batch() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    images = np.zeros((4, 1, 28, 28), dtype=np.float32)
    images[:, :, 8:20, 10:18] = 1.0  # a bar, off centre: something for the transformer to move
    images += rng.normal(scale=0.3, size=images.shape).astype(np.float32)
    return images, rng.integers(0, 10, size=4)


def _steps(lib: Any, model: Any, images: np.ndarray, labels: np.ndarray, steps: int = 3) -> list[Any]:
    """The tutorial's training step (SGD, ``nll_loss``) in eval mode (no dropout draws): per step the loss and
    the gradients of every parameter, and theta's graph at the first step."""
    model.eval()
    optimizer = lib.optim.SGD(model.parameters(), lr=0.5)
    data, target = lib.tensor(images), lib.tensor(labels)
    record = []
    for _ in range(steps):
        optimizer.zero_grad()
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
            output = model(data)
        loss = lib.nn.functional.nll_loss(output, target)
        loss.backward()
        record.append((loss.item(), {k: p.grad.detach().numpy().copy() for k, p in model.named_parameters()}))
        optimizer.step()
    return record


def test_spatial_transformer_tutorial_matches_pytorch() -> None:
    torch.manual_seed(0)
    theirs = _net(torch)
    ours = _net(mg)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    images, labels = _batch()
    got, want = _steps(mg, ours, images, labels), _steps(torch, theirs, images, labels)
    for (loss, grads), (t_loss, t_grads) in zip(got, want):
        assert loss == pytest.approx(t_loss, rel=1e-5)
        assert list(grads) == list(t_grads)
        for name in grads:
            np.testing.assert_allclose(grads[name], t_grads[name], rtol=1e-3, atol=1e-5, err_msg=name)
    assert np.abs(got[-1][1]["fc_loc.2.weight"]).max() > 0  # theta learns: the warp takes part in the gradient


def test_spatial_transformer_graph_is_pytorchs() -> None:
    """The warped image's node, and the chain from it to theta's linear layer, as PyTorch's."""
    def chain(lib: Any, model: Any) -> list[Any]:
        with pytest.warns(UserWarning):
            warped = model.stn(lib.tensor(_batch()[0]))
        node, names = warped.grad_fn, []
        while node is not None:
            names.append((type(node).__name__, [type(f).__name__ if f is not None else None
                                                 for f, _ in node.next_functions]))
            node = node.next_functions[-1][0] if node.next_functions else None
        return names

    torch.manual_seed(0)
    theirs = _net(torch)
    ours = _net(mg)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    got = chain(mg, ours)
    assert got[:2] == [("GridSampler2DBackward0", [None, "AffineGridGeneratorBackward0"]),
                       ("AffineGridGeneratorBackward0", ["ViewBackward0"])]
    assert got == chain(torch, theirs)


# -- grid_sample and affine_grid alone, against PyTorch -------------------------------------------------------

def _edge_grid(k: int, rng: np.random.Generator) -> np.ndarray:
    """Points on the corners and edges (-1, 1), on pixel centres and borders, past the input, and random."""
    special = np.array([-1.0, 1.0, 0.0, -0.5, 0.5, 0.25, -1.25, 1.75, 3.5, -2.6])
    pts = np.concatenate([special, rng.uniform(-1.5, 1.5, size=14)])
    return np.stack([rng.permutation(pts) for _ in range(k)], -1).reshape((1,) + (4, 6, 1)[:k] + (k,))


@pytest.mark.parametrize("dims, mode", [(2, "bilinear"), (2, "nearest"), (2, "bicubic"), (3, "bilinear"),
                                        (3, "nearest")])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_values_and_gradients_at_the_edges(dims, mode, padding, align):
    """float64: values and both gradients equal PyTorch's, the borders, corners and points outside included;
    float32: close."""
    rng = np.random.default_rng(dims * 7 + len(mode) + len(padding) + align)
    x = rng.normal(size=(2, 3) + (3, 4, 5)[:dims])
    grid = np.concatenate([_edge_grid(dims, rng)] * 2)
    w = rng.normal(size=(2, 3) + grid.shape[1:-1])
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-5)):
        results = []
        for lib in (mg, torch):
            xt = lib.tensor(x.astype(dtype), requires_grad=True)
            gt = lib.tensor(grid.astype(dtype), requires_grad=True)
            y = lib.nn.functional.grid_sample(xt, gt, mode=mode, padding_mode=padding, align_corners=align)
            (y * lib.tensor(w.astype(dtype))).sum().backward()
            results.append([y.detach().numpy(), xt.grad.numpy(), gt.grad.numpy()])
        for ours, theirs, what in zip(*results, ("values", "input gradient", "grid gradient")):
            assert ours.dtype == theirs.dtype
            np.testing.assert_allclose(ours, theirs, rtol=tol * 10, atol=tol * 10, err_msg=f"{what} {dtype.__name__}")


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 1, 5), (2, 1, 3, 4, 2), (2, 1, 1, 1, 1)])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_values_and_gradient(size, align):
    k = len(size) - 2
    theta = np.random.default_rng(len(size)).normal(size=(2, k, k + 1))
    results = []
    for lib in (mg, torch):
        t = lib.tensor(theta, requires_grad=True)
        with pytest.warns(UserWarning) if align and min(size[2:]) == 1 else _nothing():
            g = lib.nn.functional.affine_grid(t, size, align_corners=align)
        (g * g).sum().backward()
        results.append([g.detach().numpy(), t.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _bad_calls(lib: Any) -> list[Any]:
    F = lib.nn.functional
    x, g = lib.zeros(2, 3, 4, 5), lib.zeros(2, 3, 3, 2)
    theta = lib.zeros(2, 2, 3)
    return [
        lambda: F.grid_sample(x, g.double(), align_corners=False),
        lambda: F.grid_sample(x, g[:1], align_corners=False),
        lambda: F.grid_sample(x, g[..., :1], align_corners=False),
        lambda: F.grid_sample(x[0], g[0], align_corners=False),
        lambda: F.grid_sample(x[:, :, :0], g, align_corners=False),
        lambda: F.grid_sample(x, g, mode="area", align_corners=False),
        lambda: F.grid_sample(x, g, padding_mode="wrap", align_corners=False),
        lambda: F.grid_sample(x.unsqueeze(2), lib.zeros(2, 1, 3, 3, 3), mode="bicubic", align_corners=False),
        lambda: F.grid_sample(x.long(), g.long(), align_corners=False),
        lambda: F.affine_grid(theta.long(), (2, 3, 4, 5), align_corners=False),
        lambda: F.affine_grid(theta, (2, 3, 4, 5, 6), align_corners=False),
        lambda: F.affine_grid(theta, (2, 3, 4), align_corners=False),
        lambda: F.affine_grid(theta, (2, 3, 0, 5), align_corners=False),
        lambda: F.affine_grid(theta[0], (2, 3, 4, 5), align_corners=False),
        lambda: F.affine_grid(theta, (3, 3, 4, 5), align_corners=False),
        lambda: F.grid_sample(x, lib.zeros(2, 1, 1, 1, 2), align_corners=False),
        lambda: F.grid_sample(lib.zeros(2, 3, 4, 5, 6, 7), lib.zeros(2, 1, 1, 1, 1, 4), align_corners=False),
    ]


@pytest.mark.parametrize("case", range(17))
def test_refused_calls_raise_pytorchs_errors(case):
    """The class and the words of PyTorch's error; a refused call makes no node."""
    errors = []
    for lib in (mg, torch):
        with pytest.raises(Exception) as info:
            _bad_calls(lib)[case]()
        errors.append(info.value)
    ours, theirs = errors
    assert isinstance(ours, type(theirs)), (ours, theirs)
    assert str(ours).replace("minigrad.", "torch.") == str(theirs)


def test_the_default_align_corners_warns_as_pytorch() -> None:
    for lib in (mg, torch):
        F = lib.nn.functional
        with pytest.warns(UserWarning, match=r"^Default grid_sample and affine_grid behavior has changed to "
                                             r"align_corners=False since 1\.3\.0\. Please specify align_corners=True "
                                             r"if the old behavior is desired\. See the documentation of grid_sample "
                                             r"for details\.$") as record:
            F.grid_sample(lib.zeros(1, 1, 2, 2), F.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2)))
        assert len(record) == 2 and record[0].filename == __file__


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_of_positions_that_are_no_number_or_huge(mode, padding):
    """NaN, infinite and huge positions read what PyTorch's CPU kernel reads: a NaN weight makes NaN, the border
    clips a NaN to 0, a tap past int range reads nothing."""
    grid = np.array([[[[np.nan, 0.2], [np.inf, -0.3], [0.5, -np.inf], [5e10, 0.1], [-0.2, -7e9]]]])
    if padding == "reflection":  # PyTorch's float32 reflection of a huge position is its rounding's: not followed
        grid = grid[..., :4, :]
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    for dtype in (np.float32, np.float64):
        ours, theirs = (lib.nn.functional.grid_sample(lib.tensor(x.astype(dtype)), lib.tensor(grid.astype(dtype)),
                                                      mode=mode, padding_mode=padding, align_corners=False).numpy()
                        for lib in (mg, torch))
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, equal_nan=True)


def test_grid_sampler_refuses_an_unknown_mode_number() -> None:
    """``torch.grid_sampler`` reads an unknown mode number as garbage; minigrad names the numbers it knows."""
    x, g = mg.zeros(1, 1, 2, 2), mg.zeros(1, 1, 1, 2)
    with pytest.raises(ValueError, match=r"grid_sampler\(\): interpolation_mode must be 0 \(bilinear\)"):
        mg.grid_sampler(x, g, 5, 0, False)
    with pytest.raises(ValueError, match=r"grid_sampler\(\): padding_mode must be 0 \(zeros\)"):
        mg.grid_sampler(x, g, 0, 7, False)
