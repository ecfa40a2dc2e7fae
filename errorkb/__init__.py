"""errorkb: error knowledge bases whose fixes are proven by running them."""

__version__ = "0.1.0"
