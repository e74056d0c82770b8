"""Runtime helpers shipped verbatim inside every generated package (see `_runtime.py`)."""
