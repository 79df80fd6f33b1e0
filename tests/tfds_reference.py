"""TFDS's own SubwordTextEncoder, run without TensorFlow: the reference the tests compare against.

``tensorflow-datasets`` (pinned in requirements-nodeps.txt, installed with ``--no-deps``) ships
``tensorflow_datasets/core/deprecated/text/{text_encoder,subword_text_encoder}.py``. Importing
the package would pull in TensorFlow and a dozen other dependencies, so the two files are loaded
on their own, with stand-ins for what they import:

* ``tf.compat.as_text`` / ``tf.compat.as_bytes`` (UTF-8, as TensorFlow's) and ``tf.io.gfile.GFile``
  (``open``, used only to save vocabulary files);
* ``absl.logging.info``, which records the messages: the search logs each ``min_token_count``
  it tries, so the tests compare our search step by step.

The stand-ins are put in ``sys.modules`` only while the two files execute, then removed.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import types

PACKAGE = "tensorflow_datasets.core.deprecated.text"
FILES = ("text_encoder", "subword_text_encoder")


def tfds_version() -> str | None:
    """The installed ``tensorflow-datasets`` version, or None."""
    try:
        return importlib.metadata.version("tensorflow-datasets")
    except importlib.metadata.PackageNotFoundError:
        return None


def _as_text(value, encoding="utf-8"):
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def _as_bytes(value, encoding="utf-8"):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def load_tfds_subword_text_encoder():
    """``(subword_text_encoder module, log)``: TFDS's module and the list its logging appends to.

    Raises ``ImportError`` when tensorflow-datasets is not installed.
    """
    dist = importlib.metadata.distribution("tensorflow-datasets")
    paths = {name: dist.locate_file(f"{PACKAGE.replace('.', '/')}/{name}.py") for name in FILES}
    for name, path in paths.items():
        if not path.exists():
            raise ImportError(f"tensorflow-datasets {dist.version} has no {path}")

    log: list[str] = []
    tf = types.SimpleNamespace(
        compat=types.SimpleNamespace(as_text=_as_text, as_bytes=_as_bytes),
        io=types.SimpleNamespace(gfile=types.SimpleNamespace(GFile=open)),
    )
    absl_logging = types.ModuleType("absl.logging")
    absl_logging.info = lambda msg, *args: log.append(msg % args if args else msg)
    absl = types.ModuleType("absl")
    absl.logging = absl_logging
    lazy = types.ModuleType("tensorflow_datasets.core.utils.lazy_imports_utils")
    lazy.tensorflow = tf
    stubs = {"absl": absl, "absl.logging": absl_logging, lazy.__name__: lazy}
    for name in ("tensorflow_datasets", "tensorflow_datasets.core", "tensorflow_datasets.core.utils",
                 "tensorflow_datasets.core.deprecated", PACKAGE):  # empty packages
        pkg = types.ModuleType(name)
        pkg.__path__ = []
        stubs[name] = pkg

    names = [*stubs, *(f"{PACKAGE}.{name}" for name in FILES)]
    saved = {name: sys.modules.get(name) for name in names}
    modules = {}
    try:
        sys.modules.update(stubs)
        for name, path in paths.items():
            spec = importlib.util.spec_from_file_location(f"{PACKAGE}.{name}", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            setattr(stubs[PACKAGE], name, module)  # `from ...text import text_encoder`
            spec.loader.exec_module(module)
            modules[name] = module
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return modules["subword_text_encoder"], log


def corpus_generator(corpus):
    """What to give TFDS's ``build_from_corpus`` for a corpus ``train_subword_text_encoder``
    accepts: a text as one item, lines as they are, a mapping word -> count as ``word + " "``
    repeated ``count`` times."""
    if isinstance(corpus, str):
        return iter([corpus])
    if hasattr(corpus, "items"):
        return (word + " " for word, count in corpus.items() for _ in range(count))
    return iter(list(corpus))


if __name__ == "__main__":  # used by a test in a subprocess (another PYTHONHASHSEED)
    import json

    stm, _ = load_tfds_subword_text_encoder()
    vocab, text = json.loads(sys.argv[1])
    print(json.dumps(stm.SubwordTextEncoder(vocab_list=vocab).encode(text)))
