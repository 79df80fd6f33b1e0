"""What the benchmark measures and how big: the targets, the fixed parameters and the sizes.

``TARGETS`` are the limits the Targets table judges; ``Sizes`` holds every size a section uses
(merge counts, vocabulary sizes, samples, the corpora's lengths), with ``Sizes.full()`` for
``make bench`` and ``Sizes.tiny()`` for ``--tiny``, a smoke test whose figures mean nothing.
The other constants are the parameters of a measurement, the same at every size. No code here
runs anything; ``timing`` and ``report`` hold the helpers, ``sections/`` the measurements.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TARGETS = {
    "train_ratio": 0.5,  # ours / subword-nmt training time
    "memory_ratio": 2.0,  # ours / subword-nmt tracemalloc peak
    "snapshot_ms": 20.0,  # median cold snapshot access at the largest N
    "encode_ratio": 1.0,  # ours / subword-nmt apply-bpe
    "slider_ms": 150.0,  # median wall time of one slider step, default chart
    "notebook_s": 10.0,  # each notebook executed headless, kernel start-up included
    "long_ratio": 0.5,  # ours / the recount loop on the longest single word
    "long_doubling": 2.2,  # our time when the single word's length doubles
    "big_train_ratio": 0.5,  # ours / subword-nmt training time on the bigger corpus
    "rss_ratio": 2.0,  # ours / subword-nmt whole-process peak RSS
    "gpt_train_ratio": 5.0,  # ours / tokenizers, cs336 preset on the docs text until pairs run out
    "cs336_speed_s": 1.5,  # CS336's test_train_bpe_speed limit: corpus.en to vocab_size 500
    "gpt_encode_ratio": 0.5,  # ours / the literal minbpe encode loop, cs336 tokenizer, docs text
    "unigram_round_ms": 20.0,  # median cold read of a Unigram round (fields + a few segmentations)
    "compare_view_ms": 300.0,  # the side-by-side view: 2,000 characters through 4 tokenizers, encode + HTML
}
SECTIONS = ("main", "gpt", "spm", "unigram", "unigram_scaling", "long", "long_steps", "real", "compare", "big", "rss")

SLIDER_SENTENCE = "The tokenizer splits unfamiliar words into subword units."
NOTEBOOK_TIMEOUT = 600  # seconds per cell
BIG_SEED = 1994
BIG_ORDER = 3  # order of the character model the words are drawn from
BIG_ZIPF = 1.0  # exponent: the word of rank r occurs about in proportion to 1 / r ** BIG_ZIPF
BIG_MAX_LEN = 24  # longer generated words are drawn again
BIG_LINE_WORDS = (8, 16)  # words per line, uniform: 12 on average
RSS_TIMEOUT = 1800  # seconds per child process
GPT_HUGE_VOCAB = 100_000  # a vocab_size never reached: training stops when pairs run out
GPT_SPECIAL = "<|endoftext|>"
GPT_HF_CHUNK = 1 << 16  # characters per piece of text fed to tokenizers (cut at pre-token starts)
GPT_HF_MIN_FREQUENCY = 1  # CS336 counts every pair; tokenizers stops below min_frequency
GPT_HF_MIN_FREQUENCY_ALT = 0  # tokenizers' default, run once for its merge count
CS336_DIR = ROOT.parent / "shared" / "fixtures" / "external" / "cs336"
CS336_CORPUS = CS336_DIR / "corpus.en"
CS336_REFERENCE = CS336_DIR / "train-bpe-reference-merges.txt"
CS336_VOCAB = 500
SPM_DROPOUT = 0.1  # BPE-dropout probability (sentencepiece's alpha)
UNIGRAM_SCORE_TOL = 1e-4  # largest score difference from sentencepiece the issue allows
UNIGRAM_ROUND_WORDS = 5  # words whose segmentation is read at each of those rounds
UNIGRAM_BAD_SHOWN = 5  # lines encoded differently from sentencepiece shown in the report, at most
UNIGRAM_SEED = 2018  # Kudo 2018
UNIGRAM_COURSE_SENTENCES = (  # the Hugging Face course, chapter 6, section 7
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
)
UNIGRAM_COURSE_VOCAB = 100
UNIGRAM_COURSE_MIN_REPEAT = 5  # it takes a fraction of a second: a few more runs


@dataclasses.dataclass(frozen=True)
class Sizes:
    """Every size a section uses; ``text_chars`` cuts the documentation text (None: all of it),
    ``notebooks`` how many notebooks run (None: all)."""

    text_chars: int | None = None
    snapshot_samples: int = 50
    slider_merges: int = 10_000
    slider_samples: int = 60
    slider_other_samples: int = 30  # chart "none" (and with --all-charts the others), for comparison only
    notebooks: int | None = None
    long_lengths: tuple = (50_000, 100_000, 200_000)  # characters of the single word; each twice the last
    long_merges: int = 100
    big_types: int = 60_000  # distinct words of the bigger corpus
    big_bytes: int = 5_000_000  # its approximate size in UTF-8
    big_merges: tuple = (1000, 3000)
    rss_docs_merges: int = 10_000
    spm_vocabs: tuple = (1000, 4000, 8000)  # SentencePiece BPE: vocab sizes trained; encoding uses the last
    unigram_vocabs: tuple = (1000, 4000)  # Unigram (sentencepiece flavour): vocab sizes; encoding uses the last
    unigram_round_samples: int = 30  # random rounds read per trace
    ste_targets: tuple = (1000, 4000)  # SubwordTextEncoder: target_vocab_size on the documentation text

    @classmethod
    def full(cls) -> Sizes:
        """The sizes ``make bench`` measures at."""
        return cls()

    @classmethod
    def tiny(cls) -> Sizes:
        """A smoke test of every code path in about a minute: figures that mean nothing."""
        return cls(text_chars=50_000, snapshot_samples=5, slider_merges=300, slider_samples=5,
                   slider_other_samples=3, notebooks=1, long_lengths=(5_000, 10_000, 20_000), long_merges=20,
                   big_types=3_000, big_bytes=200_000, big_merges=(100, 300), rss_docs_merges=300,
                   spm_vocabs=(300, 500, 800), unigram_vocabs=(300, 600), unigram_round_samples=5,
                   ste_targets=(300, 600))
