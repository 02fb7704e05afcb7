"""Generates the NPU dispatcher registrations from yaml/npu_native_functions.yaml.

Note [Codegen]
The YAML lists which aten operators the NPU implements (`supported`), which
out= operators are structured kernels whose functional and in-place forms
are generated (`structured`, see Note [Structured NPU kernels] in
codegen/structured.py; `same_shape_outputs` names the C++ function that lets
some of them skip the meta function, Note [Outputs without TensorIterator]
in csrc/aten/common/SameShapeOutputs.h), which it implements *including* autograd
(`autograd`, registered on AutogradPrivateUse1), and custom operators of the
`npu` namespace (`custom`, each with a full schema). We validate the YAML ourselves (unknown keys,
unknown operators, entries with no C++ definition are errors that name the
entry), then hand a torchgen `BackendIndex` to torchgen's own
`gen_dispatchkey_nativefunc_headers` / `gen_dispatcher_registrations`, which
write `PrivateUse1NativeFunctions.h` and `RegisterPrivateUse1.cpp` into the
build tree, and the structured wrappers into `RegisterStructuredPrivateUse1.cpp`.
Output files are rewritten only when their content changes.

Usage: gen_npu.py --yaml YAML --source-dir CSRC --output-dir DIR

Kernels are found anywhere under CSRC: the op families' in csrc/aten, and the
few that communicate (npu_mm_all_reduce_base, ...) in csrc/distributed, the
layer above aten that holds the communicators.
"""
import argparse
import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, List, Sequence

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from structured import StructuredError, find_structured_groups, structured_sources  # noqa: E402

BACKEND_DISPATCH_KEY = "PrivateUse1"
CLASS_NAME = "NPUNativeFunctions"
CUSTOM_CLASS_NAME = "NPUCustomFunctions"
VALID_TOP_LEVEL_KEYS = ("backend", "cpp_namespace", "supported", "structured", "same_shape_outputs", "autograd",
                        "custom")
VALID_CUSTOM_KEYS = ("func", "kernel", "composite")
# torch_npu names of the npu:: namespace without the npu_ prefix.
LEGACY_CUSTOM_NAMES = ("one_", "fast_gelu", "_npu_dropout")


class CodegenError(Exception):
    """A problem in the YAML, reported to the user without a traceback."""


@dataclass(frozen=True)
class CustomOp:
    schema: str  # "npu_foo(Tensor self, int n) -> Tensor"
    kernel: str  # C++ member of NPUCustomFunctions
    # composite: the kernel is written with aten ops and registered as
    # CompositeImplicitAutograd, so autograd comes from the ops it calls
    # (Note [Composite custom ops]); else it is the PrivateUse1 kernel.
    composite: bool = False


@dataclass(frozen=True)
class NpuYaml:
    backend: str
    cpp_namespace: str
    supported: Sequence[str]
    structured: Sequence[str]
    autograd: Sequence[str]
    custom: Sequence[CustomOp]
    # structured out= operator -> C++ function that sizes its output without the meta function
    # (Note [Outputs without TensorIterator] in csrc/aten/common/SameShapeOutputs.h)
    same_shape_outputs: Dict[str, str]


def _reject_unknown_keys(mapping: Dict, allowed: Sequence[str], subject: str) -> None:
    """Raise CodegenError "<subject> unknown key(s) ...; allowed keys: ..." if `mapping` has keys not in `allowed`."""
    unknown = sorted(set(mapping) - set(allowed))
    if unknown:
        raise CodegenError(f'{subject} unknown key(s) {", ".join(unknown)}; allowed keys: {", ".join(allowed)}')


def _op_list(values: Dict, key: str, path: str) -> List[str]:
    ops = values.get(key) or []
    if not isinstance(ops, list):
        raise CodegenError(f'{path}: "{key}" must be a list of operator names, got {type(ops).__name__}')
    for op in ops:
        if not isinstance(op, str):
            raise CodegenError(f'{path}: entry {op!r} in "{key}" must be an operator name string')
    seen = set()
    for op in ops:
        if op in seen:
            raise CodegenError(f'{path}: operator "{op}" is listed twice in "{key}"')
        seen.add(op)
    return ops


def _custom_ops(values: Dict, path: str) -> List[CustomOp]:
    entries = values.get("custom") or []
    if not isinstance(entries, list):
        raise CodegenError(f'{path}: "custom" must be a list of {{func: schema}} entries')
    ops = []
    for entry in entries:
        if not isinstance(entry, dict) or "func" not in entry:
            raise CodegenError(f'{path}: custom entry {entry!r} must be a mapping with a "func" schema')
        _reject_unknown_keys(entry, VALID_CUSTOM_KEYS, f'{path}: custom op "{entry["func"]}" has')
        schema = entry["func"]
        name = schema.split("(", 1)[0].strip()
        if not name.startswith("npu_") and name not in LEGACY_CUSTOM_NAMES:
            raise CodegenError(f'{path}: custom op "{name}" must be named npu_* (or be one of torch_npu\'s '
                               f'legacy names: {", ".join(LEGACY_CUSTOM_NAMES)})')
        composite = entry.get("composite", False)
        if not isinstance(composite, bool):
            raise CodegenError(f'{path}: custom op "{name}": "composite" must be true or false')
        ops.append(CustomOp(schema=schema, kernel=entry.get("kernel", name.replace(".", "_")), composite=composite))
    return ops


def _same_shape_outputs(values: Dict, structured: Sequence[str], path: str) -> Dict[str, str]:
    entries = values.get("same_shape_outputs") or {}
    if not isinstance(entries, dict):
        raise CodegenError(f'{path}: "same_shape_outputs" must map structured out= operators to C++ functions')
    for op, function in entries.items():
        if op not in structured:
            raise CodegenError(f'{path}: same_shape_outputs entry "{op}" is not listed under "structured"')
        if not isinstance(function, str) or not re.fullmatch(r"[A-Za-z_][\w:]*", function):
            raise CodegenError(f'{path}: same_shape_outputs entry "{op}" must name a C++ function, got {function!r}')
    return dict(entries)


def parse_npu_yaml(path: str) -> NpuYaml:
    with open(path) as f:
        values = yaml.safe_load(f) or {}
    if not isinstance(values, dict):
        raise CodegenError(f"{path}: expected a mapping at the top level")
    _reject_unknown_keys(values, VALID_TOP_LEVEL_KEYS, f"{path}:")
    if values.get("backend") != "NPU":
        raise CodegenError(f'{path}: "backend" must be NPU, got {values.get("backend")!r}')
    if not values.get("cpp_namespace"):
        raise CodegenError(f'{path}: "cpp_namespace" is required')
    supported = _op_list(values, "supported", path)
    structured = _op_list(values, "structured", path)
    autograd = _op_list(values, "autograd", path)
    lists = {"supported": supported, "structured": structured, "autograd": autograd}
    for first, second in (("supported", "autograd"), ("supported", "structured"), ("structured", "autograd")):
        both = sorted(set(lists[first]) & set(lists[second]))
        if both:
            raise CodegenError(f'{path}: operator(s) {", ".join(both)} listed in both "{first}" and "{second}"')
    return NpuYaml(values["backend"], values["cpp_namespace"], supported, structured, autograd,
                   _custom_ops(values, path), _same_shape_outputs(values, structured, path))


def _defined_kernels(source_dir: str) -> set:
    """(class, name) pairs such that a source under source_dir defines class::name(."""
    pattern = re.compile(r"\b(" + CLASS_NAME + "|" + CUSTOM_CLASS_NAME + r")::(\w+)\s*\(")
    names = set()
    for root, _, files in os.walk(source_dir):
        for name in files:
            if name.endswith(".cpp"):
                with open(os.path.join(root, name)) as f:
                    names.update(pattern.findall(f.read()))
    return names


def _ungroup_void_out_variants(grouped):
    """Splits groups whose out= variant returns nothing (e.g. _foreach_add.Scalar_out).

    For a group with some members registered, torchgen generates wrappers for
    the missing members, which fails for out= variants returning (). Treated
    as standalone functions, each registered member is emitted as is.
    """
    from torchgen.model import NativeFunctionsGroup

    result = []
    for g in grouped:
        if isinstance(g, NativeFunctionsGroup) and len(g.out.func.returns) == 0:
            result.extend(g.functions())
        else:
            result.append(g)
    return result


def generate(npu_yaml: NpuYaml, yaml_path: str, source_dir: str, output_dir: str) -> None:
    import torchgen
    from torchgen.api import dispatcher
    from torchgen.gen import get_grouped_native_functions, parse_native_yaml
    from torchgen.gen_backend_stubs import gen_dispatcher_registrations, gen_dispatchkey_nativefunc_headers
    from torchgen.model import BackendIndex, BackendMetadata, DispatchKey, OperatorName
    from torchgen.selective_build.selector import SelectiveBuilder
    from torchgen.utils import FileManager

    packaged = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen")
    parsed = parse_native_yaml(os.path.join(packaged, "native", "native_functions.yaml"),
                               os.path.join(packaged, "native", "tags.yaml"))
    functions = {f.func.name: f for f in parsed.native_functions}
    grouped = _ungroup_void_out_variants(get_grouped_native_functions(parsed.native_functions))
    defined = _defined_kernels(source_dir)
    backend_indices = dict(parsed.backend_indices)

    def index_for(ops: Sequence[str], key: DispatchKey) -> BackendIndex:
        metadata = {}
        for op in ops:
            op_name = OperatorName.parse(op)
            if op_name not in functions:
                raise CodegenError(f'{yaml_path}: "{op}" is not an aten operator of this PyTorch '
                                   f'(see torchgen/packaged/ATen/native/native_functions.yaml)')
            kernel = dispatcher.name(functions[op_name].func)
            if (CLASS_NAME, kernel) not in defined:
                raise CodegenError(f'{yaml_path}: "{op}" has no kernel: expected a definition of '
                                   f'{CLASS_NAME}::{kernel}(...) in {source_dir}')
            metadata[op_name] = BackendMetadata(kernel=kernel, structured=False,
                                                cpp_namespace=npu_yaml.cpp_namespace)
        return BackendIndex(dispatch_key=key, use_out_as_primary=False, external=True,
                            device_guard=False, index=metadata)

    backend_key = DispatchKey.PrivateUse1
    autograd_key = DispatchKey.AutogradPrivateUse1
    try:
        groups = find_structured_groups(npu_yaml.structured, grouped, yaml_path)
    except StructuredError as e:
        raise CodegenError(str(e)) from None
    hand_written = set(npu_yaml.supported)
    for g in groups:
        clash = sorted(str(f.func.name) for f in g.functions() if str(f.func.name) in hand_written)
        if clash:
            raise CodegenError(f'{yaml_path}: "{g.out.func.name}" is structured, so its forms are generated; '
                               f'remove {", ".join(clash)} from "supported"')
    # Kernels are declared for every listed operator (structured ones: the
    # out= kernel); registrations are generated by torchgen only for the
    # hand-written ones (structured wrappers: structured_sources).
    registered = index_for(npu_yaml.supported, backend_key)
    declared = index_for(list(npu_yaml.supported) + list(npu_yaml.structured), backend_key)
    backend_indices[autograd_key] = index_for(npu_yaml.autograd, autograd_key)
    for op in npu_yaml.custom:
        if (CUSTOM_CLASS_NAME, op.kernel) not in defined:
            raise CodegenError(f'{yaml_path}: custom op "{op.schema}" has no kernel: expected a definition '
                               f'of {CUSTOM_CLASS_NAME}::{op.kernel}(...) in {source_dir}')

    template_dir = os.path.join(packaged, "templates")
    fm = FileManager(install_dir=output_dir, template_dir=template_dir, dry_run=False)
    backend_indices[backend_key] = declared
    gen_dispatchkey_nativefunc_headers(fm, CLASS_NAME, npu_yaml.cpp_namespace, backend_indices, grouped,
                                       backend_key, autograd_key)
    backend_indices[backend_key] = registered
    for key in (backend_key, autograd_key):
        gen_dispatcher_registrations(fm, output_dir, CLASS_NAME, backend_indices, grouped, backend_key,
                                     key, SelectiveBuilder.get_nop_selector())
    for key in (backend_key, autograd_key):
        _mark_template_helpers_unused(os.path.join(output_dir, f"Register{key}.cpp"))
    header, registrations = _custom_op_sources(npu_yaml)
    _write_if_changed(os.path.join(output_dir, CUSTOM_CLASS_NAME + ".h"), header)
    _write_if_changed(os.path.join(output_dir, "RegisterCustomOps.cpp"), registrations)
    kernels = {g.out.func.name: dispatcher.name(g.out.func) for g in groups}
    try:
        sources = structured_sources(groups, kernels, npu_yaml.cpp_namespace, npu_yaml.same_shape_outputs)
    except StructuredError as e:
        raise CodegenError(str(e)) from None
    _write_if_changed(os.path.join(output_dir, "RegisterStructuredPrivateUse1.cpp"), sources)


# torch 1.13's RegisterDispatchDefinitions template defines these helpers in every registration file, used
# or not; later PyTorch marks them C10_UNUSED. So does this, so that the build needs no -Wno-unused flag.
_TEMPLATE_HELPERS = ("void resize_out(const Tensor &out,", "void check_inplace(const Tensor &self,")


def _mark_template_helpers_unused(path: str) -> None:
    with open(path) as f:
        text = f.read()
    for helper in _TEMPLATE_HELPERS:
        if helper in text and "C10_UNUSED " + helper not in text:
            text = text.replace(helper, "C10_UNUSED " + helper, 1)
    _write_if_changed(path, text)


GENERATED = "// @generated by codegen/gen_npu.py from yaml/npu_native_functions.yaml. Do not edit."


def _custom_op_sources(npu_yaml: NpuYaml):
    """The declarations header and the registration source of the custom npu:: ops."""
    from torchgen import local

    header = [GENERATED, "#pragma once", "#include <ATen/ATen.h>", "",
              f"namespace {npu_yaml.cpp_namespace} {{", f"struct {CUSTOM_CLASS_NAME} {{"]
    with local.parametrize(use_const_ref_for_mutable_tensors=False, use_ilistref_for_tensor_lists=False):
        for op in npu_yaml.custom:
            returns_type, arguments = _custom_op_signature(op.schema)
            header.append(f"  static {returns_type} {op.kernel}({', '.join(arguments)});")
    header += ["};", f"}}  // namespace {npu_yaml.cpp_namespace}"]
    lines = [GENERATED, f'#include "{CUSTOM_CLASS_NAME}.h"', "#include <torch/library.h>", "",
             "TORCH_LIBRARY(npu, m) {"]
    lines += [f'  m.def("{op.schema}");' for op in npu_yaml.custom]
    lines.append("}")
    for key, composite in (("PrivateUse1", False), ("CompositeImplicitAutograd", True)):
        ops = [op for op in npu_yaml.custom if op.composite == composite]
        if not ops:
            continue
        lines += ["", f"TORCH_LIBRARY_IMPL(npu, {key}, m) {{"]
        lines += [f'  m.impl("{op.schema.split("(", 1)[0].strip()}", '
                  f"TORCH_FN({npu_yaml.cpp_namespace}::{CUSTOM_CLASS_NAME}::{op.kernel}));" for op in ops]
        lines.append("}")
    return "\n".join(header) + "\n", "\n".join(lines) + "\n"


def _custom_op_signature(schema: str):
    """The C++ return type and argument declarations of a custom op's kernel.

    Note [Returned mutable arguments]
    torch_npu has ops that update arguments in place and return them, without an
    in-place name: npu_apply_rotary_pos_emb(Tensor(a!) query, Tensor(b!) key,
    ...) -> (Tensor(a!), Tensor(b!)). The dispatcher takes such a schema, but
    torchgen 1.13 refuses to parse it ("mutable positional args ... not
    returned"). We parse the arguments with the returns set aside, and declare
    each returned mutable argument as `at::Tensor &` (a std::tuple of them for
    several), the type the dispatcher expects for returned aliases.
    """
    from torchgen.api.types import DispatcherSignature
    from torchgen.model import FunctionSchema, parse_returns

    try:
        sig = DispatcherSignature.from_schema(FunctionSchema.parse(schema))
        return sig.returns_type().cpp_type(), [a.decl() for a in sig.arguments()]
    except AssertionError as e:
        if "mutable positional args" not in str(e):
            raise
    head, _, returns_decl = schema.rpartition("->")
    returns = parse_returns(returns_decl.strip())
    if not all(r.annotation is not None and r.annotation.is_write and str(r.type) == "Tensor" for r in returns):
        raise CodegenError(f'custom op "{schema}": a returned mutable argument must be a Tensor(x!)')
    sig = DispatcherSignature.from_schema(FunctionSchema.parse(head.strip() + " -> ()"))
    refs = ["at::Tensor &"] * len(returns)
    returns_type = refs[0] if len(refs) == 1 else f"::std::tuple<{','.join(refs)}>"
    return returns_type, [a.decl() for a in sig.arguments()]


def _write_if_changed(path: str, content: str) -> None:
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == content:
                return
    with open(path, "w") as f:
        f.write(content)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--yaml", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--output-dir", required=True)
    args = parser.parse_args(argv)
    try:
        npu_yaml = parse_npu_yaml(args.yaml)
        os.makedirs(args.output_dir, exist_ok=True)
        generate(npu_yaml, args.yaml, args.source_dir, args.output_dir)
    except CodegenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
