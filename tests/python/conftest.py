"""Shared set-up of the Python client tests: the kernel under test is the one install.sh built."""

import os
import sys

# The kernel's test commands (%__panic__, %__sleep__) are enabled only under this variable.
os.environ["ANALYSIS_KERNEL_TEST_HOOKS"] = "1"
KERNEL_NAME = os.environ.get("ANALYSIS_KERNEL_NAME", "analysis")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
