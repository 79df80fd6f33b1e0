"""SubwordTextEncoder: TensorFlow Datasets' subword vocabulary, built by binary search on a
minimum count, encoded by greedy longest match with escaping and byte fallback."""

from .model import *  # noqa: F401,F403  (its __all__)
from .model import __all__  # noqa: F401
