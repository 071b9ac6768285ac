"""Stochastic weight averaging on a small classifier -- ordinary PyTorch code, run by leafgrad.

    PYTHONPATH=src python examples/swa_training.py

The recipe of torch's SWA tutorial: train with SGD under cosine annealing, then from
``swa_start`` keep a running average of the weights (``AveragedModel``) while ``SWALR``
holds the rate at ``swa_lr``; finally recompute BatchNorm's statistics for the averaged
weights with ``update_bn``. ``train`` takes the library as an argument, so the same
function runs on torch for comparison (weights and data come from NumPy).
"""
import numpy as np


def train(torch, epochs: int = 8, swa_start: int = 5, seed: int = 0, verbose: bool = False):
    """Return (per-epoch training loss, the averaged model's test accuracy, its outputs)."""
    nn = torch.nn
    swa_utils = torch.optim.swa_utils
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((3, 4)) * 2
    labels = rng.integers(0, 3, 240)
    points = centers[labels] + rng.standard_normal((240, 4))
    x, y = torch.tensor(points), torch.tensor(labels)
    batches = [(x[i:i + 40], y[i:i + 40]) for i in range(0, 200, 40)]  # a fixed order: same in both libraries
    test_x, test_y = x[200:], y[200:]

    model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3)).double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.4))

    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    swa_model = swa_utils.AveragedModel(model)
    swa_scheduler = swa_utils.SWALR(optimizer, swa_lr=0.02, anneal_epochs=2)

    losses = []
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for inputs, targets in batches:
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            total += loss.item()
        losses.append(total / len(batches))
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()
        if verbose:
            print(f"epoch {epoch}: loss {losses[-1]:.4f}, lr {optimizer.param_groups[0]['lr']:.4f}")

    swa_utils.update_bn([inputs for inputs, _ in batches], swa_model)
    swa_model.eval()
    with torch.no_grad():
        outputs = swa_model(test_x)
    accuracy = (outputs.argmax(1) == test_y).double().mean().item()
    return losses, accuracy, outputs.numpy().copy()


if __name__ == "__main__":
    import leafgrad

    losses, accuracy, _ = train(leafgrad, verbose=True)
    print(f"averaged model: test accuracy {accuracy:.2%}")
