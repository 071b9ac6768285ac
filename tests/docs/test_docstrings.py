"""help() answers: every public function and Tensor method has its own name and a docstring."""
import inspect
import pydoc

import leafgrad
import leafgrad.nn
import leafgrad.optim


def _public_callables(obj):
    return {n: getattr(obj, n) for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n))}


def test_bound_methods_carry_their_public_names():
    T = leafgrad.Tensor
    assert (T.add_.__name__, T.add_.__qualname__, T.add_.__module__) == ("add_", "Tensor.add_",
                                                                          "leafgrad._ops.methods")
    assert T.div_.__qualname__ == "Tensor.div_" and T.clamp_min_.__qualname__ == "Tensor.clamp_min_"
    for name, value in vars(T).items():
        fn = value.fget if isinstance(value, property) else value
        if inspect.isfunction(fn):
            assert "<" not in fn.__qualname__ and not fn.__name__.startswith("_") or name.startswith("_"), name
    assert "<" not in leafgrad.logical_and.__qualname__


def test_every_tensor_attribute_and_top_level_function_has_a_docstring():
    T = leafgrad.Tensor
    lacking = [n for n in vars(T) if not n.startswith("_") and not inspect.getdoc(getattr(T, n))]
    assert lacking == []
    funcs = {n: f for n, f in _public_callables(leafgrad).items() if inspect.isfunction(f)}
    assert [n for n, f in funcs.items() if not inspect.getdoc(f)] == []
    for mod in (leafgrad.nn, leafgrad.optim):
        assert [n for n, f in _public_callables(mod).items() if inspect.isclass(f) and not f.__doc__] == []


def test_generated_docstrings_name_the_node_and_the_in_place_rules():
    doc = leafgrad.Tensor.add_.__doc__
    assert "AddBackward0" in doc and "version counter" in doc and "leaf that requires grad" in doc
    assert "SumBackward0" in leafgrad.Tensor.sum.__doc__ and "Example" in leafgrad.Tensor.sum.__doc__
    x = leafgrad.ones(3, requires_grad=True)  # (the node the docstring names is the one recorded)
    assert type((x.clone().add_(1)).grad_fn).__name__ == "AddBackward0"


def test_help_of_backward_explains_it():
    text = pydoc.render_doc(leafgrad.Tensor.backward, renderer=pydoc.plaintext)
    assert "gradient" in text and "retain_graph" in text and "create_graph" in text


def test_the_most_used_modules_document_their_own_forward():
    """help(nn.Linear.forward) must not fall back to Module.forward's generic text."""
    nn = leafgrad.nn
    generic = inspect.getdoc(nn.Module.forward)
    names = ["Linear", "Conv1d", "Conv2d", "Conv3d", "ReLU", "Sequential", "Embedding", "LSTM", "GRU",
             "MultiheadAttention", "LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Dropout",
             "CrossEntropyLoss", "MSELoss", "TransformerEncoderLayer"]
    lacking = [n for n in names if inspect.getdoc(getattr(nn, n).forward) in (None, generic)]
    assert lacking == []
    assert "AddmmBackward0" in nn.Linear.forward.__doc__ and "ReluBackward0" in nn.ReLU.forward.__doc__
