"""The package's version, in a module of its own so that any layer can read it without importing the package
root (whose lazy API imports reach back into the engine)."""
__version__ = "0.1.0"
