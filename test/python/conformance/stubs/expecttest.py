"""A stand-in for the `expecttest` package, which Debian does not ship.

torch.testing._internal.common_utils imports it for TestCase.assertExpectedInline;
the OpInfo conformance run uses only the OpInfo database, so a minimal
TestCase is enough.
"""
import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    def assertExpectedInline(self, actual, expect, skip=0):
        self.assertEqual(actual, expect)
