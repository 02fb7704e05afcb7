"""Decorators that expand one test method into one test per dtype/format.

    @instantiate_tests
    class TestAdd(TestCase):
        @Dtypes(torch.float, torch.half)
        @Formats(0, 3, 29)
        def test_add(self, device, dtype, npu_format):
            ...

creates test_add_float32_0, test_add_float32_3, ..., test_add_float16_29 (the
dtype part first, then the format) and removes test_add itself. Each generated
method calls the original with device="npu" (if it takes a `device` argument),
dtype=<torch dtype> and the format as the argument whose name contains
"format" (npu_format here).
"""
import functools
import inspect
import itertools
import logging
import os

import torch


class Dtypes:
    """@Dtypes(torch.float, torch.half): the torch dtypes a test runs with."""

    def __init__(self, *dtypes):
        if not dtypes:
            raise ValueError("Dtypes: no dtypes given")
        if not all(isinstance(d, torch.dtype) for d in dtypes):
            raise TypeError(f"Dtypes: expected torch dtypes, got {dtypes}")
        self.args = dtypes

    def __call__(self, fn):
        fn.dtypes = self.args
        return fn


class Formats:
    """@Formats(0, 3, 29): the NPU format ids a test runs with."""

    def __init__(self, *formats):
        if not formats:
            raise ValueError("Formats: no formats given")
        self.args = formats

    def __call__(self, fn):
        fn.formats = self.args
        return fn


def _name_part(key, value):
    """The suffix a parameter adds to the test name: "_float16" for torch.float16, "_3" for format 3."""
    if key == "dtype":
        return "_" + str(value).split(".")[-1]
    return "_" + str(value)


def _argument_for(key, arg_names):
    """The test function's argument that receives `key` (the one whose name contains it)."""
    matches = [name for name in arg_names if key in name]
    if len(matches) != 1:
        raise TypeError(f"instantiate_tests: expected one argument matching {key!r}, found {matches}")
    return matches[0]


def _bind(cls, func, name, kwargs):
    """A method of cls without arguments (besides self) that calls func(self, **kwargs), named `name`."""
    @functools.wraps(func)
    def test(self):
        return func(self, **kwargs)
    test.__name__ = name
    test.__qualname__ = f"{cls.__qualname__}.{name}"
    # Keep pytest/inspect from seeing the original signature (device, dtype, ...), and keep
    # the generated test from being expanded again.
    del test.__wrapped__
    for attr in ("dtypes", "formats"):
        test.__dict__.pop(attr, None)
    return test


def instantiate_tests(cls):
    """Class decorator: replaces every method decorated with Dtypes/Formats by one method per combination."""
    for name, func in list(cls.__dict__.items()):
        params = {}
        if hasattr(func, "dtypes"):
            params["dtype"] = func.dtypes
        if hasattr(func, "formats"):
            params["format"] = func.formats
        if not params:
            continue
        arg_names = list(inspect.signature(func).parameters)  # follows __wrapped__ (graph_mode)
        for values in itertools.product(*params.values()):
            kwargs = {"device": "npu"} if "device" in arg_names else {}
            test_name = name
            for key, value in zip(params, values):
                test_name += _name_part(key, value)
                kwargs[_argument_for(key, arg_names)] = value
            setattr(cls, test_name, _bind(cls, func, test_name, kwargs))
        delattr(cls, name)
    return cls


def graph_mode(func):
    """Marks a test that torch_npu also runs in graph mode; this backend runs it as it is (eager)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if os.getenv("GRAPH_MODE_TEST") == "1":
            logging.getLogger(__name__).info("graph mode is not supported here; running %s eagerly",
                                             func.__name__)
        return func(*args, **kwargs)
    return wrapper
