"""A variational autoencoder on 8x8 digit-like images -- ordinary PyTorch code, run by leafgrad.

    PYTHONPATH=src python examples/vae.py

The MLP encoder gives a mean and log-variance, ``z = mu + eps * exp(logvar / 2)`` is the
reparameterisation trick (gradients reach mu and logvar through z), and the loss is the summed
binary cross-entropy of the reconstruction plus the Gaussian KL term, as in pytorch/examples' vae.
The noise ``eps`` can come from NumPy so torch and leafgrad runs see the same draws.
"""
import numpy as np


def make_vae(torch, d_in: int = 64, hidden: int = 32, latent: int = 4):
    nn, F = torch.nn, torch.nn.functional

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(d_in, hidden)
            self.fc_mu = nn.Linear(hidden, latent)
            self.fc_logvar = nn.Linear(hidden, latent)
            self.fc3 = nn.Linear(latent, hidden)
            self.fc4 = nn.Linear(hidden, d_in)

        def encode(self, x):
            h = F.relu(self.fc1(x))
            return self.fc_mu(h), self.fc_logvar(h)

        def reparameterize(self, mu, logvar, eps=None):
            std = torch.exp(0.5 * logvar)
            if eps is None:
                eps = torch.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

        def forward(self, x, eps=None):
            mu, logvar = self.encode(x.view(-1, d_in))
            return self.decode(self.reparameterize(mu, logvar, eps)), mu, logvar

    return VAE()


def loss_function(torch, recon, x, mu, logvar):
    bce = torch.nn.functional.binary_cross_entropy(recon, x.view_as(recon), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def images(n: int = 64, seed: int = 0) -> np.ndarray:
    """Blurry bars in [0, 1]: class k lights row k of an 8x8 image."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 0.15, size=(n, 8, 8))
    for i, k in enumerate(rng.integers(0, 8, size=n)):
        x[i, k, :] = 0.9
    return x.reshape(n, 64)


def train(torch, model, data: np.ndarray, steps: int = 10, batch: int = 16, lr: float = 1e-2,
          numpy_noise: bool = True, seed: int = 0, dtype=None):
    """Adam on minibatches; ``numpy_noise`` draws eps from NumPy (same for every library)."""
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    latent = model.fc_mu.out_features
    losses = []
    for step in range(steps):
        idx = rng.integers(0, len(data), size=batch)
        x = torch.tensor(data[idx], dtype=dtype)
        eps = torch.tensor(rng.standard_normal((batch, latent)), dtype=dtype) if numpy_noise else None
        opt.zero_grad()
        recon, mu, logvar = model(x, eps)
        loss = loss_function(torch, recon, x, mu, logvar)
        loss.backward()
        opt.step()
        losses.append(loss.item() / batch)
    return losses


if __name__ == "__main__":
    import leafgrad as torch

    torch.manual_seed(0)
    model = make_vae(torch)
    losses = train(torch, model, images(256).astype(np.float32), steps=150, numpy_noise=False,
                   dtype=torch.float32)
    print(f"loss per image {losses[0]:.2f} -> {losses[-1]:.2f}")
    with torch.no_grad():
        sample = model.decode(torch.randn(4, model.fc_mu.out_features))
    print("row means of a sample:", np.round(sample[0].view(8, 8).mean(1).numpy(), 2))
