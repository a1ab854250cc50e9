"""Utilities with PyTorch's names (``mg.utils.data``: datasets, samplers and the DataLoader)."""

from . import data

__all__ = ["data"]
