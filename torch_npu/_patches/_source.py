"""A torch function recompiled from its own source with a few exact text repairs.

Note [Repairing a torch function from its source]
Where a CUDA special case sits in the middle of a long torch function (an `.is_cuda` check, a
`.cuda()` call), copying the function into torch_npu to change one line would fork dozens of lines
of PyTorch. Instead `repaired` reads the function's source, replaces each given text (which must
occur exactly once, else it raises: the torch in use is not the one the repair was written for),
compiles it in the function's own module globals, with its line numbers, and returns the new
function; the caller puts it where the old one was. A method that uses zero-argument super() needs
its class (`owner`): it is compiled inside a function whose `__class__` argument stands for the
class cell Python gives methods.
"""
import inspect
import textwrap


def repaired(function, repairs, owner=None):
    """`function` recompiled with each (old, new) text of `repairs` replaced once; `owner` is the class
    of a method that uses zero-argument super()."""
    target = inspect.unwrap(function) if not isinstance(function, (staticmethod, classmethod)) else function.__func__
    needs_class = "__class__" in target.__code__.co_freevars
    if needs_class and owner is None:
        raise RuntimeError(f"{target.__qualname__} uses zero-argument super(): repairing it needs its class (owner=)")
    lines, first_line = inspect.getsourcelines(target)
    source = textwrap.dedent("".join(lines))
    for old, new in repairs:
        count = source.count(old)
        if count != 1:
            raise RuntimeError(f"torch_npu cannot repair {target.__module__}.{target.__qualname__}: expected the text "
                               f"{old!r} once, found it {count} times (is this torch 1.13?)")
        source = source.replace(old, new)
    namespace = {}
    if needs_class:  # one line above the def: the maker of the class cell
        source = (f"def _make_with_class_cell(__class__):\n{textwrap.indent(source, '    ')}"
                  f"    return {target.__name__}\n")
        first_line -= 1
    code = compile("\n" * (first_line - 1) + source, inspect.getsourcefile(target), "exec")
    exec(code, target.__globals__, namespace)  # noqa: S102 - torch's own source, repaired
    result = namespace["_make_with_class_cell"](owner) if needs_class else namespace[target.__name__]
    function_object = result.__func__ if isinstance(result, (staticmethod, classmethod)) else result
    function_object.__qualname__ = target.__qualname__
    function_object._repaired_by_torch_npu = True
    return result
