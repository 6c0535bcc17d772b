"""Speech backends, one per ``*_backend.py`` module; found by :mod:`panelvox.speech.discovery`."""
