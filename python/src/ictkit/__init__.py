"""ICTKit for Python: Apple's document formats read and written by ICTKit's Swift library.

``ictkit.plistlib`` is a drop-in for the standard library's ``plistlib`` that also reads OpenStep and JSON
property lists and finds values by key path. The decoding runs in ICTKit's C library (libICTKitC.so, shipped
inside this package) with the GIL released.
"""

from . import plistlib

__all__ = ["plistlib"]
