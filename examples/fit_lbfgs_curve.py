"""Fit a small network to a noisy sine curve with L-BFGS -- ordinary PyTorch code, run by leafgrad.

    PYTHONPATH=src python examples/fit_lbfgs_curve.py

Full-batch problems with smooth losses are where L-BFGS shines: each ``optimizer.step``
takes a closure that recomputes the loss and its gradient, and runs up to ``max_iter``
quasi-Newton iterations with a strong-Wolfe line search. ``fit`` takes the library as an
argument, so the same function runs on torch (``fit(torch)``) for comparison; the weights
start from NumPy so both libraries start alike.
"""
import numpy as np


def fit(torch, steps: int = 8, hidden: int = 16, seed: int = 0, verbose: bool = False):
    """Return (losses per step, final parameters as arrays)."""
    nn = torch.nn
    rng = np.random.default_rng(seed)
    x = np.linspace(-3, 3, 64).reshape(-1, 1)
    y = np.sin(x) + 0.05 * rng.standard_normal(x.shape)
    inputs, targets = torch.tensor(x), torch.tensor(y)

    model = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, 1)).double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))

    criterion = nn.MSELoss()
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=20, history_size=10,
                                  line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        return loss

    losses = []
    for step in range(steps):
        losses.append(optimizer.step(closure).item())
        if verbose:
            print(f"step {step}: loss {losses[-1]:.6f}")
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


if __name__ == "__main__":
    import leafgrad

    losses, _ = fit(leafgrad, verbose=True)
    print(f"final loss {losses[-1]:.6f} (the noise alone is about {0.05 ** 2:.4f})")
