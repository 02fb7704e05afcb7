"""TestCase and run_tests for torch_npu's per-op tests.

    from torch_npu.testing.testcase import TestCase, run_tests

    class TestAbs(TestCase):
        def test_abs(self):
            ...
            self.assertRtolEqual(cpu_output, npu_output)

    if __name__ == "__main__":
        run_tests()

Importing this module does not touch the device.
"""
import os
import random
import sys
import unittest
from collections import OrderedDict
from collections.abc import Sequence
from numbers import Number

import numpy as np
import torch

from torch_npu.testing.common_utils import is_iterable, set_npu_device

# Dtypes assertRtolEqual knows; bool is compared exactly, float16 with prec16, the rest with prec.
_RTOL_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64,
                np.float16, np.float32, np.float64)
# Added to the denominator of the relative error so that zeros do not divide by zero.
_MIN_DENOMINATOR = 1e-9
_MIN_DENOMINATOR_FP16 = 6e-8


def run_tests():
    """Runs the unittest tests of the calling module (unittest.main with sys.argv)."""
    unittest.main(argv=sys.argv)


class TestCase(unittest.TestCase):
    """unittest.TestCase with torch_npu's comparison helpers.

    Every test starts from the seed in $SEED (default 666) for torch, random and numpy,
    so the random inputs of create_common_tensor are reproducible.
    """
    _precision = 1e-5
    maxDiff = None
    exact_dtype = False

    @property
    def precision(self):
        """Default absolute tolerance of assertEqual."""
        return self._precision

    @precision.setter
    def precision(self, prec):
        self._precision = prec

    @classmethod
    def setUpClass(cls):
        cls.npu_device = set_npu_device()

    def setUp(self):
        seed = int(os.getenv("SEED", "666"))
        torch.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed)

    # ------------------------------------------------------------------ assertRtolEqual

    def assertRtolEqual(self, x, y, prec=1.e-4, prec16=1.e-3, auto_trans_dtype=False, message=""):
        """Checks that x and y agree within torch_npu's mixed absolute/relative tolerance.

        x, y: numpy arrays, tensors (any device), numbers, or sequences of these
        (compared pairwise). Shapes and dtypes must match (auto_trans_dtype casts a
        tensor x to y's dtype first). bool arrays must be equal. float16 uses prec16,
        every other dtype prec: an element fails the absolute check if |x - y| > tol and
        the relative check if |x - y| / (max(|x|, |y|) + tiny) > tol; the assertion fails
        only if more than size * tol elements fail the relative check AND more than
        size * tol fail the absolute one. NaNs must sit at the same places; equal
        infinities count as equal, other infinities as errors. bfloat16 tensors are
        compared with torch.allclose(rtol=atol=prec16).
        """
        if isinstance(x, Sequence) and isinstance(y, Sequence) and not isinstance(x, str):
            self.assertEqual(len(x), len(y), message or "sequence length error")
            for x_item, y_item in zip(x, y):
                self.assertRtolEqual(x_item, y_item, prec, prec16, auto_trans_dtype, message)
            return
        if isinstance(x, torch.Tensor) and isinstance(y, Sequence):
            y = torch.as_tensor(y, dtype=x.dtype)
        elif isinstance(y, torch.Tensor) and isinstance(x, Sequence):
            x = torch.as_tensor(x, dtype=y.dtype)

        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if auto_trans_dtype:
                x = x.to(y.dtype)
            if x.dtype == torch.bfloat16 and y.dtype == torch.bfloat16:
                if x.shape != y.shape:
                    self.fail(message or f"shape error: {tuple(x.shape)} vs {tuple(y.shape)}")
                if not torch.allclose(x.detach().cpu().float(), y.detach().cpu().float(),
                                      rtol=prec16, atol=prec16, equal_nan=True):
                    self.fail(message or "result error (bfloat16)")
                return
        x = self._as_numpy(x)
        y = self._as_numpy(y)

        if x.shape != y.shape:
            self.fail(message or f"shape error: {x.shape} vs {y.shape}")
        if x.dtype != y.dtype:
            self.fail(message or f"dtype error: {x.dtype} vs {y.dtype}")
        if x.dtype.type not in _RTOL_DTYPES:
            self.fail(message or f"unsupported dtype {x.dtype}; expected one of "
                      + ", ".join(np.dtype(t).name for t in _RTOL_DTYPES))
        if x.dtype == np.bool_:
            if not np.array_equal(x, y):
                self.fail(message or f"result error: {int(np.sum(x != y))} of {x.size} bool elements differ")
            return
        if x.dtype == np.float16:
            self._compare_rtol(x, y, prec16, _MIN_DENOMINATOR_FP16, message)
        else:
            self._compare_rtol(x, y, prec, _MIN_DENOMINATOR, message)

    @staticmethod
    def _as_numpy(value):
        """Tensors go to the CPU and become numpy arrays; numbers become 0-d arrays, lists arrays."""
        if isinstance(value, torch.Tensor):
            return value.detach().cpu().numpy()
        if isinstance(value, (Number, np.number, np.bool_)):
            return np.array(value)
        if isinstance(value, np.ndarray):
            return value
        if isinstance(value, (list, tuple)):
            return np.asarray(value)
        raise TypeError(f"assertRtolEqual: cannot compare a {type(value).__name__}")

    def _compare_rtol(self, x, y, tol, minimum, message):
        """The numeric part of assertRtolEqual (the differences are taken in float64)."""
        xf = x.astype(np.float64)
        yf = y.astype(np.float64)
        nan_x, nan_y = np.isnan(xf), np.isnan(yf)
        if not np.array_equal(nan_x, nan_y):
            self.fail(message or "result error: NaNs at different positions")
        same_inf = np.isinf(xf) & (xf == yf)
        ignore = nan_x | same_inf
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(ignore, 0.0, np.abs(yf - xf))
            denominator = np.maximum(np.abs(xf), np.abs(yf))
            rel = np.where(ignore, 0.0, diff / (denominator + minimum))
        # An infinity against a finite value gives inf (or nan): a failure of both checks.
        atol_fail = int(np.sum(~(diff <= tol)))
        rtol_fail = int(np.sum(~(rel <= tol)))
        allowed = x.size * tol
        if atol_fail > allowed and rtol_fail > allowed:
            self.fail(message or (
                f"result error: {rtol_fail} elements beyond the relative tolerance and {atol_fail} beyond "
                f"the absolute tolerance {tol} (at most {allowed:g} of {x.size} allowed); "
                f"max abs diff {np.nanmax(diff) if diff.size else 0:g}"))

    # ------------------------------------------------------------------ assertEqual

    def assertEqual(self, x, y, prec=None, message="", allow_inf=False, exact_dtype=None):
        """Equality up to an absolute tolerance `prec` (default self.precision, 1e-5).

        Accepts tensors (any device), numpy arrays, numbers and containers of them in
        any mix: a number against a one-element tensor/array compares values; tensors
        and arrays must have the same shape (and dtype if exact_dtype), NaNs at the same
        places, and max |x - y| <= prec; infinities are accepted only with allow_inf and
        must match in place and sign. A string prec is taken as the message. Other
        objects fall back to unittest's assertEqual.
        """
        if exact_dtype is None:
            exact_dtype = self.exact_dtype
        if isinstance(prec, str) and not message:
            message, prec = prec, None
        if prec is None:
            prec = self.precision
        self._assert_equal(x, y, prec, message, allow_inf, exact_dtype)

    def _assert_equal(self, x, y, prec, message, allow_inf, exact_dtype):
        if isinstance(x, np.ndarray) and not isinstance(y, (str, bytes)):
            x = torch.from_numpy(x)
        if isinstance(y, np.ndarray) and not isinstance(x, (str, bytes)):
            y = torch.from_numpy(y)
        if isinstance(x, (np.number, np.bool_)):
            x = x.item()
        if isinstance(y, (np.number, np.bool_)):
            y = y.item()

        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            self._assert_tensors_equal(x, y, prec, message, allow_inf, exact_dtype)
        elif isinstance(x, Number) or isinstance(y, Number):
            self._assert_numbers_equal(x, y, prec, message, allow_inf)
        elif isinstance(x, (str, bytes)) and isinstance(y, (str, bytes)):
            super().assertEqual(x, y, message)
        elif isinstance(x, (set, frozenset)) and isinstance(y, (set, frozenset)):
            super().assertEqual(x, y, message)
        elif isinstance(x, dict) and isinstance(y, dict):
            if isinstance(x, OrderedDict) and isinstance(y, OrderedDict):
                self._assert_equal(list(x.items()), list(y.items()), prec, message, allow_inf, exact_dtype)
            else:
                super().assertEqual(set(x.keys()), set(y.keys()), message)
                for key in x:
                    self._assert_equal(x[key], y[key], prec, message, allow_inf, exact_dtype)
        elif is_iterable(x) and is_iterable(y) and not isinstance(x, torch.Tensor) \
                and not isinstance(y, torch.Tensor):
            x, y = list(x), list(y)
            super().assertEqual(len(x), len(y), message)
            for x_item, y_item in zip(x, y):
                self._assert_equal(x_item, y_item, prec, message, allow_inf, exact_dtype)
        else:
            super().assertEqual(x, y, message)

    def _assert_numbers_equal(self, x, y, prec, message, allow_inf):
        if isinstance(x, torch.Tensor):
            x = x.item()
        if isinstance(y, torch.Tensor):
            y = y.item()
        if not (isinstance(x, Number) and isinstance(y, Number)):
            super().assertEqual(x, y, message)
            return
        if isinstance(x, bool) or isinstance(y, bool):
            super().assertEqual(x, y, message)
            return
        if x != x or y != y:  # NaN
            self.assertTrue(x != x and y != y, message or f"{x} != {y}")
            return
        if abs(x) == float("inf") or abs(y) == float("inf"):
            if not allow_inf:
                self.fail(message or f"Expected finite numeric values - x={x}, y={y}")
            super().assertEqual(x, y, message)
            return
        self.assertLessEqual(abs(x - y), prec, message)

    def _assert_tensors_equal(self, a, b, prec, message, allow_inf, exact_dtype):
        super().assertEqual(tuple(a.shape), tuple(b.shape), message)
        if exact_dtype:
            super().assertEqual(a.dtype, b.dtype, message)
        if a.numel() == 0:
            return
        a, b = a.detach().cpu(), b.detach().cpu()
        if a.is_sparse:
            a = a.to_dense()
        if b.is_sparse:
            b = b.to_dense()
        if (a.dtype == torch.bool) != (b.dtype == torch.bool):  # as torch_npu's: compare the values
            a, b = (a.to(b.dtype), b) if a.dtype == torch.bool else (a, b.to(a.dtype))
        if a.is_complex() or b.is_complex():
            a, b = a.to(torch.complex128), b.to(torch.complex128)
        elif a.is_floating_point() or b.is_floating_point():
            a, b = a.to(torch.float64), b.to(torch.float64)
        else:
            a, b = a.to(torch.int64), b.to(torch.int64)
        diff = a - b
        if a.is_floating_point() or a.is_complex():
            nan_mask = torch.isnan(a)
            self.assertTrue(torch.equal(nan_mask, torch.isnan(b)), message or "NaNs at different positions")
            diff[nan_mask] = 0
            if allow_inf:
                inf_a = torch.isinf(a)
                self.assertTrue(torch.equal(inf_a, torch.isinf(b)) and torch.equal(a[inf_a], b[inf_a]),
                                message or "infinities differ")
                diff[inf_a] = 0
        max_err = diff.abs().max().item()
        self.assertLessEqual(max_err, prec, message)

    def assertAlmostEqual(self, x, y, places=None, msg=None, delta=None, allow_inf=None):
        """assertEqual with prec = 10**-places or delta."""
        prec = 10 ** (-places) if places else delta
        self.assertEqual(x, y, prec, msg or "", bool(allow_inf))

    def assertNotEqual(self, x, y, prec=None, message=""):
        """Fails if x and y are equal within prec (tensors: max |x - y| < prec)."""
        if isinstance(prec, str) and not message:
            message, prec = prec, None
        if prec is None:
            prec = self.precision
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape:
                return
            a, b = x.detach().cpu().double(), y.detach().cpu().double()
            diff = (a - b).abs()
            diff[torch.isnan(a) & torch.isnan(b)] = 0
            self.assertGreaterEqual(diff.max().item(), prec, message)
            return
        try:
            self.assertGreaterEqual(abs(x - y), prec, message)
        except (TypeError, AssertionError):
            super().assertNotEqual(x, y, message)
