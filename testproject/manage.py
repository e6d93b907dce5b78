#!/usr/bin/env python
"""Django's command-line utility for the demo project.

Run from the repository root: ``python testproject/manage.py runserver``.
"""

import os
import sys
from pathlib import Path

if __name__ == "__main__":
    # Make the repository root importable wherever this is launched from.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testproject.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
