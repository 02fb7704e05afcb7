"""torch_npu.contrib.function: torch_npu's affinity functions (torch_npu/contrib/function/__init__.py),
detection helpers and NPU-friendly spellings of common operations."""
from torch_npu.contrib.function.anchor_generator import npu_single_level_responsible_flags
from torch_npu.contrib.function.bbox_coder import (npu_bbox_coder_decode_xywh2xyxy, npu_bbox_coder_encode_xyxy2xywh,
                                                   npu_bbox_coder_encode_yolo)
from torch_npu.contrib.function.index_op import npu_fast_condition_index_put
from torch_npu.contrib.function.iou import npu_ciou, npu_diou, npu_giou, npu_iou, npu_ptiou
from torch_npu.contrib.function.matmul_transpose import matmul_transpose
from torch_npu.contrib.function.nms import npu_batched_multiclass_nms, npu_multiclass_nms
from torch_npu.contrib.function.roll import roll

__all__ = ["npu_iou", "npu_ptiou", "npu_giou", "npu_diou", "npu_ciou", "npu_multiclass_nms",
           "npu_batched_multiclass_nms", "npu_single_level_responsible_flags", "npu_fast_condition_index_put",
           "npu_bbox_coder_encode_yolo", "npu_bbox_coder_encode_xyxy2xywh", "npu_bbox_coder_decode_xywh2xyxy",
           "roll", "matmul_transpose"]
