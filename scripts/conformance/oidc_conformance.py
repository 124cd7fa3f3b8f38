#!/usr/bin/env python3
"""Runs the port of the OpenID Foundation's Basic OP, Config OP and Back-Channel OP plans (package
``oidcc`` beside this file; docs/conformance.md) against an OP: one result line per module."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from oidcc.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
