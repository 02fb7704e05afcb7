"""torch_npu/_patches (Note [Patches to torch]): one table of every patch, idempotent installs, and
the source repair helper (Note [Repairing a torch function from its source])."""
import pytest
import torch

import torch_npu._patches as patches
from torch_npu._patches._source import repaired


def test_every_patch_module_is_in_the_table_and_installs_once():
    for name in patches._ALL:
        assert f"| {name} " in patches.__doc__
    before = (torch.nn.SyncBatchNorm.forward, torch.random.fork_rng, torch.testing.assert_close)
    patches.install()  # a second install changes nothing
    assert before == (torch.nn.SyncBatchNorm.forward, torch.random.fork_rng, torch.testing.assert_close)


def _sample(x):
    if x > 0:
        return "positive"
    return "other"


def test_a_repair_recompiles_the_function_with_the_new_text():
    fixed = repaired(_sample, [('return "positive"', 'return "repaired"')])
    assert fixed(1) == "repaired" and fixed(-1) == "other" and _sample(1) == "positive"
    assert fixed.__qualname__ == _sample.__qualname__ and fixed._repaired_by_torch_npu
    assert fixed.__code__.co_firstlineno == _sample.__code__.co_firstlineno  # tracebacks keep torch's lines


def test_a_repair_whose_text_is_not_there_once_refuses():
    with pytest.raises(RuntimeError, match="expected the text 'return 1' once, found it 0 times"):
        repaired(_sample, [("return 1", "return 2")])
    with pytest.raises(RuntimeError, match="found it 2 times"):
        repaired(_sample, [("return", "return")])


class _Base:
    def greet(self):
        return "base"


class _Derived(_Base):
    def greet(self):
        return "derived of " + super().greet()


def test_a_method_with_zero_argument_super_is_repaired_with_its_class():
    with pytest.raises(RuntimeError, match="needs its class"):
        repaired(_Derived.__dict__["greet"], [('"derived of "', '"repaired "')])
    _Derived.greet = repaired(_Derived.__dict__["greet"], [('"derived of "', '"repaired "')], owner=_Derived)
    assert _Derived().greet() == "repaired base"
