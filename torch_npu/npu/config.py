"""torch.npu.config: switches of the NPU backend.

    torch.npu.config.allow_internal_format = False

allow_internal_format (default True): ops may produce private storage formats
(an elementwise op's output follows the format of its first tensor input, as
CANN's format inference does; later convolution/batch-norm ops produce
NC1HWC0). When False every new tensor is created in its base format
(ND/NCHW/NCDHW); tensors already in a private format keep it.
"""
from torch_npu import _C


class _NPUConfig:
    @property
    def allow_internal_format(self):
        return _C._npu_allowInternalFormat()

    @allow_internal_format.setter
    def allow_internal_format(self, value):
        _C._npu_setAllowInternalFormat(bool(value))

    def __repr__(self):
        return f"torch.npu.config(allow_internal_format={self.allow_internal_format})"


config = _NPUConfig()
