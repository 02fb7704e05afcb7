"""A torch function recompiled from its own source with a few exact text repairs.

Note [Repairing a torch function from its source]
Where a CUDA special case sits in the middle of a long torch function (an `.is_cuda` check, a
`.cuda()` call), copying the function into torch_npu to change one line would fork dozens of lines
of PyTorch. Instead `repaired` reads the function's source, replaces each given text (which must
occur exactly once, else it raises: the torch in use is not the one the repair was written for),
compiles it in the function's own module globals, with its line numbers, and returns the new
function; the caller puts it where the old one was. Functions that use zero-argument super() (a
class cell) cannot be repaired this way and are refused.
"""
import inspect
import textwrap


def repaired(function, repairs):
    """`function` recompiled with each (old, new) text of `repairs` replaced once."""
    target = inspect.unwrap(function) if not isinstance(function, (staticmethod, classmethod)) else function.__func__
    if "__class__" in target.__code__.co_freevars:
        raise RuntimeError(f"{target.__qualname__} uses zero-argument super(); it cannot be repaired from source")
    lines, first_line = inspect.getsourcelines(target)
    source = textwrap.dedent("".join(lines))
    for old, new in repairs:
        count = source.count(old)
        if count != 1:
            raise RuntimeError(f"torch_npu cannot repair {target.__module__}.{target.__qualname__}: expected the text "
                               f"{old!r} once, found it {count} times (is this torch 1.13?)")
        source = source.replace(old, new)
    namespace = {}
    code = compile("\n" * (first_line - 1) + source, inspect.getsourcefile(target), "exec")
    exec(code, target.__globals__, namespace)  # noqa: S102 - torch's own source, repaired
    result = namespace[target.__name__]
    function_object = result.__func__ if isinstance(result, (staticmethod, classmethod)) else result
    function_object.__qualname__ = target.__qualname__
    function_object._repaired_by_torch_npu = True
    return result
