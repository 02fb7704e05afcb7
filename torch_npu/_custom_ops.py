"""torch_npu.<name> for the custom npu:: operators, and the Tensor methods
torch_npu has for some of them (t.npu_dtype_cast(torch.half), t.one_(), ...).

The operators are registered by the backend (yaml/npu_native_functions.yaml,
`custom:`); most are compositions of aten operators with their autograd
(Note [Composite custom ops] in csrc/aten/fused/CompositeCustomOps.cpp); fast_gelu, npu_rms_norm,
npu_rotary_mul and npu_softmax_cross_entropy_with_logits are one fused simulator kernel each way
(csrc/aten/fused/FusedLlmOps.cpp), and so are npu_fusion_attention (Note [Fused attention] in
csrc/aten/fused/FusionAttentionOps.cpp) and the inference attention (Note [Inference attention] in
csrc/aten/fused/InferenceAttentionOps.cpp).
"""
import torch

from torch_npu._patches.registry import replace

FUNCTIONS = ("npu_dtype_cast", "npu_transpose", "npu_broadcast", "npu_confusion_transpose", "npu_linear",
             "npu_bmmV2", "npu_bmm_v2_mat1_backward", "npu_bmm_v2_mat2_backward", "one_", "npu_silu", "npu_mish",
             "fast_gelu", "npu_layer_norm_eval", "npu_rms_norm",
             "npu_rotary_mul", "npu_softmax_cross_entropy_with_logits", "npu_dropout", "_npu_dropout",
             "npu_dropout_backward", "npu_dropout_gen_mask", "npu_dropout_do_mask", "npu_dropout_with_add_softmax",
             "npu_dropout_with_add_softmax_backward", "npu_fusion_attention",
             "npu_fusion_attention_grad", "npu_fused_attention_score", "npu_fused_attention_score_fwd",
             "npu_fused_attention_score_backward", "npu_multi_head_attention", "npu_multi_head_attention_backward",
             "npu_fast_gelu", "npu_fast_gelu_backward", "npu_rms_norm_backward",
             "npu_rotary_mul_backward", "npu_apply_rotary_pos_emb",
             "npu_softmax_cross_entropy_with_logits_backward", "npu_slice",
             "npu_swiglu", "npu_swiglu_backward", "npu_geglu", "npu_geglu_grad", "npu_scaled_masked_softmax",
             "npu_scaled_masked_softmax_backward", "npu_prompt_flash_attention", "npu_incre_flash_attention",
             "npu_add_rms_norm", "npu_layernorm_grad", "npu_lstm", "npu_lstm_backward", "npu_lstm_data",
             "npu_lstm_cell",
             "npu_lstm_cell_backward", "npu_gru", "npu_gru_backward",
             # fused residual layer norms (csrc/aten/norm/FusedLayerNormOps.cpp)
             "npu_add_layer_norm", "npu_add_layer_norm_backward", "npu_deep_norm", "npu_deep_norm_backward",
             # mixture of experts (csrc/aten/moe/)
             "npu_moe_gating_top_k_softmax", "npu_moe_init_routing", "npu_moe_compute_expert_tokens",
             "npu_moe_finalize_routing", "npu_grouped_matmul", "npu_ffn",
             # int8 quantisation (csrc/aten/linalg/QuantOps.cpp)
             "npu_quantize", "npu_trans_quant_param", "npu_quant_matmul", "npu_weight_quant_batchmatmul",
             # fused matmul + communication over hccl (csrc/distributed/MatmulCommOps.cpp)
             "npu_mm_all_reduce_base", "npu_all_gather_base_mm", "npu_mm_reduce_scatter_base",
             # detection and the helpers detection ports use (csrc/aten/detection/, index/NpuFillOps.cpp,
             # sort/SortOps.cpp, random/RandomSamplingOps.cpp)
             "npu_nms_v4", "npu_nms_with_mask", "npu_batch_nms", "npu_iou", "npu_ptiou", "npu_roi_align",
             "npu_roi_alignbk", "npu_bounding_box_encode", "npu_bounding_box_decode", "npu_deformable_conv2d",
             "npu_deformable_conv2dbk", "npu_giou", "npu_giou_backward", "npu_diou", "npu_diou_backward",
             "npu_ciou", "npu_ciou_backward", "npu_yolo_boxes_encode", "npu_anchor_response_flags",
             "npu_grid_assign_positive", "npu_one_hot", "npu_masked_fill_range", "npu_sort_v2",
             "npu_random_choice_with_mask", "npu_ps_roi_pooling", "npu_ps_roi_pooling_backward",
             "npu_rotated_overlaps", "npu_rotated_iou", "npu_rotated_box_encode", "npu_rotated_box_decode",
             "npu_nms_rotated")
TENSOR_METHODS = ("npu_dtype_cast", "npu_transpose", "npu_broadcast", "npu_confusion_transpose", "one_")


def install(module):
    """Adds the functions to `module` (torch_npu) and the methods to torch.Tensor."""
    for name in FUNCTIONS:
        setattr(module, name, getattr(torch.ops.npu, name))
    for name in TENSOR_METHODS:
        replace(f"torch.Tensor.{name}", _method(getattr(torch.ops.npu, name)), family="torch.Tensor.<custom op>")


def _method(op):
    def method(self, *args, **kwargs):
        return op(self, *args, **kwargs)
    method.__name__ = op.__name__.split(".")[-1]
    method.__doc__ = f"Tensor method of torch.ops.npu.{method.__name__}."
    return method
