"""Fake xFormers (tests only)."""
__version__ = "0.0.99"
_has_cpp_library = True
