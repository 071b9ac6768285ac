"""``nn.AdaptiveLogSoftmaxWithLoss``: Grave et al.'s adaptive softmax for large, Zipf-distributed
label sets. Frequent classes (below ``cutoffs[0]``) get a full softmax in the head, with one
extra head entry per cluster of rarer classes; each cluster has its own low-rank projection
(hidden size ``in_features // div_value**k``), evaluated only for the rows whose target falls in
it. The results are torch's; the graph differs in one place: rows are written into the output
by indexing (CopySlices) where torch uses ``index_copy_``, which leafgrad lacks.
"""
from __future__ import annotations

from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of the targets, and their mean negative (the loss), by adaptive softmax."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0, head_bias: bool = False,
                 device=None, dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        factory = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for k in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (k + 1)))
            size = self.cutoffs[k + 1] - self.cutoffs[k]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, size, bias=False, **factory)))

    def reset_parameters(self) -> None:
        """Re-initialise the head and every tail cluster's projections as at construction."""
        self.head.reset_parameters()
        for down, up in self.tail:
            down.reset_parameters()
            up.reset_parameters()

    def forward(self, input_, target_):
        tdim = target_.dim()
        if tdim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        elif tdim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = tdim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.size(0)
        output = input.new_zeros(n)
        head_index = target.clone()  # which head entry each row reads: its class, or its cluster's entry
        bounds = [0] + self.cutoffs
        covered = 0
        for k in range(len(bounds) - 1):
            low, high = bounds[k], bounds[k + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            covered += rows.numel()
            if k == 0:
                continue
            head_index[rows] = self.shortlist_size + k - 1
            logprob = F.log_softmax(self.tail[k - 1](input.index_select(0, rows)), dim=1)
            output[rows] = logprob.gather(1, (target[mask] - low).unsqueeze(1)).squeeze(1)
        if covered != n:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for k in range(self.n_clusters):
            cluster = F.log_softmax(self.tail[k](input), dim=1)
            parts.append(cluster + head_logprob[:, self.shortlist_size + k].unsqueeze(1))
        from ... import cat
        return cat(parts, dim=1)

    def log_prob(self, input):
        """Log-probabilities of all ``n_classes`` classes, (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row; rows whose head argmax is a class need no cluster."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        outside = output >= self.shortlist_size
        if not bool(outside.any()):
            return output
        if bool(outside.all()):
            return self._full_log_prob(input, head_output).argmax(dim=1)
        output[outside] = self._full_log_prob(input[outside], head_output[outside]).argmax(dim=1)
        return output
