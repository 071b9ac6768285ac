# An ordinary unannotated nn + optim script (a classifier, as a PyTorch user writes one): plain `mypy`
# must accept it.
import os
import tempfile

import leafgrad as torch
import leafgrad.nn.functional as F
from leafgrad import nn, optim
from leafgrad.optim import lr_scheduler
from leafgrad.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, n_in, n_classes):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 16)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


torch.manual_seed(0)
x = torch.randn(64, 4)
labels = (x[:, 0] > 0).long()
loader = DataLoader(TensorDataset(x, labels), batch_size=16, shuffle=True)
model = Classifier(4, 2)
loss_fn = nn.CrossEntropyLoss()
opt = optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(3):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    sched.step()
model.eval()
with torch.no_grad():
    acc = (model(x).argmax(dim=1) == labels).float().mean().item()
path = os.path.join(tempfile.mkdtemp(), "model.pt")
torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
state = torch.load(path)
model.load_state_dict(state["model"])
opt.load_state_dict(state["opt"])
print(acc, sched.get_last_lr(), sum(p.numel() for p in model.parameters()), F.softmax(model(x[:2]), dim=1))
