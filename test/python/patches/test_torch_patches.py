"""The one list of torch_npu's patches to torch (Note [The list of patches to torch] in
torch_npu/_patches/registry.py): every entry is complete, every applied target holds its replacement,
a second install changes nothing, and no module but the registry assigns to a torch attribute."""
import ast
import json
import pathlib
import textwrap

import pytest

import torch_npu._patches as patches
from conftest import REPO_ROOT, TEST_DIR, run_python
from torch_npu._patches import registry

ROOT = pathlib.Path(REPO_ROOT)
PACKAGE = ROOT / "torch_npu"
TESTS = pathlib.Path(TEST_DIR)


@pytest.mark.parametrize("namespace", ["torch_npu", "transfer_to_npu"])
def test_every_patch_says_why_for_which_torch_and_which_test_exercises_it(namespace):
    entries = registry.patches(namespace)
    targets = [p.target for p in entries]
    assert len(targets) == len(set(targets)), "a target is declared twice"
    for patch in entries:
        assert patch.target.startswith("torch.") and patch.reason.strip() and "\n" not in patch.reason, patch
        assert patch.torch_version == "1.13", patch
        path, _, test = patch.covered_by.partition("::")
        assert (TESTS / path).is_file(), f"{patch.target}: no test file test/python/{path}"
        if test:
            assert f"def {test}(" in (TESTS / path).read_text(), f"{patch.target}: no test {patch.covered_by}"


# Runs in a fresh interpreter: what `import torch_npu` (and then `extra`) applied, checked against the lists.
_CHECK = """
    import json
    import torch_npu
    {extra}
    from torch_npu._patches import registry
    problems, applied = [], {{}}
    for namespace in {namespaces}:
        done = registry.applied(namespace)
        applied.update({{target: new for target, (_, new) in done.items()}})  # a later list wraps an earlier one
        used = {{patch.target for patch, _ in done.values()}}
        problems += [f"{{namespace}}: {{p.target}} was not applied" for p in registry.patches(namespace)
                     if not p.when and p.target not in used]
        problems += [f"{{target}} is not a member of {{p.target}}" for target, (p, _) in done.items()
                     if not registry.in_family(target, p.target)]
    problems += [f"{{target}} does not hold its replacement" for target, new in applied.items()
                 if registry.current(target) is not new]
    print(json.dumps({{"problems": problems, "applied": len(applied)}}))
"""


def _check(extra="", namespaces=("torch_npu",)):
    result = run_python(_CHECK.format(extra=extra, namespaces=list(namespaces)))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_after_import_torch_npu_every_target_holds_its_replacement():
    report = _check()
    assert report["problems"] == [] and report["applied"] > 100


def test_transfer_to_npu_applies_its_own_list_on_top():
    report = _check("import torch_npu.contrib.transfer_to_npu", ("torch_npu", "transfer_to_npu"))
    assert report["problems"] == [] and report["applied"] > 200


def test_a_second_install_changes_nothing():
    before = {target: registry.current(target) for target in registry.applied()}
    patches.install()
    assert {target: registry.current(target) for target in registry.applied()} == before


def test_an_undeclared_patch_is_refused():
    with pytest.raises(LookupError, match="add a Patch for 'torch.not_a_declared_patch'"):
        registry.replace("torch.not_a_declared_patch", object())
    with pytest.raises(ValueError, match="not a member of the family"):
        registry.replace("torch.utils.x", object(), family="torch.nn.parallel.comm.<primitive>")


# ---- the static scan -------------------------------------------------------------------------------
class _TorchAssignments(ast.NodeVisitor):
    """Assignments to attributes or items of torch objects: names bound by `import torch...`,
    `from torch... import`, importlib.import_module, and, within a function, names bound to their
    attributes or items (also as loop variables over them). torch.npu is torch_npu's own module.
    Function parameters are not followed."""

    def __init__(self, names=(), found=None):
        self.names, self.found = set(names), [] if found is None else found

    def is_torch(self, node):
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            is_torch_npu = isinstance(node.value, ast.Name) and node.value.id == "torch" and node.attr == "npu"
            return not is_torch_npu and self.is_torch(node.value)
        if isinstance(node, ast.Subscript):
            return self.is_torch(node.value)
        if isinstance(node, (ast.Tuple, ast.List, ast.ListComp, ast.GeneratorExp)):
            parts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node.elt]
            return any(self.is_torch(part) for part in parts)
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in ("getattr", "vars", "list", "tuple", "iter") and node.args:
                return self.is_torch(node.args[0])
            if name == "import_module" and node.args:
                module = node.args[0]
                return not isinstance(module, ast.Constant) or str(module.value).split(".")[0] == "torch"
            if name in ("items", "values", "keys") and isinstance(node.func, ast.Attribute):
                return self.is_torch(node.func.value)
        return False

    def bind(self, target, value):
        if isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value] * len(target.elts)
            for part, part_value in zip(target.elts, values):
                self.bind(part, part_value)
        elif isinstance(target, ast.Name) and self.is_torch(value):
            self.names.add(target.id)
        elif isinstance(target, ast.Name):
            self.names.discard(target.id)

    def check(self, target):
        if isinstance(target, (ast.Tuple, ast.List)):
            for part in target.elts:
                self.check(part)
        elif isinstance(target, (ast.Attribute, ast.Subscript)) and self.is_torch(target.value):
            self.found.append((target.lineno, ast.unparse(target)))

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name.split(".")[0] == "torch":
                self.names.add(alias.asname or "torch")

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module.split(".")[0] == "torch":
            self.names.update(alias.asname or alias.name for alias in node.names)

    def visit_Assign(self, node):
        self.generic_visit(node)
        for target in node.targets:
            self.check(target)
            self.bind(target, node.value)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        self.check(node.target)

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        self.check(node.target)
        if node.value is not None:
            self.bind(node.target, node.value)

    def visit_Delete(self, node):
        for target in node.targets:
            self.check(target)

    def visit_For(self, node):
        iterated = node.iter.elts[0] if isinstance(node.iter, (ast.Tuple, ast.List)) and node.iter.elts else node.iter
        self.bind(node.target, iterated if self.is_torch(node.iter) else node.iter)
        self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        sets = isinstance(func, ast.Name) and func.id in ("setattr", "delattr") and node.args and \
            self.is_torch(node.args[0])
        registers = isinstance(func, ast.Attribute) and (
            func.attr == "register" and self.is_torch(func.value) or  # ForkingPickler.register
            func.attr == "pickle" and isinstance(func.value, ast.Name) and func.value.id == "copyreg")
        if sets or registers:
            self.found.append((node.lineno, ast.unparse(node)))

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        scope = _TorchAssignments(self.names, self.found)
        for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            scope.names.discard(arg.arg)
        for statement in node.body:
            scope.visit(statement)

    visit_AsyncFunctionDef = visit_FunctionDef


def test_the_scan_finds_every_form_of_patch():
    source = textwrap.dedent("""
        import copyreg, importlib
        import torch
        import torch.nn.parallel.comm as comm
        from torch.utils import checkpoint
        from torch.multiprocessing.reductions import ForkingPickler
        torch.save = 1
        torch.Tensor.npu = 2
        setattr(torch.nn.Module, "npu", 3)
        comm.broadcast = 4
        checkpoint.CheckpointFunction.forward = 5
        importlib.import_module("torch.utils.data.dataloader")._BaseDataLoaderIter.x = 6
        ForkingPickler._extra_reducers[torch.Tensor] = 7
        ForkingPickler.register(torch.Tensor, 8)
        copyreg.pickle(torch.Tensor, 9)
        del torch.load

        def install(name):
            function = checkpoint.CheckpointFunction
            function.forward = 10
            for cls in (torch.UntypedStorage, torch.Tensor):
                cls.share_memory_ = 11
            reducers = ForkingPickler._extra_reducers
            reducers[int] = 12
            for module in [importlib.import_module(name) for name in ("torch.a", "torch.b")]:
                module.torch = 13

        def not_patches(torch_module, ctx):
            x = torch.zeros(1)
            x.grad = torch.ones(1)
            torch.npu.config.allow_internal_format = False
            torch_module.x = 1
            ctx.saved = 2
    """)
    assert [text for _, text in _scan(source)] == [
        "torch.save", "torch.Tensor.npu", "setattr(torch.nn.Module, 'npu', 3)", "comm.broadcast",
        "checkpoint.CheckpointFunction.forward",
        "importlib.import_module('torch.utils.data.dataloader')._BaseDataLoaderIter.x",
        "ForkingPickler._extra_reducers[torch.Tensor]", "ForkingPickler.register(torch.Tensor, 8)",
        "copyreg.pickle(torch.Tensor, 9)", "torch.load", "function.forward", "cls.share_memory_", "reducers[int]",
        "module.torch"]


def test_no_module_but_the_registry_assigns_to_a_torch_attribute():
    registry_file = PACKAGE / "_patches" / "registry.py"
    found = [f"{path.relative_to(ROOT)}:{line}: {text}"
             for path in sorted(PACKAGE.rglob("*.py")) if path != registry_file
             for line, text in _scan(path.read_text(), str(path))]
    assert found == [], ("patch torch only through torch_npu._patches.registry.replace (Note [Patches to torch]):\n"
                         + "\n".join(found))


def _scan(source, filename="<source>"):
    """(line, text) of each assignment to a torch attribute in `source`."""
    scan = _TorchAssignments()
    scan.visit(ast.parse(source, filename))
    return scan.found
