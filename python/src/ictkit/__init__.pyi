from . import plistlib as plistlib

__all__ = ["plistlib"]
