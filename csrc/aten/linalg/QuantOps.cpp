// torch_npu's int8 operators, one simulator kernel each (OPS.md "Quantised
// matrix products"), with torch_npu's signatures; inference only, as in
// torch_npu (no autograd: the outputs are integers or come from integers).
//   npu_quantize                  Quantize (div_mode) / AscendQuantV2
//   npu_trans_quant_param         TransQuantParamV2 (Note [Quant params] in the simulator)
//   npu_quant_matmul              QuantBatchMatmulV3: int8 x int8 on the Cube at twice the fp16 rate
//   npu_weight_quant_batchmatmul  WeightQuantBatchMatmulV2: fp16 / bf16 x int8 weights
//
// Note [npu_quantize's dtypes]
// torch_npu takes torch.qint8 / torch.quint8 / torch.qint32 for `dtype` and
// returns the plain integer tensor of that width (int8 / uint8 / int32);
// torch.int8 / uint8 / int32 are accepted as well. No quantizer is attached.
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

at::ScalarType quantizedStorage(at::ScalarType dtype) {
  switch (dtype) {
    case at::kQInt8:
    case at::kChar: return at::kChar;
    case at::kQUInt8:
    case at::kByte: return at::kByte;
    case at::kQInt32:
    case at::kInt: return at::kInt;
    default:
      TORCH_CHECK(false,
                  "npu_quantize: dtype must be torch.qint8, torch.quint8 or torch.qint32 (or int8 / uint8 / "
                  "int32), got ",
                  dtype);
  }
}

void checkQuantFloat(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(at::isFloatingType(t.scalar_type()) && t.scalar_type() != at::kDouble, op, ": ", name,
              " must be float32, float16 or bfloat16, got ", t.scalar_type());
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_quantize(const at::Tensor& input, const at::Tensor& scales,
                                            const c10::optional<at::Tensor>& zero_points, at::ScalarType dtype,
                                            int64_t axis, bool div_mode) {
  const char* op = "npu_quantize";
  checkQuantFloat(op, "input", input);
  checkQuantFloat(op, "scales", scales);
  const at::ScalarType out_dtype = quantizedStorage(dtype);
  if (scales.numel() != 1) {
    TORCH_CHECK(input.dim() > 0 && axis >= -input.dim() && axis < input.dim(), op, ": axis ", axis,
                " is out of range for input of shape ", input.sizes());
    TORCH_CHECK(scales.dim() == 1 && scales.size(0) == input.size(axis), op, ": scales must have 1 or ",
                input.size(axis), " (input's size along axis ", axis, ") values, got shape ", scales.sizes());
  }
  at::Tensor out = torch_npu::emptyNpu(input.sizes(), out_dtype, input.device());
  OpCommand cmd(div_mode ? "Quantize" : "AscendQuantV2");
  cmd.Input(input).Input(scales);
  if (torch_npu::given(zero_points)) {
    TORCH_CHECK(zero_points->sizes() == scales.sizes(), op, ": zero_points of shape ", zero_points->sizes(),
                " must have scales' shape ", scales.sizes());
    cmd.Input(*zero_points);
  }
  cmd.Output(out).Attr("axis", scales.numel() == 1 ? int64_t{-1} : axis).Attr("dtype", out_dtype).Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_trans_quant_param(const at::Tensor& scale, const c10::optional<at::Tensor>& offset) {
  const char* op = "npu_trans_quant_param";
  TORCH_CHECK(scale.scalar_type() == at::kFloat && (scale.dim() == 1 || (scale.dim() == 2 && scale.size(0) == 1)), op,
              ": scale must be float32 [t] or [1, n], got ", scale.scalar_type(), " ", scale.sizes());
  std::vector<int64_t> shape(scale.sizes().begin(), scale.sizes().end());
  OpCommand cmd("TransQuantParamV2");
  cmd.Input(scale);
  if (torch_npu::given(offset)) {
    TORCH_CHECK(offset->scalar_type() == at::kFloat && offset->dim() == scale.dim(), op,
                ": offset must be float32 of scale's rank, got ", offset->scalar_type(), " ", offset->sizes());
    TORCH_CHECK(offset->numel() == scale.numel() || offset->numel() == 1 || scale.numel() == 1, op, ": offset of ",
                offset->numel(), " values does not pair with scale of ", scale.numel());
    if (offset->numel() > scale.numel()) shape.assign(offset->sizes().begin(), offset->sizes().end());
    cmd.Input(*offset);
  }
  at::Tensor out = torch_npu::emptyNpu(shape, at::kLong, scale.device());
  cmd.Output(out).Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_quant_matmul(const at::Tensor& x1, const at::Tensor& x2, const at::Tensor& scale,
                                                const c10::optional<at::Tensor>& offset,
                                                const c10::optional<at::Tensor>& pertoken_scale,
                                                const c10::optional<at::Tensor>& bias,
                                                c10::optional<at::ScalarType> output_dtype) {
  const char* op = "npu_quant_matmul";
  TORCH_CHECK(x1.scalar_type() == at::kChar && x2.scalar_type() == at::kChar, op, ": x1 and x2 must be int8, got ",
              x1.scalar_type(), " and ", x2.scalar_type());
  TORCH_CHECK(x1.dim() >= 2 && x2.dim() >= 2 && x1.size(-1) == x2.size(-2), op, ": x1 of shape ", x1.sizes(),
              " does not multiply x2 of shape ", x2.sizes());
  TORCH_CHECK(x2.dim() == 2 || x2.sizes().slice(0, x2.dim() - 2) == x1.sizes().slice(0, x1.dim() - 2), op,
              ": x2's batch dims ", x2.sizes(), " must be x1's ", x1.sizes(), " or none");
  const at::ScalarType out = output_dtype.value_or(at::kChar);
  TORCH_CHECK(out == at::kChar || out == at::kHalf || out == at::kBFloat16, op,
              ": output_dtype must be torch.int8 (default), torch.float16 or torch.bfloat16, got ", out);
  TORCH_CHECK(scale.scalar_type() == at::kFloat || scale.scalar_type() == at::kLong, op,
              ": scale must be float32, or int64 from npu_trans_quant_param, got ", scale.scalar_type());
  TORCH_CHECK(!torch_npu::given(offset) || out == at::kChar, op,
              ": offset requantises an int8 output; output_dtype is ", out);
  TORCH_CHECK(!torch_npu::given(pertoken_scale) || out != at::kChar, op,
              ": pertoken_scale needs output_dtype torch.float16 or torch.bfloat16");
  TORCH_CHECK(!torch_npu::given(bias) || bias->scalar_type() == at::kInt, op, ": bias must be int32, got ",
              bias->scalar_type());
  std::vector<int64_t> shape(x1.sizes().begin(), x1.sizes().end());
  shape.back() = x2.size(-1);
  at::Tensor y = torch_npu::emptyNpu(shape, out, x1.device());
  OpCommand cmd("QuantBatchMatmulV3");
  cmd.Input(x1).Input(x2).Input(scale.reshape({-1}));
  for (const auto* t : {&offset, &bias, &pertoken_scale})
    if (torch_npu::given(*t)) cmd.Input((*t)->reshape({-1}));
  cmd.Output(y)
      .Attr("dtype", out)
      .Attr("has_offset", torch_npu::given(offset))
      .Attr("has_bias", torch_npu::given(bias))
      .Attr("has_pertoken_scale", torch_npu::given(pertoken_scale))
      .Run();
  return y;
}

at::Tensor NPUCustomFunctions::npu_weight_quant_batchmatmul(const at::Tensor& x, const at::Tensor& weight,
                                                            const at::Tensor& antiquant_scale,
                                                            const c10::optional<at::Tensor>& antiquant_offset,
                                                            const c10::optional<at::Tensor>& quant_scale,
                                                            const c10::optional<at::Tensor>& quant_offset,
                                                            const c10::optional<at::Tensor>& bias,
                                                            int64_t antiquant_group_size) {
  const char* op = "npu_weight_quant_batchmatmul";
  TORCH_CHECK(x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16, op,
              ": x must be float16 or bfloat16, got ", x.scalar_type());
  TORCH_CHECK(weight.scalar_type() == at::kChar, op, ": weight must be int8, got ", weight.scalar_type());
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(0), op, ": x of shape ", x.sizes(),
              " does not multiply weight of shape ", weight.sizes(), " (2-D each)");
  TORCH_CHECK(!torch_npu::given(quant_scale) && !torch_npu::given(quant_offset), op,
              ": quant_scale / quant_offset (an int8 output) are not supported by the NPU backend");
  TORCH_CHECK(antiquant_scale.scalar_type() == x.scalar_type(), op, ": antiquant_scale must have x's dtype ",
              x.scalar_type(), ", got ", antiquant_scale.scalar_type());
  at::Tensor y = torch_npu::emptyNpu({x.size(0), weight.size(1)}, x.scalar_type(), x.device());
  // per channel as [N] (torch_npu also takes [1, N]); per group as [K / G, N]
  const at::Tensor scale = antiquant_group_size > 0 ? antiquant_scale : antiquant_scale.reshape({-1});
  OpCommand cmd("WeightQuantBatchMatmulV2");
  cmd.Input(x).Input(weight).Input(scale);
  if (torch_npu::given(antiquant_offset))
    cmd.Input(antiquant_group_size > 0 ? *antiquant_offset : antiquant_offset->reshape({-1}));
  if (torch_npu::given(bias)) cmd.Input(bias->reshape({-1}));
  cmd.Output(y)
      .Attr("has_offset", torch_npu::given(antiquant_offset))
      .Attr("has_bias", torch_npu::given(bias))
      .Attr("antiquant_group_size", antiquant_group_size)
      .Run();
  return y;
}

}  // namespace native
}  // namespace at_npu
