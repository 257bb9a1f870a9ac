"""The kernel run through jupyter_kernel_test, the reference conformance suite."""

import unittest

import jupyter_kernel_test

from conftest import KERNEL_NAME


class AnalysisKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = KERNEL_NAME
    language_name = "python"
    file_extension = ".py"

    completion_samples = [
        {"text": "%lsm", "matches": {"%lsmagic"}},
        {"text": "%%do", "matches": {"%%dot"}},
        {"text": "%who --s", "matches": {"--save"}},
        {"text": "%config", "matches": {"%config"}},
        {"text": "%help lsm", "matches": {"lsmagic"}},
        {"text": "pri", "matches": {"print"}},
    ]
    complete_code_samples = ["%who", "def f(x):\n  return x*2\n\n\n", "%%dot\ndigraph { a -> b }"]
    incomplete_code_samples = ["def f(x):\n  x*2", "x = (1,", "s = '''hello"]
    invalid_code_samples = ["import = 7q", "def f(:\n  pass"]

    code_generate_error = "%no_such_command"
    code_display_data = [
        {"code": "%%dot\ndigraph { a -> b }", "mime": "image/svg+xml"},
        {"code": "%%dot\ndigraph { a -> b }", "mime": "text/html"},
        {"code": "%%dot\ndigraph { a -> b }", "mime": "application/vnd.analysis-kernel.dot+json"},
        {"code": "%who", "mime": "application/vnd.analysis-kernel.who+json"},
    ]
    code_inspect_sample = "len"
    code_clear_output = "%clear --wait"

    # Python cells run in the kernel's own interpreter.
    code_hello_world = "print('hello, world')"
    code_stderr = "import sys\nprint('test', file=sys.stderr)"
    code_execute_result = [
        {"code": "6*7", "result": "42"},
        {"code": "-7 // 2, -7 % 2", "result": "(-4, 1)"},
        {"code": "'ab'[-1]", "result": "'b'"},
        {"code": "[1, 2, 3][::-2]", "result": "[3, 1]"},
    ]
    supported_history_operations = ("tail", "range", "search")
    code_history_pattern = "6*?"


if __name__ == "__main__":
    unittest.main()
