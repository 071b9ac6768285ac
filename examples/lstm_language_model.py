"""An LSTM language model with truncated backpropagation through time -- ordinary PyTorch code.

    PYTHONPATH=src python examples/lstm_language_model.py

Embedding -> 2-layer ``nn.LSTM`` -> Linear decoder with tied sizes, trained by plain SGD on
word-level next-token loss the way pytorch/examples' word_language_model does: the corpus is cut
into ``batch`` columns, walked ``bptt`` tokens at a time, the hidden state is detached between
chunks (so gradients stop at the chunk edge) and ``clip_grad_norm_`` bounds each step. Every
function takes the library first, so the same code runs on torch for comparison.
"""
import numpy as np

CORPUS = ("the cat sat on the mat . the dog sat on the log . a cat saw a dog . "
          "the dog saw the cat on the mat . a log is not a mat . ") * 6


def tokenize(text: str = CORPUS):
    words = text.split()
    vocab = sorted(set(words))
    return np.array([vocab.index(w) for w in words], dtype=np.int64), vocab


def make_lm(torch, vocab: int, emsize: int = 16, nhid: int = 24, nlayers: int = 2, dropout: float = 0.0):
    nn = torch.nn

    class LSTMLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, emsize)
            self.rnn = nn.LSTM(emsize, nhid, nlayers, dropout=dropout)
            self.drop = nn.Dropout(dropout)
            self.decoder = nn.Linear(nhid, vocab)

        def forward(self, inp, hidden):
            out, hidden = self.rnn(self.drop(self.encoder(inp)), hidden)
            return self.decoder(self.drop(out)), hidden

        def init_hidden(self, bsz: int):
            w = next(self.parameters())
            return (w.new_zeros(nlayers, bsz, nhid), w.new_zeros(nlayers, bsz, nhid))

    return LSTMLM()


def batchify(torch, ids: np.ndarray, bsz: int):
    n = len(ids) // bsz
    return torch.tensor(ids[: n * bsz].reshape(bsz, n).T.copy())   # (time, batch)


def train(torch, model, ids, epochs: int = 1, bsz: int = 4, bptt: int = 8, lr: float = 1.0,
          clip: float = 0.25):
    """SGD written out by hand (p.add_(grad, alpha=-lr)) as the original does; return chunk losses."""
    data = batchify(torch, ids, bsz)
    ntok = model.decoder.out_features
    criterion = torch.nn.CrossEntropyLoss()
    losses = []
    model.train()
    for _ in range(epochs):
        hidden = model.init_hidden(bsz)
        for i in range(0, data.size(0) - 1, bptt):
            seq = min(bptt, data.size(0) - 1 - i)
            x, y = data[i:i + seq], data[i + 1:i + 1 + seq].reshape(-1)
            hidden = tuple(h.detach() for h in hidden)
            model.zero_grad()
            out, hidden = model(x, hidden)
            loss = criterion(out.view(-1, ntok), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            with torch.no_grad():
                for p in model.parameters():
                    p.add_(p.grad, alpha=-lr)
            losses.append(loss.item())
    return losses


if __name__ == "__main__":
    import math

    import leafgrad as torch

    torch.manual_seed(0)
    ids, vocab = tokenize()
    model = make_lm(torch, len(vocab))
    losses = train(torch, model, ids, epochs=6, lr=5.0)
    late = sum(losses[-5:]) / 5
    print(f"perplexity {math.exp(losses[0]):.1f} -> {math.exp(late):.1f} (last 5 chunks) over {len(losses)} chunks")
