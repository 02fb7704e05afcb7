"""apex for torch_npu: the mixed-precision companion package of the porting guide.

Only `apex.amp` is provided (O0-O3, static and dynamic loss scaling,
combine_grad), built on torch.npu.amp's kernels; see docs/mixed_precision.md.
It is importable from this checkout once `setup.py develop` has run; an apex
installed elsewhere comes first on sys.path and wins.
"""
from apex import amp  # noqa: F401
