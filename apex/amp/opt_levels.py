"""The opt levels of apex.amp and what each sets up.

    O0  fp32 training (loss scale 1).
    O1  the model stays fp32; its forward runs under torch.npu.amp.autocast
        (matmuls and convolutions in fp16, softmax/norms/losses in fp32);
        dynamic loss scale.
    O2  the model is cast to fp16 except batch norm, its inputs are cast to
        fp16 and its outputs to fp32; the optimizer steps fp32 master weights
        that are copied back into the model; dynamic loss scale.
    O3  everything fp16 (a speed baseline); loss scale 1.
"""
from dataclasses import dataclass
from typing import Optional, Union

import torch


@dataclass
class Properties:
    opt_level: str
    cast_model_type: Optional[torch.dtype]
    patch_autocast: bool
    keep_batchnorm_fp32: Optional[bool]
    master_weights: bool
    loss_scale: Union[float, str]


_LEVELS = {
    "O0": Properties("O0", torch.float32, False, None, False, 1.0),
    "O1": Properties("O1", None, True, None, False, "dynamic"),
    "O2": Properties("O2", torch.float16, False, True, True, "dynamic"),
    "O3": Properties("O3", torch.float16, False, False, False, 1.0),
}


def properties_for(opt_level, **overrides):
    if opt_level not in _LEVELS:
        raise RuntimeError(f"Unexpected optimization level {opt_level!r}; options are 'O0', 'O1', 'O2', 'O3' "
                           "(the letter O, not the digit zero)")
    props = Properties(**vars(_LEVELS[opt_level]))
    for name, value in overrides.items():
        if value is not None:
            setattr(props, name, value)
    if props.loss_scale != "dynamic":
        props.loss_scale = float(props.loss_scale)
    return props
