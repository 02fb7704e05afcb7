"""codegen/gen_npu.py: generated registrations and its error messages (word for word)."""
import os
import subprocess

import pytest

from conftest import REPO_ROOT as ROOT

GEN = os.path.join(ROOT, "codegen", "gen_npu.py")


def _run(tmp_path, yaml_text, kernels=""):
    src = tmp_path / "aten"
    src.mkdir(exist_ok=True)
    (src / "Kernels.cpp").write_text(kernels)
    yaml_path = tmp_path / "npu.yaml"
    yaml_path.write_text(yaml_text)
    out = tmp_path / "gen"
    result = subprocess.run(["/usr/bin/python3", GEN, "--yaml", str(yaml_path), "--source-dir", str(src),
                             "--output-dir", str(out)], capture_output=True, text=True, timeout=120)
    return result, str(yaml_path), str(src), out


HEADER = "backend: NPU\ncpp_namespace: at_npu::native\n"
ADD_KERNEL = "at::Tensor& NPUNativeFunctions::add_out(const at::Tensor& a, ...) {}\n"


def test_generates_registrations(tmp_path):
    result, _, _, out = _run(tmp_path, HEADER + "supported:\n  - add.out\n", ADD_KERNEL)
    assert result.returncode == 0, result.stderr
    registration = (out / "RegisterPrivateUse1.cpp").read_text()
    assert 'm.impl("add.out"' in registration
    header = (out / "PrivateUse1NativeFunctions.h").read_text()
    assert "static at::Tensor & add_out(const at::Tensor & self, const at::Tensor & other" in header


def test_unknown_top_level_key(tmp_path):
    result, path, _, _ = _run(tmp_path, HEADER + "supportd:\n  - add.out\n")
    assert result.returncode == 1
    assert result.stderr == (f"error: {path}: unknown key(s) supportd; allowed keys: backend, cpp_namespace, "
                             "supported, structured, same_shape_outputs, autograd, custom\n")


def test_entry_without_kernel(tmp_path):
    result, path, src, _ = _run(tmp_path, HEADER + "supported:\n  - add.out\n  - mul.out\n", ADD_KERNEL)
    assert result.returncode == 1
    assert result.stderr == (f'error: {path}: "mul.out" has no kernel: expected a definition of '
                             f"NPUNativeFunctions::mul_out(...) in {src}\n")


def test_unknown_operator(tmp_path):
    result, path, _, _ = _run(tmp_path, HEADER + "supported:\n  - add.Bogus\n")
    assert result.returncode == 1
    assert result.stderr == (f'error: {path}: "add.Bogus" is not an aten operator of this PyTorch '
                             "(see torchgen/packaged/ATen/native/native_functions.yaml)\n")


def test_duplicate_entry(tmp_path):
    result, path, _, _ = _run(tmp_path, HEADER + "supported:\n  - add.out\n  - add.out\n", ADD_KERNEL)
    assert result.stderr == f'error: {path}: operator "add.out" is listed twice in "supported"\n'


@pytest.mark.parametrize("yaml_text,message", [
    ("backend: CUDA\ncpp_namespace: x\n", "\"backend\" must be NPU, got 'CUDA'"),
    ("backend: NPU\n", '"cpp_namespace" is required'),
    (HEADER + "supported: add.out\n", '"supported" must be a list of operator names, got str'),
    (HEADER + "custom:\n  - func: npu_foo(Tensor self) -> Tensor\n    dispatch: x\n",
     'custom op "npu_foo(Tensor self) -> Tensor" has unknown key(s) dispatch; allowed keys: func, kernel, composite'),
    (HEADER + "custom:\n  - func: foo(Tensor self) -> Tensor\n",
     'custom op "foo" must be named npu_* (or be one of torch_npu\'s legacy names: one_, fast_gelu, _npu_dropout)'),
    (HEADER + "custom:\n  - func: npu_foo(Tensor self) -> Tensor\n    composite: maybe\n",
     'custom op "npu_foo": "composite" must be true or false'),
    (HEADER + "custom:\n  - func: npu_foo(Tensor self) -> Tensor\n",
     'custom op "npu_foo(Tensor self) -> Tensor" has no kernel: expected a definition of '
     "NPUCustomFunctions::npu_foo(...) in {src}"),
])
def test_other_errors(tmp_path, yaml_text, message):
    result, path, src, _ = _run(tmp_path, yaml_text)
    assert result.returncode == 1
    assert result.stderr == f"error: {path}: {message.format(src=src)}\n"


def test_custom_op_generates_schema_and_declaration(tmp_path):
    kernels = "at::Tensor NPUCustomFunctions::npu_foo(const at::Tensor& self, int64_t n) {}\n"
    result, _, _, out = _run(tmp_path, HEADER + "custom:\n  - func: npu_foo(Tensor self, int n) -> Tensor\n", kernels)
    assert result.returncode == 0, result.stderr
    assert 'm.def("npu_foo(Tensor self, int n) -> Tensor");' in (out / "RegisterCustomOps.cpp").read_text()
    assert ("static at::Tensor npu_foo(const at::Tensor & self, int64_t n);"
            in (out / "NPUCustomFunctions.h").read_text())


def test_custom_op_returning_its_mutable_arguments_declares_references(tmp_path):
    # Note [Returned mutable arguments]: torchgen 1.13 alone refuses this schema.
    schema = "npu_foo(Tensor(a!) q, Tensor(b!) k, str mode='x') -> (Tensor(a!), Tensor(b!))"
    kernels = "std::tuple<at::Tensor&, at::Tensor&> NPUCustomFunctions::npu_foo(at::Tensor& q, ...) {}\n"
    result, _, _, out = _run(tmp_path, HEADER + f'custom:\n  - func: "{schema}"\n', kernels)
    assert result.returncode == 0, result.stderr
    assert ("static ::std::tuple<at::Tensor &,at::Tensor &> npu_foo(at::Tensor & q, at::Tensor & k, "
            "c10::string_view mode);" in (out / "NPUCustomFunctions.h").read_text())
    bad = "npu_foo(Tensor(a!) q, Tensor(b!)[] k) -> (Tensor(a!), Tensor(b!)[])"
    result, _, _, _ = _run(tmp_path, HEADER + f'custom:\n  - func: "{bad}"\n', kernels)
    assert result.returncode != 0 and "a returned mutable argument must be a Tensor(x!)" in result.stderr


def test_composite_custom_ops_register_as_composite_implicit_autograd(tmp_path):
    kernels = ("at::Tensor NPUCustomFunctions::npu_foo(const at::Tensor& self) {}\n"
               "at::Tensor NPUCustomFunctions::npu_bar(const at::Tensor& self) {}\n")
    yaml_text = (HEADER + "custom:\n  - func: npu_foo(Tensor self) -> Tensor\n"
                 "  - func: npu_bar(Tensor self) -> Tensor\n    composite: true\n")
    result, _, _, out = _run(tmp_path, yaml_text, kernels)
    assert result.returncode == 0, result.stderr
    source = (out / "RegisterCustomOps.cpp").read_text()
    device, composite = source.split("TORCH_LIBRARY_IMPL(npu, PrivateUse1, m) {")[1].split(
        "TORCH_LIBRARY_IMPL(npu, CompositeImplicitAutograd, m) {")
    assert 'm.impl("npu_foo"' in device and 'm.impl("npu_bar"' not in device
    assert 'm.impl("npu_bar"' in composite and 'm.impl("npu_foo"' not in composite


FLOOR_KERNEL = "at::Tensor& NPUNativeFunctions::floor_out(const at::Tensor& self, at::Tensor& out) {}\n"


def test_structured_generates_three_forms_from_the_out_kernel(tmp_path):
    result, _, _, out = _run(tmp_path, HEADER + "structured:\n  - floor.out\n", FLOOR_KERNEL)
    assert result.returncode == 0, result.stderr
    source = (out / "RegisterStructuredPrivateUse1.cpp").read_text()
    for op in ("floor", "floor_", "floor.out"):
        assert f'm.impl("{op}", TORCH_FN(' in source
    # every form runs PyTorch's meta function, then the one kernel
    assert source.count("op.meta(self);") == 3
    assert "NPUNativeFunctions::floor_out(self, op.outputs_[0]);" in source
    assert "NPUNativeFunctions::floor_out(self, self);" in source
    assert "NPUNativeFunctions::floor_out(self, out);" in source
    # only the out= kernel is declared, and torchgen registers nothing for the group
    header = (out / "PrivateUse1NativeFunctions.h").read_text()
    assert "static at::Tensor & floor_out(const at::Tensor & self, at::Tensor & out);" in header
    assert "floor_(" not in header
    assert "floor" not in (out / "RegisterPrivateUse1.cpp").read_text()


def test_structured_symint_arguments_reach_the_kernel_as_int_arrays(tmp_path):
    kernel = ("at::Tensor& NPUNativeFunctions::upsample_nearest2d_out(const at::Tensor& self, at::IntArrayRef "
              "output_size, c10::optional<double> scales_h, c10::optional<double> scales_w, at::Tensor& out) {}\n")
    result, _, _, out = _run(tmp_path, HEADER + "structured:\n  - upsample_nearest2d.out\n", kernel)
    assert result.returncode == 0, result.stderr
    source = (out / "RegisterStructuredPrivateUse1.cpp").read_text()
    assert "c10::SymIntArrayRef output_size" in source  # the dispatcher's (SymInt) signature
    assert ("NPUNativeFunctions::upsample_nearest2d_out(self, c10::asIntArrayRefSlow(output_size), scales_h, "
            "scales_w, out);") in source


def test_structured_overloads_get_distinct_wrappers(tmp_path):
    kernels = ("at::Tensor& NPUNativeFunctions::scatter_out(const at::Tensor& self, int64_t dim, const at::Tensor& "
               "index, const at::Tensor& src, c10::string_view reduce, at::Tensor& out) {}\n"
               "at::Tensor& NPUNativeFunctions::scatter_out(const at::Tensor& self, int64_t dim, const at::Tensor& "
               "index, const at::Scalar& value, c10::string_view reduce, at::Tensor& out) {}\n")
    result, _, _, out = _run(tmp_path, HEADER + "structured:\n  - scatter.reduce_out\n  - scatter.value_reduce_out\n",
                             kernels)
    assert result.returncode == 0, result.stderr
    source = (out / "RegisterStructuredPrivateUse1.cpp").read_text()
    assert 'm.impl("scatter.reduce", TORCH_FN(wrapper_npu_functional_reduce_scatter));' in source
    assert 'm.impl("scatter.value_reduce", TORCH_FN(wrapper_npu_functional_value_reduce_scatter));' in source


SUB_KERNEL = ("at::Tensor& NPUNativeFunctions::sub_out(const at::Tensor& self, const at::Tensor& other, "
              "const at::Scalar& alpha, at::Tensor& out) {}\n")


def test_same_shape_outputs_skip_the_meta_function_in_the_functional_and_in_place_forms(tmp_path):
    result, _, _, out = _run(tmp_path, HEADER + "structured:\n  - sub.out\n"
                             "same_shape_outputs:\n  sub.out: torch_npu::sameShapeSub\n", SUB_KERNEL)
    assert result.returncode == 0, result.stderr
    source = (out / "RegisterStructuredPrivateUse1.cpp").read_text()
    functional = source[source.index("wrapper_npu_functional_Tensor_sub("):]
    functional = functional[:functional.index("\n}\n")]
    assert ("  if (const auto fast_dtype = torch_npu::sameShapeSub(self, other, alpha, /*in_place=*/false)) {\n"
            "    at::Tensor fast_out = torch_npu::emptyStructuredOutput(self, self.sizes(), "
            "self.options().dtype(*fast_dtype));\n"
            "    at_npu::native::NPUNativeFunctions::sub_out(self, other, alpha, fast_out);\n"
            "    return fast_out;\n  }\n") in functional
    assert functional.index("fast_dtype") < functional.index("op.meta(")  # the meta function stays the fallback
    in_place = source[source.index("wrapper_npu_inplace_Tensor_sub_("):]
    in_place = in_place[:in_place.index("\n}\n")]
    assert ("  if (const auto fast_dtype = torch_npu::sameShapeSub(self, other, alpha, /*in_place=*/true)) {\n"
            "    at_npu::native::NPUNativeFunctions::sub_out(self, other, alpha, self);\n"
            "    return self;\n  }\n") in in_place
    out_form = source[source.index("wrapper_npu_out_out_sub_out("):]
    assert "fast_dtype" not in out_form[:out_form.index("\n}\n")]  # out= always checks out's dtype and size
    assert source.count("torch_npu::sameShapeSub(") == 2


@pytest.mark.parametrize("yaml_text,message", [
    (HEADER + "structured:\n  - floor.out\nsame_shape_outputs:\n  ceil.out: torch_npu::f\n",
     'same_shape_outputs entry "ceil.out" is not listed under "structured"'),
    (HEADER + "structured:\n  - floor.out\nsame_shape_outputs:\n  floor.out: not a name\n",
     "same_shape_outputs entry \"floor.out\" must name a C++ function, got 'not a name'"),
    (HEADER + "structured:\n  - floor.out\nsame_shape_outputs:\n  floor.out: torch_npu::f\n",
     'same_shape_outputs: "floor.out" must be a binary elementwise (TensorIterator) operator with one output'),
])
def test_same_shape_outputs_errors(tmp_path, yaml_text, message):
    result, path, _, _ = _run(tmp_path, yaml_text, FLOOR_KERNEL)
    assert result.returncode == 1
    expected = f"error: {message}\n" if message.startswith("same_shape_outputs:") else f"error: {path}: {message}\n"
    assert result.stderr == expected


@pytest.mark.parametrize("yaml_text,message", [
    (HEADER + "structured:\n  - floor\n",
     'structured entry "floor" must name the out= overload of an operator group (e.g. "floor.out"); '
     'list other operators under "supported"'),
    (HEADER + "structured:\n  - flip.out\n",
     '"flip.out" is not a structured operator in this PyTorch (no at::meta::structured_flip); '
     'list its forms under "supported" instead'),
    (HEADER + "supported:\n  - floor_\nstructured:\n  - floor.out\n",
     '"floor.out" is structured, so its forms are generated; remove floor_ from "supported"'),
    (HEADER + "supported:\n  - floor.out\nstructured:\n  - floor.out\n",
     'operator(s) floor.out listed in both "supported" and "structured"'),
    (HEADER + "structured:\n  - ceil.out\n",
     '"ceil.out" has no kernel: expected a definition of NPUNativeFunctions::ceil_out(...) in {src}'),
])
def test_structured_errors(tmp_path, yaml_text, message):
    result, path, src, _ = _run(tmp_path, yaml_text,
                                FLOOR_KERNEL + "at::Tensor& NPUNativeFunctions::floor_(at::Tensor& self) {}\n")
    assert result.returncode == 1
    assert result.stderr == f"error: {path}: {message.format(src=src)}\n"
