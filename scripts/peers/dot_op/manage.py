#!/usr/bin/env python3
"""Django entry point of the django-oauth-toolkit test peer (see scripts/peers/oidc-op-start.sh)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dotop.settings")
from django.core.management import execute_from_command_line  # noqa: E402

execute_from_command_line(sys.argv)
