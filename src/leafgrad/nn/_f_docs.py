"""Docstrings of ``leafgrad.nn.functional``'s functions, in one table, applied at import.

Why a table: several branches edit ``functional.py`` at once; keeping the prose here keeps
those merges clean. A docstring written in the source wins (``apply`` only fills blanks).
Every example is run by ``tests/docs/test_docstrings.py`` (doctest), so it stays true.
"""
from __future__ import annotations

import inspect

__all__ = ["DOCS", "SECTIONS", "apply"]

DOCS: dict = {}

DOCS["bilinear"] = """\
A bilinear form of two inputs: ``y[n, k] = x1[n] @ weight[k] @ x2[n] + bias[k]``.

Args:
    input1: ``(N, *, in1)``.
    input2: ``(N, *, in2)``, the same leading dims.
    weight: ``(out, in1, in2)``.
    bias: optional ``(out,)``.

Returns:
    a tensor of shape ``(N, *, out)``.

Autograd:
    composed from matmuls and a sum as torch's CPU kernel is, so the result's grad_fn is ``AddBackward0``
    with a bias; gradients reach both inputs, the weight and the bias.

Example::

    >>> x1, x2 = leafgrad.ones(2, 3), leafgrad.ones(2, 4)
    >>> w = leafgrad.ones(5, 3, 4, requires_grad=True)
    >>> F.bilinear(x1, x2, w, leafgrad.zeros(5)).grad_fn.name()
    'AddBackward0'
    >>> F.bilinear(x1, x2, w).shape
    torch.Size([2, 5])
"""

DOCS["conv1d"] = """\
A 1-d convolution (cross-correlation, like torch) over ``(N, C_in, L)`` or unbatched ``(C_in, L)`` input.

Args:
    input: the signal.
    weight: ``(C_out, C_in / groups, kW)``.
    bias: optional ``(C_out,)``.
    stride, padding, dilation: ints or 1-tuples; padding may also be ``'valid'`` or ``'same'``.
    groups: split the channels into this many independent convolutions.

Returns:
    ``(N, C_out, L_out)`` (no batch dim if the input had none).

Autograd:
    records ``ConvolutionBackward0``, which saves the input and weight and gives gradients for input, weight
    and bias (twice differentiable).

Example::

    >>> x = leafgrad.ones(1, 2, 5)
    >>> w = leafgrad.ones(3, 2, 3, requires_grad=True)
    >>> y = F.conv1d(x, w, padding=1)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 3, 5]), 'ConvolutionBackward0')
"""

DOCS["conv2d"] = """\
A 2-d convolution (cross-correlation, like torch) over ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``
input.

Args:
    input: the image batch.
    weight: ``(C_out, C_in / groups, kH, kW)``.
    bias: optional ``(C_out,)``.
    stride, padding, dilation: ints or pairs; padding may also be ``'valid'`` or ``'same'``.
    groups: split the channels into this many independent convolutions.

Returns:
    ``(N, C_out, H_out, W_out)`` (no batch dim if the input had none).

Autograd:
    records ``ConvolutionBackward0``, which saves the input and weight and gives gradients for input, weight
    and bias (twice differentiable).

Example::

    >>> x = leafgrad.ones(1, 3, 8, 8)
    >>> w = leafgrad.ones(4, 3, 3, 3, requires_grad=True)
    >>> y = F.conv2d(x, w, stride=2)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 4, 3, 3]), 'ConvolutionBackward0')
"""

DOCS["max_pool2d"] = """\
The maximum over each ``kernel_size`` window of a ``(N, C, H, W)`` or ``(C, H, W)`` input.

Args:
    kernel_size: int or pair.
    stride: defaults to ``kernel_size``.
    padding: implicit ``-inf`` padding on each side (at most half the kernel).
    dilation: spacing between window elements.
    ceil_mode: round the output size up instead of down.
    return_indices: also return the flat index of each maximum (for ``max_unpool2d``).

Returns:
    the pooled tensor, or ``(pooled, indices)`` with ``return_indices=True``.

Autograd:
    records ``MaxPool2DWithIndicesBackward0``, which saves the input and the indices and routes each
    gradient to the element that was the maximum.

Example::

    >>> x = leafgrad.arange(16.).reshape(1, 1, 4, 4).requires_grad_()
    >>> F.max_pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]], grad_fn=<MaxPool2DWithIndicesBackward0>)
"""

DOCS["avg_pool2d"] = """\
The mean over each ``kernel_size`` window of a ``(N, C, H, W)`` or ``(C, H, W)`` input.

Args:
    kernel_size: int or pair.
    stride: defaults to ``kernel_size``.
    padding: implicit zero padding on each side.
    ceil_mode: round the output size up instead of down.
    count_include_pad: whether the zero padding counts in the divisor.
    divisor_override: divide by this instead of the window size.

Returns:
    the pooled tensor.

Autograd:
    records ``AvgPool2DBackward0``, which saves the input: each gradient is spread evenly over its window.

Example::

    >>> x = leafgrad.arange(16.).reshape(1, 1, 4, 4).requires_grad_()
    >>> F.avg_pool2d(x, 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]], grad_fn=<AvgPool2DBackward0>)
"""

DOCS["adaptive_avg_pool2d"] = """\
Average pooling whose windows are chosen so the output has exactly ``output_size``.

Args:
    input: ``(N, C, H, W)`` or ``(C, H, W)``.
    output_size: an int or a pair; ``None`` in a pair keeps that input size.

Returns:
    ``(N, C, *output_size)``.

Autograd:
    records ``AdaptiveAvgPool2DBackward0``; window ``i`` covers rows ``floor(i*H/out)`` to
    ``ceil((i+1)*H/out)``, as in torch, so windows may overlap.

Example::

    >>> x = leafgrad.ones(1, 2, 5, 7, requires_grad=True)
    >>> y = F.adaptive_avg_pool2d(x, (2, 3))
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 2, 2, 3]), 'AdaptiveAvgPool2DBackward0')
"""

DOCS["embedding"] = """\
Look up rows of ``weight`` by integer index: ``weight[input]``.

Args:
    input: an integer tensor of indices, any shape.
    weight: ``(num_embeddings, embedding_dim)``.
    padding_idx: the row at this index gets no gradient.
    max_norm: rows looked up are first renormalised in place (under no_grad) to at most this norm.
    norm_type: the p of that norm.
    scale_grad_by_freq: divide each row's gradient by how often it occurs in the batch.
    sparse: accepted, but leafgrad has no sparse layout: the weight's gradient is the dense tensor of the
        values of torch's sparse_coo one (zero rows where no index looked up), which every optimizer takes
        (torch's Adam, AdamW and RMSprop refuse a sparse gradient). The first call with ``sparse=True``
        warns once (UserWarning); with ``scale_grad_by_freq=True`` the backward refuses, as torch's.

Returns:
    a tensor of shape ``input.shape + (embedding_dim,)``.

Autograd:
    records ``EmbeddingBackward0``, which saves the indices and scatter-adds the gradient into the looked-up
    rows of ``weight``.

Example::

    >>> w = leafgrad.arange(6.).reshape(3, 2).requires_grad_()
    >>> F.embedding(leafgrad.tensor([2, 0]), w)
    tensor([[4., 5.],
            [0., 1.]], grad_fn=<EmbeddingBackward0>)
"""

DOCS["dropout1d"] = """\
Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input with probability ``p`` while training, scaling
the kept ones by ``1/(1-p)``.

Args:
    p: the probability a channel is zeroed.
    training: with ``False`` the input is returned unchanged.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    a multiplication by a random 0/scale mask, one value per channel: ``MulBackward0``.

Example::

    >>> x = leafgrad.ones(2, 3, 4, requires_grad=True)
    >>> F.dropout1d(x, 0.5, training=False) is x
    True
    >>> F.dropout1d(x, 0.5).grad_fn.name()
    'MulBackward0'
"""

DOCS["dropout2d"] = """\
Zero whole channels (feature maps) of a ``(N, C, H, W)`` or ``(C, H, W)`` input with probability ``p`` while
training, scaling the kept ones by ``1/(1-p)``.

Other shapes follow torch's legacy rules: they only warn, and any input of 2 or more dims drops whole
``(dim 0, dim 1)`` slices, so a 3-D input is read as ``(N, C, L)`` and a 2-D one is dropped elementwise
(pytorch/examples' mnist_rnn feeds it 2-D activations).

Args:
    p: the probability a channel is zeroed.
    training: with ``False`` the input is returned unchanged.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    a multiplication by a random 0/scale mask, one value per channel: ``MulBackward0``.

Example::

    >>> x = leafgrad.ones(2, 3, 4, 4, requires_grad=True)
    >>> F.dropout2d(x, 0.25).grad_fn.name()
    'MulBackward0'
"""

DOCS["batch_norm"] = """\
Normalise each channel (dim 1) by its mean and variance, then scale by ``weight`` and shift by ``bias``.

Args:
    input: ``(N, C, *)``.
    running_mean, running_var: ``(C,)`` buffers; while training they are updated in place with ``momentum``
        (the variance unbiased); otherwise they are the statistics used.
    weight, bias: optional ``(C,)`` affine parameters.
    training: use the batch's statistics (and update the running ones).
    momentum: weight of the new batch in the running averages.
    eps: added to the variance before the square root.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``NativeBatchNormBackward0``, which saves the input, weight, running buffers, and the batch mean
    and inverse std; gradients reach input, weight and bias. The running buffers get no gradient and their
    version counters go up.

Example::

    >>> x = leafgrad.arange(8.).reshape(4, 2).requires_grad_()
    >>> rm, rv = leafgrad.zeros(2), leafgrad.ones(2)
    >>> y = F.batch_norm(x, rm, rv, training=True)
    >>> y.grad_fn.name(), rm
    ('NativeBatchNormBackward0', tensor([0.3000, 0.4000]))
"""

DOCS["layer_norm"] = """\
Normalise over the last ``len(normalized_shape)`` dims of each sample, then apply the optional elementwise
affine.

Args:
    input: ``(*, *normalized_shape)``.
    normalized_shape: the trailing shape to normalise over.
    weight, bias: optional tensors of ``normalized_shape``.
    eps: added to the (biased) variance before the square root.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``NativeLayerNormBackward0``, which saves the input, weight, mean and inverse std (twice
    differentiable).

Example::

    >>> x = leafgrad.tensor([[1., 2., 3.]], requires_grad=True)
    >>> F.layer_norm(x, (3,))
    tensor([[-1.2247,  0.0000,  1.2247]], grad_fn=<NativeLayerNormBackward0>)
"""

DOCS["relu"] = """\
``max(input, 0)`` elementwise.

Args:
    input: any floating tensor.
    inplace: write the result into ``input`` (same as ``relu_``).

Returns:
    the rectified tensor (``input`` itself with ``inplace=True``).

Autograd:
    records ``ReluBackward0``, which saves the result: the gradient passes where the result is positive.

Example::

    >>> x = leafgrad.tensor([-1., 0.5, 2.], requires_grad=True)
    >>> F.relu(x)
    tensor([0.0000, 0.5000, 2.0000], grad_fn=<ReluBackward0>)
"""

DOCS["relu_"] = """\
In-place ``relu``: ``input`` becomes ``max(input, 0)``.

Args:
    input: a tensor autograd allows to be written (not a leaf that requires grad, nor a view of one).

Returns:
    ``input`` itself, its version counter bumped.

Autograd:
    the tensor's grad_fn becomes ``ReluBackward0`` (saving the result); writing into a leaf that requires
    grad raises RuntimeError.

Example::

    >>> x = leafgrad.tensor([-1., 0.5, 2.], requires_grad=True)
    >>> y = x * 1
    >>> F.relu_(y) is y, y
    (True, tensor([0.0000, 0.5000, 2.0000], grad_fn=<ReluBackward0>))
"""

DOCS["relu6"] = """\
``min(max(input, 0), 6)`` elementwise: ``hardtanh`` with bounds 0 and 6.

Args:
    input: any floating tensor.
    inplace: write the result into ``input``.

Returns:
    the clipped tensor.

Autograd:
    records ``HardtanhBackward0`` as torch does (relu6 is hardtanh(0, 6)); the gradient passes strictly
    inside (0, 6).

Example::

    >>> F.relu6(leafgrad.tensor([-1., 3., 9.], requires_grad=True))
    tensor([0., 3., 6.], grad_fn=<HardtanhBackward0>)
"""

DOCS["hardtanh"] = """\
Clip elementwise to ``[min_val, max_val]``.

Args:
    input: any floating tensor.
    min_val, max_val: the bounds (``min_val <= max_val``).
    inplace: write the result into ``input``.

Returns:
    the clipped tensor.

Autograd:
    records ``HardtanhBackward0``, which saves the input: the gradient passes strictly between the bounds,
    zero elsewhere.

Example::

    >>> F.hardtanh(leafgrad.tensor([-2., 0.5, 2.], requires_grad=True))
    tensor([-1.0000,  0.5000,  1.0000], grad_fn=<HardtanhBackward0>)
"""

DOCS["gelu"] = """\
The Gaussian error linear unit ``x * Phi(x)`` (``Phi`` the standard normal CDF), or its tanh approximation.

Args:
    input: any floating tensor.
    approximate: ``'none'`` (exact, erf) or ``'tanh'``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``GeluBackward0``, which saves the input (twice differentiable).

Example::

    >>> F.gelu(leafgrad.tensor([-1., 0., 1.], requires_grad=True))
    tensor([-0.1587,  0.0000,  0.8413], grad_fn=<GeluBackward0>)
"""

DOCS["silu"] = """\
The sigmoid-weighted linear unit (swish): ``x * sigmoid(x)``.

Args:
    input: any floating tensor.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``SiluBackward0``, which saves the input.

Example::

    >>> F.silu(leafgrad.tensor([-1., 0., 1.], requires_grad=True))
    tensor([-0.2689,  0.0000,  0.7311], grad_fn=<SiluBackward0>)
"""

DOCS["leaky_relu"] = """\
``x`` where positive, ``negative_slope * x`` elsewhere.

Args:
    input: any floating tensor.
    negative_slope: the slope for negative inputs.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``LeakyReluBackward0``, which saves the input.

Example::

    >>> F.leaky_relu(leafgrad.tensor([-2., 3.], requires_grad=True), 0.1)
    tensor([-0.2000,  3.0000], grad_fn=<LeakyReluBackward0>)
"""

DOCS["elu"] = """\
The exponential linear unit: ``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

Args:
    input: any floating tensor.
    alpha: the saturation value for large negative inputs.
    inplace: write the result into ``input`` (as ``elu_``).

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``EluBackward0``, which saves the input (``EluBackward1``, saving the result, when in place).

Example::

    >>> F.elu(leafgrad.tensor([-1., 2.], requires_grad=True))
    tensor([-0.6321,  2.0000], grad_fn=<EluBackward0>)
"""

DOCS["elu_"] = """\
In-place ``elu``.

Args:
    input: a tensor autograd allows to be written.
    alpha: the saturation value for large negative inputs.

Returns:
    ``input`` itself, its version counter bumped.

Autograd:
    the grad_fn becomes ``EluBackward1``, which saves the result (the input is overwritten); an in-place
    write into a leaf that requires grad raises RuntimeError.

Example::

    >>> y = leafgrad.tensor([-1., 2.], requires_grad=True) * 1
    >>> F.elu_(y).grad_fn.name()
    'EluBackward1'
"""

DOCS["selu_"] = """\
In-place ``selu``: ``scale * elu(x, alpha)`` with the fixed self-normalising constants (scale ~1.0507, alpha
~1.6733).

Args:
    input: a tensor autograd allows to be written.

Returns:
    ``input`` itself, its version counter bumped.

Autograd:
    the grad_fn becomes ``EluBackward1`` (as torch: selu is elu with scales), which saves the result.

Example::

    >>> y = leafgrad.tensor([-1., 2.], requires_grad=True) * 1
    >>> F.selu_(y).grad_fn.name()
    'EluBackward1'
"""

DOCS["celu_"] = """\
In-place ``celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

Args:
    input: a tensor autograd allows to be written.
    alpha: must not be 0.

Returns:
    ``input`` itself, its version counter bumped.

Autograd:
    the grad_fn becomes ``CeluBackward1``, which saves the result.

Example::

    >>> y = leafgrad.tensor([-1., 2.], requires_grad=True) * 1
    >>> F.celu_(y, 2.0).grad_fn.name()
    'CeluBackward1'
"""

DOCS["threshold_"] = """\
In place: elements not greater than ``threshold`` are replaced by ``value``.

Args:
    input: a tensor autograd allows to be written.
    threshold: the cut-off.
    value: the replacement.

Returns:
    ``input`` itself, its version counter bumped.

Autograd:
    the grad_fn becomes ``ThresholdBackward1``, which saves the result: the gradient passes where the result
    is above ``threshold``.

Example::

    >>> y = leafgrad.tensor([0.05, 2.], requires_grad=True) * 1
    >>> F.threshold_(y, 0.1, 0.0)
    tensor([0., 2.], grad_fn=<ThresholdBackward1>)
"""

DOCS["softplus"] = """\
A smooth relu: ``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold`` (for
numerical stability).

Args:
    input: any floating tensor.
    beta: the sharpness.
    threshold: above this (times beta) the function is linear.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``SoftplusBackward0``, which saves the input.

Example::

    >>> F.softplus(leafgrad.tensor([-1., 0., 30.], requires_grad=True))
    tensor([ 0.3133,  0.6931, 30.0000], grad_fn=<SoftplusBackward0>)
"""

DOCS["logsigmoid"] = """\
``log(sigmoid(x))`` computed stably (``-softplus(-x)``).

Args:
    input: any floating tensor.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``LogSigmoidBackward0``, which saves the input and a buffer.

Example::

    >>> F.logsigmoid(leafgrad.tensor([-1., 0., 1.], requires_grad=True))
    tensor([-1.3133, -0.6931, -0.3133], grad_fn=<LogSigmoidBackward0>)
"""

DOCS["softmax"] = """\
``exp(x) / exp(x).sum(dim)``: each slice along ``dim`` becomes a probability vector.

Args:
    input: any floating tensor.
    dim: the dim to normalise over (``None`` picks torch's legacy default with a warning).
    dtype: cast the input to this dtype first.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``SoftmaxBackward0``, which saves the result.

Example::

    >>> F.softmax(leafgrad.tensor([[1., 2., 3.]], requires_grad=True), dim=1)
    tensor([[0.0900, 0.2447, 0.6652]], grad_fn=<SoftmaxBackward0>)
"""

DOCS["log_softmax"] = """\
``x - logsumexp(x, dim)``: the log of ``softmax``, computed without overflow.

Args:
    input: any floating tensor.
    dim: the dim to normalise over (``None`` picks torch's legacy default with a warning).
    dtype: cast the input to this dtype first.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``LogSoftmaxBackward0``, which saves the result.

Example::

    >>> F.log_softmax(leafgrad.tensor([[1., 2., 3.]], requires_grad=True), dim=1)
    tensor([[-2.4076, -1.4076, -0.4076]], grad_fn=<LogSoftmaxBackward0>)
"""

DOCS["nll_loss"] = """\
The negative log likelihood loss: ``-input[n, target[n]]`` (times ``weight[target[n]]``), for log-
probabilities.

Args:
    input: ``(N, C)`` or ``(N, C, d1, ...)`` log-probabilities (or ``(C,)`` unbatched).
    target: class indices, ``(N)`` or ``(N, d1, ...)``.
    weight: optional ``(C,)`` class weights.
    ignore_index: targets equal to this contribute nothing (nor to the mean's divisor).
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'`` (per element). size_average/reduce: the
        deprecated spellings, mapped onto reduction as torch does.

Returns:
    a scalar, or the per-element losses with ``reduction='none'``. The mean divides by the sum of the
    weights of the targets used.

Autograd:
    records ``NllLossBackward0`` (``NllLoss2DBackward0`` for 4-d input), which saves the input, target and
    weight.

Example::

    >>> logp = F.log_softmax(leafgrad.tensor([[1., 2., 3.]], requires_grad=True), dim=1)
    >>> F.nll_loss(logp, leafgrad.tensor([2]))
    tensor(0.4076, grad_fn=<NllLossBackward0>)
"""

DOCS["mse_loss"] = """\
The mean squared error ``(input - target) ** 2``, reduced.

Args:
    input, target: broadcastable tensors (a different shape warns, as in torch).
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'`` (per element). size_average/reduce: the
        deprecated spellings, mapped onto reduction as torch does.
    weight: optional elementwise weights.

Returns:
    a scalar, or the elementwise squared errors with ``reduction='none'``.

Autograd:
    records ``MseLossBackward0``, which saves input and target; both get gradients if they require them.

Example::

    >>> x = leafgrad.tensor([1., 2.], requires_grad=True)
    >>> F.mse_loss(x, leafgrad.tensor([0., 0.]))
    tensor(2.5000, grad_fn=<MseLossBackward0>)
"""

DOCS["l1_loss"] = """\
The mean absolute error ``|input - target|``, reduced.

Args:
    input, target: broadcastable tensors (a different shape warns, as in torch).
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'`` (per element). size_average/reduce: the
        deprecated spellings, mapped onto reduction as torch does.
    weight: optional elementwise weights.

Returns:
    a scalar, or the elementwise absolute errors with ``reduction='none'``.

Autograd:
    composed as torch composes it: ``abs(input - target)`` then the reduction, so the root is
    ``MeanBackward0`` (``SumBackward0`` for sum).

Example::

    >>> x = leafgrad.tensor([1., -2.], requires_grad=True)
    >>> F.l1_loss(x, leafgrad.zeros(2))
    tensor(1.5000, grad_fn=<MeanBackward0>)
"""

DOCS["smooth_l1_loss"] = """\
Squared error below ``beta``, absolute error above: ``0.5 * d**2 / beta`` if ``|d| < beta`` else ``|d| - 0.5
* beta``.

Args:
    input, target: broadcastable tensors.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'`` (per element). size_average/reduce: the
        deprecated spellings, mapped onto reduction as torch does.
    beta: the switch point (``beta=0`` is l1_loss; must not be negative).

Returns:
    a scalar, or the elementwise losses with ``reduction='none'``.

Autograd:
    records ``SmoothL1LossBackward0``, which saves input and target.

Example::

    >>> x = leafgrad.tensor([0.5, 3.], requires_grad=True)
    >>> F.smooth_l1_loss(x, leafgrad.zeros(2))
    tensor(1.3125, grad_fn=<SmoothL1LossBackward0>)
"""

DOCS["huber_loss"] = """\
The Huber loss: ``0.5 * d**2`` if ``|d| < delta`` else ``delta * (|d| - 0.5 * delta)`` (smooth_l1_loss times
``delta``).

Args:
    input, target: broadcastable tensors.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'``.
    delta: the switch point, a positive number.
    weight: optional elementwise weights.

Returns:
    a scalar, or the elementwise losses with ``reduction='none'``.

Autograd:
    records ``HuberLossBackward0``, which saves input and target.

Example::

    >>> x = leafgrad.tensor([0.5, 3.], requires_grad=True)
    >>> F.huber_loss(x, leafgrad.zeros(2), delta=2.0)
    tensor(2.0625, grad_fn=<HuberLossBackward0>)
"""

DOCS["binary_cross_entropy"] = """\
The binary cross entropy ``-(t * log(p) + (1 - t) * log(1 - p))`` between probabilities ``p`` and targets
``t``.

Args:
    input: probabilities in [0, 1] (values outside raise RuntimeError); the log is clamped at -100 as in
        torch.
    target: same shape as input (a different size raises ValueError).
    weight: optional weights broadcast to input's shape.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'`` (per element). size_average/reduce: the
        deprecated spellings, mapped onto reduction as torch does.

Returns:
    a scalar, or the elementwise losses with ``reduction='none'``.

Autograd:
    records ``BinaryCrossEntropyBackward0``, which saves input, target and weight; the target gets a
    gradient too where it requires one.

Example::

    >>> p = leafgrad.tensor([0.9, 0.2], requires_grad=True)
    >>> F.binary_cross_entropy(p, leafgrad.tensor([1., 0.]))
    tensor(0.1643, grad_fn=<BinaryCrossEntropyBackward0>)
"""

DOCS["binary_cross_entropy_with_logits"] = """\
Binary cross entropy on logits: ``sigmoid`` and the loss in one numerically stable step.

Args:
    input: logits, any shape.
    target: same shape (a different size raises ValueError).
    weight: optional weights broadcast to input's shape.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'`` (per element). size_average/reduce: the
        deprecated spellings, mapped onto reduction as torch does.
    pos_weight: a weight for the positive term, broadcast along the last dim (per class).

Returns:
    a scalar, or the elementwise losses with ``reduction='none'``.

Autograd:
    records ``BinaryCrossEntropyWithLogitsBackward0``, which saves input, target, weight and pos_weight.

Example::

    >>> z = leafgrad.tensor([2., -1.], requires_grad=True)
    >>> F.binary_cross_entropy_with_logits(z, leafgrad.tensor([1., 0.]))
    tensor(0.2201, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
"""

DOCS["pad"] = """\
Pad the last dims: ``pad`` lists (left, right) amounts starting from the last dim, e.g. ``(1, 2)`` pads the
last dim by 1 before and 2 after.

Args:
    input: the tensor to pad.
    pad: an even-length sequence of ints; negative amounts crop.
    mode: ``'constant'``, ``'reflect'``, ``'replicate'`` or ``'circular'`` (the last three pad 1 to 3
        trailing dims of a batched or unbatched input).
    value: the fill for ``'constant'`` (default 0).

Returns:
    the padded tensor.

Autograd:
    records ``ConstantPadNdBackward0`` for constant mode, and torch's ``ReflectionPad{1,2,3}DBackward0`` /
    ``ReplicationPad{1,2,3}DBackward0`` nodes for the others; the gradient of the padding is dropped
    (reflect and replicate add it onto the elements copied).

Example::

    >>> x = leafgrad.tensor([[1., 2.]], requires_grad=True)
    >>> F.pad(x, (1, 2))
    tensor([[0., 1., 2., 0., 0.]], grad_fn=<ConstantPadNdBackward0>)
    >>> F.pad(x, (1, 1), mode='replicate')
    tensor([[1., 1., 2., 2.]], grad_fn=<ReplicationPad1DBackward0>)
"""

DOCS["one_hot"] = """\
Turn integer class indices into one-hot rows: ``out[..., i] = 1`` where ``i == tensor[...]``.

Args:
    tensor: a tensor of int64 indices, all non-negative.
    num_classes: the length of the new last dim; ``-1`` means ``tensor.max() + 1``.

Returns:
    an int64 tensor of shape ``tensor.shape + (num_classes,)``.

Autograd:
    integer output: nothing is recorded and the result never requires grad.

Example::

    >>> F.one_hot(leafgrad.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
"""

DOCS["normalize"] = """\
Divide by the ``p``-norm along ``dim``: ``x / max(||x||_p, eps)``.

Args:
    input: any floating tensor.
    p: the norm's exponent.
    dim: the dim (or dims) the norm runs over.
    eps: a floor on the norm, so all-zero slices stay zero.
    out: optional tensor to write the result into.

Returns:
    a tensor shaped like ``input``.

Autograd:
    composed as in torch: ``norm``, ``clamp_min``, ``expand_as`` and a division, so the root is
    ``DivBackward0``.

Example::

    >>> F.normalize(leafgrad.tensor([[3., 4.]], requires_grad=True))
    tensor([[0.6000, 0.8000]], grad_fn=<DivBackward0>)
"""

DOCS["max_pool1d"] = """\
The maximum over each ``kernel_size`` window of a ``(N, C, L)`` or ``(C, L)`` input.

Args:
    kernel_size: int.
    stride: defaults to ``kernel_size``.
    padding: implicit ``-inf`` padding on each side (at most half the kernel).
    dilation: spacing between window elements.
    ceil_mode: round the output length up.
    return_indices: also return the index of each maximum.

Returns:
    the pooled tensor, or ``(pooled, indices)``.

Autograd:
    composed as torch's CPU route: ``unsqueeze``, 2-d max pooling, ``squeeze``, so the root is
    ``SqueezeBackward1`` over ``MaxPool2DWithIndicesBackward0``.

Example::

    >>> F.max_pool1d(leafgrad.tensor([[1., 5., 2., 3.]], requires_grad=True), 2)
    tensor([[5., 3.]], grad_fn=<SqueezeBackward1>)
"""

DOCS["avg_pool1d"] = """\
The mean over each ``kernel_size`` window of a ``(N, C, L)`` or ``(C, L)`` input.

Args:
    kernel_size: int.
    stride: defaults to ``kernel_size``.
    padding: implicit zero padding on each side.
    ceil_mode: round the output length up.
    count_include_pad: whether the zero padding counts in the divisor.

Returns:
    the pooled tensor.

Autograd:
    composed as torch's route: ``unsqueeze``, 2-d average pooling, ``squeeze`` (root ``SqueezeBackward1``).

Example::

    >>> F.avg_pool1d(leafgrad.tensor([[1., 5., 2., 3.]], requires_grad=True), 2)
    tensor([[3.0000, 2.5000]], grad_fn=<SqueezeBackward1>)
"""

DOCS["adaptive_avg_pool1d"] = """\
Average pooling of a ``(N, C, L)`` or ``(C, L)`` input into exactly ``output_size`` windows.

Args:
    output_size: the output length (an int or a 1-tuple).

Returns:
    ``(N, C, output_size)``.

Autograd:
    composed as torch's route over the 2-d op: the root is ``SqueezeBackward1`` over
    ``AdaptiveAvgPool2DBackward0``.

Example::

    >>> F.adaptive_avg_pool1d(leafgrad.tensor([[1., 2., 3., 4., 5.]], requires_grad=True), 2)
    tensor([[2., 4.]], grad_fn=<SqueezeBackward1>)
"""

DOCS["adaptive_max_pool1d"] = """\
Max pooling of a ``(N, C, L)`` or ``(C, L)`` input into exactly ``output_size`` windows.

Args:
    output_size: the output length.
    return_indices: also return the index of each maximum.

Returns:
    ``(N, C, output_size)``, or ``(pooled, indices)``.

Autograd:
    composed over the 2-d op: the root is ``SqueezeBackward1`` over ``AdaptiveMaxPool2DBackward0``.

Example::

    >>> F.adaptive_max_pool1d(leafgrad.tensor([[1., 5., 3., 4., 2.]], requires_grad=True), 2)
    tensor([[5., 4.]], grad_fn=<SqueezeBackward1>)
"""

DOCS["adaptive_max_pool2d"] = """\
Max pooling whose windows are chosen so the output has exactly ``output_size``.

Args:
    input: ``(N, C, H, W)`` or ``(C, H, W)``.
    output_size: an int or a pair; ``None`` in a pair keeps that input size.
    return_indices: also return the flat index of each maximum.

Returns:
    ``(N, C, *output_size)``, or ``(pooled, indices)``.

Autograd:
    records ``AdaptiveMaxPool2DBackward0``, which saves the input and the indices; each gradient goes to its
    window's maximum.

Example::

    >>> x = leafgrad.arange(16.).reshape(1, 4, 4).requires_grad_()
    >>> F.adaptive_max_pool2d(x, 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]], grad_fn=<AdaptiveMaxPool2DBackward0>)
"""

DOCS["lp_pool1d"] = """\
Power-average pooling: ``(sum of x**p over each window) ** (1/p)`` of a ``(N, C, L)`` or ``(C, L)`` input.

Args:
    norm_type: the power p (p=1 is sum pooling; large p approaches max pooling).
    kernel_size: int.
    stride: defaults to ``kernel_size``.
    ceil_mode: round the output length up.

Returns:
    the pooled tensor.

Autograd:
    composed as torch composes it (``pow``, ``avg_pool1d``, ``sign``/``relu`` and a final ``pow``), so the
    root is ``PowBackward0``.

Example::

    >>> F.lp_pool1d(leafgrad.tensor([[3., 4., 1., 1.]], requires_grad=True), 2, 2)
    tensor([[5.0000, 1.4142]], grad_fn=<PowBackward0>)
"""

DOCS["max_unpool1d"] = """\
The partial inverse of ``max_pool1d``: put each value back at the index ``max_pool1d`` returned, zeros
elsewhere.

Args:
    input: the pooled values, ``(N, C, L)`` or ``(C, L)``.
    indices: the indices from ``max_pool1d(..., return_indices=True)``.
    kernel_size, stride, padding: those of the pooling.
    output_size: the exact length to restore (when several input lengths pool to the same size).

Returns:
    a tensor of the unpooled length.

Autograd:
    composed over the 2-d unpooling (root ``SqueezeBackward1``); the gradient of each value is read back
    from its index.

Example::

    >>> x = leafgrad.tensor([[1., 5., 2., 3.]], requires_grad=True)
    >>> y, i = F.max_pool1d(x, 2, return_indices=True)
    >>> F.max_unpool1d(y, i, 2)
    tensor([[0., 5., 0., 3.]], grad_fn=<SqueezeBackward1>)
"""

# ------------------------------------------------------------------ volumes, *_with_indices, upsample*, fractional
DOCS["max_pool3d"] = """\
The maximum over each ``kernel_size`` box of a ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` volume.

Args:
    kernel_size: int or triple ``(kD, kH, kW)``.
    stride: defaults to ``kernel_size``.
    padding: implicit ``-inf`` padding on each side (at most half the effective kernel).
    dilation: spacing between box elements.
    ceil_mode: round each output size up instead of down.
    return_indices: also return where each maximum came from, as a flat ``D*H*W`` index (for
        ``max_unpool3d``).

Returns:
    the pooled tensor, or ``(pooled, indices)`` with ``return_indices=True``.

Autograd:
    records ``MaxPool3DWithIndicesBackward0``, which keeps the indices and sends each output gradient to
    the one input element that won its box; the indices carry no gradient.

Example::

    >>> x = leafgrad.arange(64.).reshape(1, 1, 4, 4, 4).requires_grad_()
    >>> F.max_pool3d(x, 2)
    tensor([[[[[21., 23.],
               [29., 31.]],
    <BLANKLINE>
              [[53., 55.],
               [61., 63.]]]]], grad_fn=<MaxPool3DWithIndicesBackward0>)
"""

DOCS["adaptive_avg_pool3d"] = """\
Average pooling over a volume with the boxes sized so that the output is exactly ``output_size``.

Args:
    input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    output_size: an int (the same for D, H and W) or a triple; ``None`` in the triple keeps that input size.

Returns:
    ``(N, C, *output_size)`` (no batch dim if the input had none).

Autograd:
    records ``AdaptiveAvgPool3DBackward0``; box ``i`` along a dim of size ``n`` spans ``floor(i*n/out)`` to
    ``ceil((i+1)*n/out)``, so boxes may overlap and share gradient. An output size of 1 everywhere is a plain
    mean over the last three dims, exactly as torch takes that shortcut, and records ``MeanBackward1``.

Example::

    >>> x = leafgrad.ones(1, 2, 5, 6, 7, requires_grad=True)
    >>> y = F.adaptive_avg_pool3d(x, (2, 3, None))
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 2, 2, 3, 7]), 'AdaptiveAvgPool3DBackward0')
    >>> F.adaptive_avg_pool3d(x, 1).grad_fn.name()
    'MeanBackward1'
"""

DOCS["adaptive_max_pool3d"] = """\
Max pooling over a volume with the boxes sized so that the output is exactly ``output_size``.

Args:
    input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    output_size: an int or a triple; ``None`` in the triple keeps that input size.
    return_indices: also return the flat ``D*H*W`` index of each maximum.

Returns:
    ``(N, C, *output_size)``, or ``(pooled, indices)`` with ``return_indices=True``.

Autograd:
    records ``AdaptiveMaxPool3DBackward0``, which keeps the indices; each output gradient goes to its box's
    maximum.

Example::

    >>> x = leafgrad.arange(64.).reshape(1, 4, 4, 4).requires_grad_()
    >>> y, i = F.adaptive_max_pool3d(x, (1, 2, 2), return_indices=True)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 1, 2, 2]), 'AdaptiveMaxPool3DBackward0')
    >>> i
    tensor([[[[53, 55],
              [61, 63]]]])
"""

DOCS["adaptive_max_pool3d_with_indices"] = """\
``adaptive_max_pool3d`` that always returns ``(pooled, indices)``.

Args:
    input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    output_size: an int or a triple; ``None`` in the triple keeps that input size.
    return_indices: accepted so the signature matches ``adaptive_max_pool3d``; the pair is returned either
        way.

Returns:
    ``(pooled, indices)``; the indices are int64 flat ``D*H*W`` positions.

Autograd:
    the pooled tensor records ``AdaptiveMaxPool3DBackward0``; the indices are not differentiable.

Example::

    >>> x = leafgrad.arange(8.).reshape(1, 2, 2, 2).requires_grad_()
    >>> y, i = F.adaptive_max_pool3d_with_indices(x, 1)
    >>> y, i
    (tensor([[[[7.]]]], grad_fn=<AdaptiveMaxPool3DBackward0>), tensor([[[[7]]]]))
"""

DOCS["adaptive_max_pool1d_with_indices"] = """\
``adaptive_max_pool1d`` that always returns ``(pooled, indices)``.

Args:
    input: ``(N, C, L)`` or ``(C, L)``.
    output_size: the output length.
    return_indices: accepted to match ``adaptive_max_pool1d``'s signature; the pair is returned either way.

Returns:
    ``(pooled, indices)``, the indices being int64 positions along ``L``.

Autograd:
    composed as torch's route over the 2-d op (``unsqueeze``, adaptive 2-d max pooling, ``squeeze``), so the
    pooled tensor's root is ``SqueezeBackward1``; the indices carry no gradient.

Example::

    >>> x = leafgrad.tensor([[1., 5., 2., 3., 9., 0.]], requires_grad=True)
    >>> F.adaptive_max_pool1d_with_indices(x, 2)
    (tensor([[5., 9.]], grad_fn=<SqueezeBackward1>), tensor([[1, 4]]))
"""

DOCS["adaptive_max_pool2d_with_indices"] = """\
``adaptive_max_pool2d`` that always returns ``(pooled, indices)``.

Args:
    input: ``(N, C, H, W)`` or ``(C, H, W)``.
    output_size: an int or a pair; ``None`` in the pair keeps that input size.
    return_indices: accepted to match ``adaptive_max_pool2d``'s signature; the pair is returned either way.

Returns:
    ``(pooled, indices)``; the indices are int64 flat ``H*W`` positions.

Autograd:
    the pooled tensor records ``AdaptiveMaxPool2DBackward0``; the indices are not differentiable.

Example::

    >>> x = leafgrad.arange(16.).reshape(1, 4, 4).requires_grad_()
    >>> y, i = F.adaptive_max_pool2d_with_indices(x, (1, 2))
    >>> y, i
    (tensor([[[13., 15.]]], grad_fn=<AdaptiveMaxPool2DBackward0>), tensor([[[13, 15]]]))
"""

DOCS["max_pool1d_with_indices"] = """\
``max_pool1d`` that always returns ``(pooled, indices)``.

Args:
    input: ``(N, C, L)`` or ``(C, L)``.
    kernel_size, stride, padding, dilation, ceil_mode: as for ``max_pool1d``.
    return_indices: accepted to match ``max_pool1d``'s signature; the pair is returned either way.

Returns:
    ``(pooled, indices)``, the indices being int64 positions along ``L`` (what ``max_unpool1d`` reads).

Autograd:
    composed as torch's CPU route (``unsqueeze``, 2-d max pooling, ``squeeze``): the pooled tensor's root is
    ``SqueezeBackward1`` over ``MaxPool2DWithIndicesBackward0``; the indices carry no gradient.

Example::

    >>> x = leafgrad.tensor([[1., 5., 2., 3.]], requires_grad=True)
    >>> F.max_pool1d_with_indices(x, 2)
    (tensor([[5., 3.]], grad_fn=<SqueezeBackward1>), tensor([[1, 3]]))
"""

DOCS["max_pool2d_with_indices"] = """\
``max_pool2d`` that always returns ``(pooled, indices)``.

Args:
    input: ``(N, C, H, W)`` or ``(C, H, W)``.
    kernel_size, stride, padding, dilation, ceil_mode: as for ``max_pool2d``.
    return_indices: accepted to match ``max_pool2d``'s signature; the pair is returned either way.

Returns:
    ``(pooled, indices)``; the indices are int64 flat ``H*W`` positions (what ``max_unpool2d`` reads).

Autograd:
    the pooled tensor records ``MaxPool2DWithIndicesBackward0``; the indices are not differentiable.

Example::

    >>> x = leafgrad.arange(16.).reshape(1, 1, 4, 4).requires_grad_()
    >>> y, i = F.max_pool2d_with_indices(x, 2)
    >>> y.grad_fn.name(), i
    ('MaxPool2DWithIndicesBackward0', tensor([[[[ 5,  7],
              [13, 15]]]]))
"""

DOCS["upsample"] = """\
Deprecated spelling of ``interpolate``: warns (``UserWarning``) and then resizes exactly as
``interpolate(input, size, scale_factor, mode, align_corners)`` would.

Args:
    input: ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    size: the output spatial size (give this or ``scale_factor``).
    scale_factor: a multiplier per spatial dim.
    mode: ``'nearest'`` (default), ``'linear'``, ``'bilinear'``, ``'bicubic'``, ``'area'``, ...
    align_corners: for the linear modes, whether the corner pixels' centres line up.

Returns:
    the resized tensor.

Autograd:
    whatever ``interpolate`` records for the mode, e.g. ``UpsampleNearest2DBackward0`` for nearest on
    images or ``UpsampleBilinear2DBackward0`` for bilinear.

Example::

    >>> import warnings
    >>> x = leafgrad.ones(1, 1, 2, 2, requires_grad=True)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     y = F.upsample(x, scale_factor=2, mode="bilinear")
    >>> y.shape, y.grad_fn.name(), caught[0].category.__name__
    (torch.Size([1, 1, 4, 4]), 'UpsampleBilinear2DBackward0', 'UserWarning')
"""

DOCS["upsample_nearest"] = """\
Deprecated: warns (``UserWarning``), then ``interpolate(input, size, scale_factor, mode='nearest')``, i.e.
each output element copies the input element it falls on.

Args:
    input: ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    size: the output spatial size (give this or ``scale_factor``).
    scale_factor: a multiplier per spatial dim.

Returns:
    the resized tensor.

Autograd:
    records the nearest node for the input's rank: ``UpsampleNearest1DBackward0``,
    ``UpsampleNearest2DBackward0`` or ``UpsampleNearest3DBackward0``; each input element's gradient is the
    sum over the outputs that copied it.

Example::

    >>> import warnings
    >>> x = leafgrad.tensor([[[1., 2., 3.]]], requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample_nearest(x, scale_factor=2)
    tensor([[[1., 1., 2., 2., 3., 3.]]], grad_fn=<UpsampleNearest1DBackward0>)
"""

DOCS["upsample_bilinear"] = """\
Deprecated: warns (``UserWarning``), then ``interpolate(input, size, scale_factor, mode='bilinear',
align_corners=True)`` on a ``(N, C, H, W)`` batch.

Note the ``align_corners=True``: the corner pixels of input and output coincide, unlike ``interpolate``'s
bilinear default.

Args:
    input: ``(N, C, H, W)``.
    size: the output ``(H, W)`` (give this or ``scale_factor``).
    scale_factor: a multiplier for H and W.

Returns:
    the resized tensor.

Autograd:
    records ``UpsampleBilinear2DBackward0``, which spreads each output gradient over the four input pixels
    it was blended from, with the same weights.

Example::

    >>> import warnings
    >>> x = leafgrad.arange(16.).reshape(1, 1, 4, 4).requires_grad_()
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample_bilinear(x, size=(3, 3))
    tensor([[[[ 0.0000,  1.5000,  3.0000],
              [ 6.0000,  7.5000,  9.0000],
              [12.0000, 13.5000, 15.0000]]]], grad_fn=<UpsampleBilinear2DBackward0>)
"""

DOCS["fractional_max_pool2d"] = """\
Max pooling with ``(kH, kW)`` windows whose starts are spread pseudo-randomly over the input, so that the
output is ``output_size`` (or ``output_ratio`` times the input size) even when that is not an integer
shrink.

Args:
    input: ``(N, C, H, W)`` or ``(C, H, W)``.
    kernel_size: int or pair; each window must fit: ``output + kernel - 1 <= input`` per dim.
    output_size: int or pair (give this or ``output_ratio``).
    output_ratio: a pair (or 1-tuple) of fractions in (0, 1); the output size is ``int(input * ratio)``. A
        bare float is a TypeError here, as in torch (the 3-d form accepts one).
    return_indices: also return the flat ``H*W`` index of each maximum.
    _random_samples: ``(N, C, 2)`` values in [0, 1) that fix where the windows fall, one pair per
        (sample, channel); drawn with ``leafgrad.rand`` when omitted, so each call pools differently.

Returns:
    the pooled tensor, or ``(pooled, indices)`` with ``return_indices=True``.

Autograd:
    records ``FractionalMaxPool2DBackward0``, which keeps the indices and sends each output gradient to its
    window's maximum.

Example::

    >>> x = leafgrad.arange(25.).reshape(1, 1, 5, 5).requires_grad_()
    >>> y = F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=leafgrad.full((1, 1, 2), 0.5))
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 1, 3, 3]), 'FractionalMaxPool2DBackward0')
    >>> F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5)).shape
    torch.Size([1, 1, 2, 2])
"""

DOCS["fractional_max_pool3d"] = """\
The volume form of ``fractional_max_pool2d``: ``(kT, kH, kW)`` boxes placed pseudo-randomly over a
``(N, C, T, H, W)`` or ``(C, T, H, W)`` input so that the output is ``output_size`` (or ``output_ratio``
times the input size).

Args:
    kernel_size: int or triple; ``output + kernel - 1 <= input`` must hold per dim.
    output_size: int or triple (give this or ``output_ratio``).
    output_ratio: float or triple in (0, 1).
    return_indices: also return the flat ``T*H*W`` index of each maximum.
    _random_samples: ``(N, C, 3)`` values in [0, 1) that fix the placement; drawn with ``leafgrad.rand``
        when omitted.

Returns:
    the pooled tensor, or ``(pooled, indices)`` with ``return_indices=True``.

Autograd:
    records ``FractionalMaxPool3DBackward0``; each output gradient goes to its box's maximum.

Example::

    >>> x = leafgrad.arange(64.).reshape(1, 1, 4, 4, 4).requires_grad_()
    >>> y = F.fractional_max_pool3d(x, 2, output_ratio=0.5, _random_samples=leafgrad.full((1, 1, 3), 0.5))
    >>> y.flatten(), y.grad_fn.name()
    (tensor([21., 23., 29., 31., 53., 55., 61., 63.], grad_fn=<ViewBackward0>), 'FractionalMaxPool3DBackward0')
"""

# functions whose source gives a one-line summary: the sections that follow it
SECTIONS: dict = {}

SECTIONS["linear"] = """\
Args:
    input: ``(*, in_features)``.
    weight: ``(out_features, in_features)``.
    bias: optional ``(out_features,)``.

Returns:
    ``(*, out_features)``.

Autograd:
    a matrix input records ``AddmmBackward0`` (``MmBackward0`` without bias); other ranks are flattened to a
    matrix and viewed back, so the root is ``ViewBackward0``, as in torch.

Example::

    >>> x = leafgrad.ones(4, 3)
    >>> w = leafgrad.ones(2, 3, requires_grad=True)
    >>> y = F.linear(x, w, leafgrad.zeros(2))
    >>> y.shape, y.grad_fn.name()
    (torch.Size([4, 2]), 'AddmmBackward0')
"""

SECTIONS["dropout"] = """\
Args:
    input: any tensor.
    p: the probability an element is zeroed (0 <= p <= 1, else ValueError).
    training: with ``False`` the input is returned unchanged.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    a multiplication by a random 0/scale mask: ``MulBackward0``; the same mask scales the gradient.

Example::

    >>> x = leafgrad.ones(4, requires_grad=True)
    >>> F.dropout(x, 0.5, training=False) is x
    True
    >>> F.dropout(x, 0.5).grad_fn.name()
    'MulBackward0'
"""

SECTIONS["cross_entropy"] = """\
Args:
    input: logits ``(N, C)``, ``(N, C, d1, ...)`` or unbatched ``(C,)``.
    target: class indices ``(N)``/``(N, d1, ...)``, or class probabilities shaped like input.
    weight: optional ``(C,)`` class weights.
    ignore_index: index targets equal to this contribute nothing.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'`` (per element). size_average/reduce: the
        deprecated spellings, mapped onto reduction as torch does.
    label_smoothing: mix this much of the uniform distribution into the targets (0 to 1).

Returns:
    a scalar, or the per-sample losses with ``reduction='none'``.

Autograd:
    composed as torch: ``LogSoftmaxBackward0`` under ``NllLossBackward0`` for index targets; probability
    targets and label smoothing add the arithmetic torch's composition records.

Example::

    >>> logits = leafgrad.tensor([[2., 0.5, -1.]], requires_grad=True)
    >>> loss = F.cross_entropy(logits, leafgrad.tensor([0]))
    >>> loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name()
    ('NllLossBackward0', 'LogSoftmaxBackward0')
"""

SECTIONS["selu"] = """\
Args:
    input: any floating tensor.
    inplace: write the result into ``input`` (as ``selu_``).

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``EluBackward0`` (saving the input), torch's ELU node with selu's scales.

Example::

    >>> F.selu(leafgrad.tensor([-1., 1.], requires_grad=True)).grad_fn.name()
    'EluBackward0'
"""

SECTIONS["celu"] = """\
Args:
    input: any floating tensor.
    alpha: the saturation value (not 0).
    inplace: write the result into ``input`` (as ``celu_``).

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``CeluBackward0``, which saves the input.

Example::

    >>> F.celu(leafgrad.tensor([-1., 1.], requires_grad=True)).grad_fn.name()
    'CeluBackward0'
"""

SECTIONS["mish"] = """\
Args:
    input: any floating tensor.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``MishBackward0``, which saves the input.

Example::

    >>> F.mish(leafgrad.tensor([-1., 0., 1.], requires_grad=True))
    tensor([-0.3034,  0.0000,  0.8651], grad_fn=<MishBackward0>)
"""

SECTIONS["hardsigmoid"] = """\
Args:
    input: any floating tensor.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``, values in [0, 1].

Autograd:
    records ``HardsigmoidBackward0`` (saves the input): gradient 1/6 inside (-3, 3), 0 outside.

Example::

    >>> F.hardsigmoid(leafgrad.tensor([-4., 0., 1.5], requires_grad=True))
    tensor([0.0000, 0.5000, 0.7500], grad_fn=<HardsigmoidBackward0>)
"""

SECTIONS["hardswish"] = """\
Args:
    input: any floating tensor.
    inplace: write the result into ``input``.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``HardswishBackward0``, which saves the input.

Example::

    >>> F.hardswish(leafgrad.tensor([-4., 0., 1.5], requires_grad=True))
    tensor([-0.0000, 0.0000, 1.1250], grad_fn=<HardswishBackward0>)
"""

SECTIONS["softsign"] = """\
Args:
    input: any floating tensor.

Returns:
    a tensor shaped like ``input``, values in (-1, 1).

Autograd:
    the root is ``DivBackward0`` over ``AddBackward0`` and ``AbsBackward0``, as torch's Python composition
    records.

Example::

    >>> F.softsign(leafgrad.tensor([-3., 1.], requires_grad=True))
    tensor([-0.7500,  0.5000], grad_fn=<DivBackward0>)
"""

SECTIONS["glu"] = """\
Args:
    input: a tensor whose size along ``dim`` is even.
    dim: the dim split in two halves ``a`` and ``b`` (default -1).

Returns:
    ``a * sigmoid(b)``, half the size along ``dim``.

Autograd:
    records ``GluBackward0``, which saves the input.

Example::

    >>> y = F.glu(leafgrad.ones(2, 4, requires_grad=True))
    >>> y.shape, y.grad_fn.name()
    (torch.Size([2, 2]), 'GluBackward0')
"""

SECTIONS["softmin"] = """\
Args:
    input: any floating tensor.
    dim: the dim to normalise over.
    dtype: cast the input to this dtype first.

Returns:
    a tensor shaped like ``input``: each slice along ``dim`` sums to 1, small values getting the most
    weight.

Autograd:
    ``SoftmaxBackward0`` over ``NegBackward0``.

Example::

    >>> F.softmin(leafgrad.tensor([[1., 2., 3.]], requires_grad=True), dim=1)
    tensor([[0.6652, 0.2447, 0.0900]], grad_fn=<SoftmaxBackward0>)
"""

SECTIONS["kl_div"] = """\
Args:
    input: log-probabilities.
    target: probabilities (or log-probabilities with ``log_target=True``), shaped like input.
    reduction: ``'mean'`` (over all elements; torch warns that ``'batchmean'`` is the true KL divergence),
        ``'batchmean'`` (sum divided by the batch size), ``'sum'`` or ``'none'``.
    log_target: the target is given as log-probabilities.
    size_average/reduce: the deprecated spellings, mapped onto reduction as torch does.

Returns:
    a scalar, or the elementwise terms with ``reduction='none'``.

Autograd:
    composed as torch (``target * (log(target) - input)`` and the reduction); with ``'batchmean'`` the root
    is ``DivBackward0``.

Example::

    >>> logq = F.log_softmax(leafgrad.tensor([[1., 2.]], requires_grad=True), dim=1)
    >>> F.kl_div(logq, leafgrad.tensor([[0.5, 0.5]]), reduction='batchmean')
    tensor(0.1201, grad_fn=<DivBackward0>)
"""

SECTIONS["cosine_similarity"] = """\
Args:
    x1, x2: broadcastable tensors.
    dim: the dim the vectors lie along (default 1).
    eps: the floor on each norm.

Returns:
    the similarities, with ``dim`` removed.

Autograd:
    composed as torch computes it; the root is ``SumBackward1`` (the sum over ``dim``).

Example::

    >>> a = leafgrad.tensor([[1., 0.], [1., 1.]], requires_grad=True)
    >>> F.cosine_similarity(a, leafgrad.tensor([[1., 0.], [1., 0.]]))
    tensor([1.0000, 0.7071], grad_fn=<SumBackward1>)
"""

SECTIONS["interpolate"] = """\
Args:
    input: ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    size: the output spatial size (one of size / scale_factor).
    scale_factor: a multiplier per spatial dim.
    mode: ``'nearest'`` (default), ``'linear'`` (3-d input), ``'bilinear'`` / ``'bicubic'`` (4-d),
        ``'trilinear'`` (5-d), ``'area'`` or ``'nearest-exact'``.
    align_corners: for the linear modes, whether the corner pixels' centres line up.
    recompute_scale_factor, antialias: as in torch.

Returns:
    the resized tensor.

Autograd:
    records torch's node for the mode, e.g. ``UpsampleNearest2DBackward0`` or
    ``UpsampleBilinear2DBackward0``.

Example::

    >>> x = leafgrad.ones(1, 1, 2, 2, requires_grad=True)
    >>> y = F.interpolate(x, scale_factor=2)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 1, 4, 4]), 'UpsampleNearest2DBackward0')
"""

SECTIONS["group_norm"] = """\
Args:
    input: ``(N, C, *)``.
    num_groups: must divide C.
    weight, bias: optional per-channel ``(C,)`` affine parameters.
    eps: added to the variance.

Returns:
    a tensor shaped like ``input``.

Autograd:
    records ``NativeGroupNormBackward0``, which saves the input, weight, and each group's mean and inverse
    std.

Example::

    >>> x = leafgrad.arange(8.).reshape(1, 4, 2).requires_grad_()
    >>> F.group_norm(x, 2).grad_fn.name()
    'NativeGroupNormBackward0'
"""

SECTIONS["scaled_dot_product_attention"] = """\
Args:
    query: ``(N, ..., L, E)``.
    key: ``(N, ..., S, E)``.
    value: ``(N, ..., S, Ev)``.
    attn_mask: optional boolean (True = may attend) or additive float mask, broadcastable to ``(N, ..., L,
        S)``.
    dropout_p: dropout on the attention weights.
    is_causal: mask out later positions.
    scale: defaults to ``1/sqrt(E)``.
    enable_gqa: let key/value have fewer heads than query.

Returns:
    ``(N, ..., L, Ev)``.

Autograd:
    4-d inputs record torch's fused CPU node ``ScaledDotProductFlashAttentionForCpuBackward0`` (masked or
    causal too); for other ranks the root is torch's as well, e.g. ``UnsafeViewBackward0`` for 3-d inputs.

Example::

    >>> q = leafgrad.ones(1, 2, 3, 4, requires_grad=True)
    >>> y = F.scaled_dot_product_attention(q, q, q)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 2, 3, 4]), 'ScaledDotProductFlashAttentionForCpuBackward0')
"""

SECTIONS["softshrink"] = """\
Args:
    input: a floating tensor (integer input raises NotImplementedError).
    lambd: the half-width of the band sent to zero; must lie in ``[0, max of the dtype]`` (RuntimeError
        otherwise, NaN included).

Returns:
    a tensor shaped like ``input``: every value moved ``lambd`` towards zero, and the band itself zeroed.

Autograd:
    records ``SoftshrinkBackward0``, saving the input and ``lambd``; the gradient passes through unchanged
    outside the band and is 0 inside it.

Example::

    >>> y = F.softshrink(leafgrad.tensor([-1., 0.2, 1.], requires_grad=True))
    >>> y
    tensor([-0.5000,  0.0000,  0.5000], grad_fn=<SoftshrinkBackward0>)
"""

SECTIONS["hardshrink"] = """\
Args:
    input: a floating tensor (integer input raises NotImplementedError).
    lambd: the half-width of the band sent to zero.

Returns:
    a tensor shaped like ``input``; values outside the band keep their size (not shifted, unlike softshrink).

Autograd:
    records ``HardshrinkBackward0``, saving the input and ``lambd``: gradient 1 outside the band, 0 inside.

Example::

    >>> F.hardshrink(leafgrad.tensor([-1., 0.2, 1.], requires_grad=True))
    tensor([-1.,  0.,  1.], grad_fn=<HardshrinkBackward0>)
"""

SECTIONS["threshold"] = """\
Args:
    input: any non-bool tensor (bool raises NotImplementedError).
    threshold: values ``<=`` this are replaced.
    value: what they are replaced with; both numbers must fit the dtype (RuntimeError otherwise).
    inplace: write into ``input`` (``threshold_``), bumping its version counter.

Returns:
    a tensor shaped like ``input`` (``input`` itself with ``inplace=True``).

Autograd:
    records ``ThresholdBackward0`` (``ThresholdBackward1`` in place), saving the input and the threshold: the
    gradient is kept where the input was above it and zeroed elsewhere. In place on a leaf that requires
    grad is a RuntimeError, as for every in-place op.

Example::

    >>> x = leafgrad.tensor([-1., 0.2, 1.], requires_grad=True)
    >>> F.threshold(x, 0.1, 20.)
    tensor([20.0000,  0.2000,  1.0000], grad_fn=<ThresholdBackward0>)
    >>> F.threshold(x.clone(), 0.1, 20., inplace=True).grad_fn.name()
    'ThresholdBackward1'
"""

SECTIONS["tanhshrink"] = """\
Args:
    input: a floating tensor.

Returns:
    a tensor shaped like ``input``.

Autograd:
    no node of its own: the root is ``SubBackward0``, whose second input is ``TanhBackward0`` (which saves
    its result), exactly as torch's Python composition records it.

Example::

    >>> y = F.tanhshrink(leafgrad.tensor([-1., 1.], requires_grad=True))
    >>> y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions][1]
    ('SubBackward0', 'TanhBackward0')
"""

SECTIONS["soft_margin_loss"] = """\
Args:
    input: scores of any shape.
    target: ``+1``/``-1`` labels shaped like ``input``.
    size_average, reduce: the deprecated spellings of ``reduction``, mapped as torch maps them.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'``.

Returns:
    a scalar, or the per-element losses with ``reduction='none'``.

Autograd:
    one fused node, ``SoftMarginLossBackward0``, whatever the reduction; it saves the input, the target and
    the reduction. It has no gradient for the target: a target that requires grad is a RuntimeError.

Example::

    >>> x = leafgrad.tensor([1., 2., 3.], requires_grad=True)
    >>> F.soft_margin_loss(x, leafgrad.tensor([1., -1., 1.]))
    tensor(0.8296, grad_fn=<SoftMarginLossBackward0>)
"""

SECTIONS["margin_ranking_loss"] = """\
Args:
    input1, input2: the two scores to rank, the same shape (or broadcastable).
    target: ``1`` where ``input1`` should be the larger, ``-1`` where ``input2`` should.
    margin: how far apart a correct pair must be to cost nothing.
    size_average, reduce: deprecated spellings of ``reduction``.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'``.

Returns:
    a scalar, or the per-pair losses with ``reduction='none'``.

Autograd:
    composed as torch does: ``AddBackward1`` (the margin) under ``ClampMinBackward0``, under
    ``MeanBackward0`` / ``SumBackward0`` when reduced; gradients reach both inputs.

Example::

    >>> a = leafgrad.tensor([1., 2., 3.], requires_grad=True)
    >>> F.margin_ranking_loss(a, leafgrad.full((3,), 2.), leafgrad.tensor([1., -1., 1.]))
    tensor(0.3333, grad_fn=<MeanBackward0>)
    >>> F.margin_ranking_loss(a, a.detach(), leafgrad.ones(3), reduction='none').grad_fn.name()
    'ClampMinBackward0'
"""

SECTIONS["hinge_embedding_loss"] = """\
Args:
    input: distances (or any scores), any shape.
    target: ``1`` (similar pair) or ``-1`` (dissimilar), shaped like ``input``.
    margin: dissimilar pairs closer than this are penalised.
    size_average, reduce: deprecated spellings of ``reduction``.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'``.

Returns:
    a scalar, or the per-element losses with ``reduction='none'``.

Autograd:
    composed as torch does: two ``WhereBackward0`` branches (one over ``ClampMinBackward0`` of
    ``margin - input``) joined by ``AddBackward0``, then the reduction's node.

Example::

    >>> x = leafgrad.tensor([1., 2., 3.], requires_grad=True)
    >>> loss = F.hinge_embedding_loss(x, leafgrad.tensor([1., -1., 1.]))
    >>> loss, loss.grad_fn.next_functions[0][0].name()
    (tensor(1.3333, grad_fn=<MeanBackward0>), 'AddBackward0')
"""

SECTIONS["cosine_embedding_loss"] = """\
Args:
    input1, input2: ``(N, D)`` or unbatched ``(D,)`` embeddings.
    target: ``(N,)`` (or a 0-d tensor) of ``1`` (should point the same way) or ``-1`` (should not).
    margin: for ``-1`` pairs, cosines at or below this cost nothing (sensible values lie in [-1, 1]).
    size_average, reduce: deprecated spellings of ``reduction``.
    reduction: ``'mean'`` (default), ``'sum'`` or ``'none'``.

Returns:
    a scalar, or the per-pair losses ``(N,)`` with ``reduction='none'``.

Autograd:
    composed as torch does (the cosine is built from sums of products and a square root, not from
    cosine_similarity): two ``WhereBackward0`` branches joined by ``AddBackward0``, under the reduction.

Example::

    >>> u = leafgrad.ones(2, 3, requires_grad=True)
    >>> v = leafgrad.tensor([[1., 2., 3.], [-1., 0., 1.]])
    >>> F.cosine_embedding_loss(u, v, leafgrad.tensor([1., -1.]))
    tensor(0.0371, grad_fn=<MeanBackward0>)
"""

SECTIONS["pairwise_distance"] = """\
Args:
    x1, x2: ``(N, D)`` or ``(D,)``, broadcast against each other.
    p: the norm's order.
    eps: added to the difference so the norm's gradient stays finite when ``x1 == x2``.
    keepdim: keep the reduced last dim as size 1.

Returns:
    ``(N,)`` (``(N, 1)`` with keepdim; 0-d for two 1-d inputs).

Autograd:
    ``NormBackward1`` (saving the input and the result) over ``AddBackward1`` (the eps) over
    ``SubBackward0``, as torch records it.

Example::

    >>> x1 = leafgrad.ones(2, 3, requires_grad=True)
    >>> F.pairwise_distance(x1, leafgrad.tensor([[1., 2., 3.], [-1., 0., 1.]]))
    tensor([2.2361, 2.2361], grad_fn=<NormBackward1>)
"""

SECTIONS["conv_transpose1d"] = """\
Args:
    input: ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
    weight: ``(C_in, C_out / groups, kW)`` (input channels first, the reverse of conv1d).
    bias: optional ``(C_out,)``.
    stride, padding, dilation: ints or 1-tuples; ``padding`` trims ``dilation * (kW - 1) - padding`` less
        from each end of the output.
    output_padding: extra cells on one side of the output, to pick among the sizes a strided conv1d maps to
        the same length (must be smaller than stride or dilation).
    groups: split the channels into this many independent transposed convolutions.

Returns:
    ``(N, C_out, L_out)`` with ``L_out = (L - 1) * stride - 2 * padding + dilation * (kW - 1) +
    output_padding + 1``.

Autograd:
    records ``ConvolutionBackward0`` (the node conv1d records too), saving the input and weight; gradients
    reach input, weight and bias.

Example::

    >>> w = leafgrad.ones(2, 3, 3, requires_grad=True)
    >>> y = F.conv_transpose1d(leafgrad.ones(1, 2, 4), w, stride=2)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 3, 9]), 'ConvolutionBackward0')
"""

SECTIONS["conv_transpose2d"] = """\
Args:
    input: ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
    weight: ``(C_in, C_out / groups, kH, kW)`` (input channels first, the reverse of conv2d).
    bias: optional ``(C_out,)``.
    stride, padding, dilation: ints or pairs, read as for conv_transpose1d, per spatial dim.
    output_padding: extra rows/columns on the bottom/right, smaller than stride or dilation.
    groups: split the channels into this many independent transposed convolutions.

Returns:
    ``(N, C_out, H_out, W_out)``, each spatial size ``(in - 1) * stride - 2 * padding + dilation * (k - 1)
    + output_padding + 1``.

Autograd:
    records ``ConvolutionBackward0``, saving the input and weight; gradients reach input, weight and bias.

Example::

    >>> w = leafgrad.ones(2, 1, 2, 2, requires_grad=True)
    >>> y = F.conv_transpose2d(leafgrad.ones(1, 2, 3, 3), w, stride=2)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 1, 6, 6]), 'ConvolutionBackward0')
"""

SECTIONS["instance_norm"] = """\
Args:
    input: ``(N, C, *)`` with at least one spatial dim.
    running_mean, running_var: optional ``(C,)`` buffers, updated in place (with ``momentum``) when
        ``use_input_stats`` is true.
    weight, bias: optional ``(C,)`` affine parameters.
    use_input_stats: normalise with each plane's own statistics (``True``) or with the running ones.
    momentum: the running statistics' update rate.
    eps: added to the variance.

Returns:
    a tensor shaped like ``input``.

Autograd:
    the root is ``ViewBackward0`` over ``NativeBatchNormBackward0`` (saving the viewed input, the batch
    mean and inverse std) over another ``ViewBackward0``; with affine parameters ``RepeatBackward0`` nodes
    feed them in. The running buffers are never part of the graph.

Example::

    >>> y = F.instance_norm(leafgrad.arange(8.).reshape(1, 2, 4).requires_grad_())
    >>> y
    tensor([[[-1.3416, -0.4472,  0.4472,  1.3416],
             [-1.3416, -0.4472,  0.4472,  1.3416]]], grad_fn=<ViewBackward0>)
    >>> y.grad_fn.next_functions[0][0].name()
    'NativeBatchNormBackward0'
"""

SECTIONS["pixel_shuffle"] = """\
Args:
    input: ``(*, C * r * r, H, W)``, at least 3 dims; the channel count must divide by ``r * r``.
    upscale_factor: ``r``.

Returns:
    ``(*, C, H * r, W * r)``, a rearrangement of the same values.

Autograd:
    records ``PixelShuffleBackward0``, which saves only the factor: the gradient is the reverse
    rearrangement (pixel_unshuffle of the incoming gradient).

Example::

    >>> y = F.pixel_shuffle(leafgrad.ones(1, 4, 2, 2, requires_grad=True), 2)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 1, 4, 4]), 'PixelShuffleBackward0')
"""

SECTIONS["pixel_unshuffle"] = """\
Args:
    input: ``(*, C, H * r, W * r)``, at least 3 dims; both spatial sizes must divide by ``r``.
    downscale_factor: ``r``.

Returns:
    ``(*, C * r * r, H, W)``.

Autograd:
    records ``PixelUnshuffleBackward0``, which saves only the factor; its gradient is pixel_shuffle.

Example::

    >>> y = F.pixel_unshuffle(leafgrad.ones(1, 1, 4, 4, requires_grad=True), 2)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 4, 2, 2]), 'PixelUnshuffleBackward0')
"""

SECTIONS["lp_pool2d"] = """\
Args:
    input: ``(N, C, H, W)`` or unbatched ``(C, H, W)``.
    norm_type: the power ``p`` (``p = 1`` gives sum pooling; large ``p`` approaches max pooling).
    kernel_size: an int or a pair.
    stride: defaults to ``kernel_size``.
    ceil_mode: round the output size up rather than down.

Returns:
    ``(N, C, H_out, W_out)``.

Autograd:
    no node of its own: the root is ``PowBackward0`` (the ``1/p`` power) over ``MulBackward0`` (the window
    size) over the sign/relu arithmetic and ``AvgPool2DBackward0`` of ``x ** p``, as torch composes it.

Example::

    >>> F.lp_pool2d(leafgrad.ones(1, 1, 4, 4, requires_grad=True), 2, 2)
    tensor([[[[2., 2.],
              [2., 2.]]]], grad_fn=<PowBackward0>)
"""

SECTIONS["max_unpool2d"] = """\
Args:
    input: the pooled values, ``(N, C, H, W)`` or ``(C, H, W)``.
    indices: the flat per-plane positions ``max_pool2d(..., return_indices=True)`` gave, shaped like input.
    kernel_size, stride, padding: those of the pooling being undone (stride defaults to kernel_size).
    output_size: the size to rebuild, when the pooling's rounding makes it ambiguous; must lie within one
        stride of the default.

Returns:
    ``(N, C, H_out, W_out)``, zero except at the indexed positions.

Autograd:
    records ``MaxUnpool2DBackward0``, which saves the indices: the gradient gathers the incoming gradient
    at those positions. Indices get no gradient.

Example::

    >>> x = leafgrad.arange(16.).reshape(1, 1, 4, 4).requires_grad_()
    >>> pooled, idx = F.max_pool2d(x, 2, return_indices=True)
    >>> F.max_unpool2d(pooled, idx, 2)
    tensor([[[[ 0.,  0.,  0.,  0.],
              [ 0.,  5.,  0.,  7.],
              [ 0.,  0.,  0.,  0.],
              [ 0., 13.,  0., 15.]]]], grad_fn=<MaxUnpool2DBackward0>)
"""

SECTIONS["local_response_norm"] = """\
Args:
    input: ``(N, C, *)``, at least 3 dims.
    size: how many neighbouring channels each value is normalised over.
    alpha: the scale of the mean of squares.
    beta: the exponent.
    k: the additive constant.

Returns:
    a tensor shaped like ``input``.

Autograd:
    composed from ops; the root is ``DivBackward0`` (input over the pooled denominator), and gradients flow
    through both numerator and denominator.

Example::

    >>> y = F.local_response_norm(leafgrad.ones(1, 3, 2, 2, requires_grad=True), 2)
    >>> y.shape, y.grad_fn.name()
    (torch.Size([1, 3, 2, 2]), 'DivBackward0')
"""

SECTIONS["multi_head_attention_forward"] = """\
Args:
    query: ``(L, N, E)`` or unbatched ``(L, E)``; key, value: ``(S, N, E)`` / ``(S, E)``.
    embed_dim_to_check: must equal ``E``; num_heads: ``E`` must divide by it.
    in_proj_weight, in_proj_bias: the packed ``(3E, E)`` / ``(3E,)`` q, k, v projections (or, with
        ``use_separate_proj_weight=True``, ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight``).
    bias_k, bias_v: optional ``(1, 1, E)`` rows appended to key and value; add_zero_attn: append a zero row.
    dropout_p, training: dropout on the attention weights, only while training.
    out_proj_weight, out_proj_bias: the output projection.
    key_padding_mask: ``(N, S)``, True (or ``-inf``) marks keys to ignore; attn_mask: ``(L, S)`` or
        ``(N * num_heads, L, S)``; is_causal: a hint that attn_mask is the causal mask.
    need_weights: also return the attention weights; average_attn_weights: average them over heads.
    static_k, static_v: precomputed ``(N * num_heads, S, E / num_heads)`` keys/values.

Returns:
    ``(attn_output, attn_weights)``: output ``(L, N, E)`` (``(L, E)`` unbatched) and weights ``(N, L, S)``,
    ``(N, num_heads, L, S)`` without averaging, or ``None`` when ``need_weights`` is false.

Autograd:
    composed from ops as torch's Python is: batched output's root is ``ViewBackward0`` (``SqueezeBackward1``
    unbatched), averaged weights' is ``MeanBackward1``; gradients reach the inputs and every weight.

Example::

    >>> q = leafgrad.ones(3, 1, 4, requires_grad=True)
    >>> w_in, b_in = leafgrad.ones(12, 4), leafgrad.zeros(12)
    >>> out, weights = F.multi_head_attention_forward(q, q, q, 4, 2, w_in, b_in, None, None, False, 0.,
    ...                                                leafgrad.ones(4, 4), leafgrad.zeros(4))
    >>> out.shape, weights.shape, out.grad_fn.name()
    (torch.Size([3, 1, 4]), torch.Size([1, 3, 3]), 'ViewBackward0')
"""


def apply(namespace: dict) -> None:
    """Give each function named in DOCS its docstring unless its source has one; add SECTIONS after a
    one-line summary that has no example yet."""
    for name, doc in DOCS.items():
        fn = namespace.get(name)
        if fn is not None and not (getattr(fn, "__doc__", None) or "").strip():
            fn.__doc__ = doc
    for name, sections in SECTIONS.items():
        fn = namespace.get(name)
        # (cleandoc: a multi-line summary's indented lines must line up with the unindented sections)
        own = inspect.cleandoc(getattr(fn, "__doc__", None) or "") if fn is not None else ""
        if own and "Example" not in own:
            fn.__doc__ = own + "\n\n" + sections
