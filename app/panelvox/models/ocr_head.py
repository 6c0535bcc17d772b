"""A recognition head limited to the Latin script, for books in a Latin-script language.

The wheel's recognition model (``PP-OCRv6_rec_small.onnx``) ends in one linear layer over
18,710 classes (the CTC blank, Chinese, Japanese, Korean, Latin and symbols, a space) and a
softmax. For a book known to be in English, French, German... the Latin head keeps only the
columns of that layer a Latin-script text needs (:func:`latin_classes`: about 360), so the
softmax is taken over them alone: a reading in another script cannot come out (no '前見!!'
read out of the art of an English page), and the output and its decoding shrink fifty-fold.

The head is made on first use from the wheel's model, deterministically (the same source
gives the same file, byte for byte), into the cache folder, and checked by sha256 like the
int8 detector (:func:`panelvox.models.ocr_quant.made_model`); where anything differs the
full model is used and a line is logged. Books in another language keep the full model. A
book that names no language is read with the full model until one of its pages, so read,
shows Latin lettering (:func:`latin_lettered`); from then on, in that process, it is read as
:data:`LATIN_UNDETERMINED` (see :class:`panelvox.analysis.cache.PageAnalyzer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from panelvox.i18n import _
from panelvox.models.ocr_quant import made_model

#: the recognition heads: the whole model, or the Latin-script classes only
FULL = "full"
LATIN = "latin"
HEADS = (FULL, LATIN)

#: languages (ISO 639-1) written in the Latin script with letters the Latin head holds:
#: ASCII, Latin-1 and Latin Extended-A, Romanian's comma letters (Vietnamese needs more
#: than the model has, so it keeps the full model)
LATIN_LANGUAGES = frozenset(
    [
        "af",
        "ca",
        "cs",
        "cy",
        "da",
        "de",
        "en",
        "eo",
        "es",
        "et",
        "eu",
        "fi",
        "fo",
        "fr",
        "ga",
        "gd",
        "gl",
        "hr",
        "hu",
        "id",
        "is",
        "it",
        "la",
        "lb",
        "lt",
        "lv",
        "ms",
        "mt",
        "nl",
        "nn",
        "no",
        "nb",
        "oc",
        "pl",
        "pt",
        "ro",
        "sk",
        "sl",
        "sq",
        "sv",
        "sw",
        "tl",
        "tr",
        "wa",
    ]
)

#: typographic punctuation and symbols of Latin-script lettering beyond Latin-1 (dashes,
#: curly quotes, ellipsis, daggers, bullet, primes, per mille, euro, trade mark, notes,
#: hearts and stars), where the model has them
_EXTRA = "–—―‘’“”†‡•‥…‰′″€™♪♫♥♡★☆"
#: Romanian's comma-below letters (Latin Extended-B)
_ROMANIAN = "ȘșȚț"


#: a book that names no language but whose pages are lettered in the Latin script (BCP 47:
#: language undetermined, Latin script)
LATIN_UNDETERMINED = "und-Latn"


def head_for(language: str | None) -> str:
    """The recognition head for a book's language (an ISO 639-1 code, "en", or a BCP 47 tag
    with a script, "und-Latn"): :data:`LATIN` for a Latin-script language, else (Japanese,
    Chinese, Russian, unknown...) :data:`FULL`."""
    primary, _sep, rest = (language or "").casefold().partition("-")
    return LATIN if primary in LATIN_LANGUAGES or "latn" in rest.split("-") else FULL


def latin_lettered(texts: Sequence[str]) -> bool:
    """Whether a page's recognised ``texts`` (read with the full model) show a Latin-script
    book: enough letters (:data:`LEARN_LETTERS`) and nearly all of them Latin (a stray
    misreading into another script, '前見' out of the art, does not count against it)."""
    letters = [c for t in texts for c in t if c.isalpha()]
    latin = sum(_latin_char(c) for c in letters)
    return len(letters) >= LEARN_LETTERS and latin >= LEARN_SHARE * len(letters)


#: the letters a page must hold, and the share of them in the Latin script, for a book that
#: names no language to be read with the Latin head from then on
LEARN_LETTERS = 100
LEARN_SHARE = 0.97


def _latin_char(ch: str) -> bool:
    code = ord(ch)
    return (
        0x21 <= code <= 0x7E  # ASCII printable
        or 0xA1 <= code <= 0x17F  # Latin-1 Supplement (with « » ¿ ¡ ° × ÷) and Latin Extended-A
        or ch in _ROMANIAN
        or ch in _EXTRA
    )


def latin_classes(charset: Sequence[str]) -> list[int]:
    """The indices of the Latin head's classes in the model's ``charset`` (its classes in
    output order): the blank (0) first, the space last, the Latin characters between in the
    model's order."""
    keep = [0]
    keep += [
        i for i, ch in enumerate(charset) if 0 < i < len(charset) - 1 and len(ch) == 1 and _latin_char(ch)
    ]
    keep.append(len(charset) - 1)
    return keep


#: the Latin head made from the wheel's model (``BUNDLED_REC`` in models/ocr.py): its name and sha256
LATIN_FILENAME = "PP-OCRv6_rec_small.latin.onnx"
LATIN_SHA256 = "7067e8be03235353f09e261c339c2399a3c7edee71208af4706e5872f0d6b453"

_WEIGHT = "linear_8.w_0"
_BIAS = "linear_8.b_0"


def make_latin(source: Path, target: Path) -> None:
    """Write the Latin head of the recognition model ``source`` to ``target``: the last
    linear layer's weight and bias cut to :func:`latin_classes`, the character list in the
    model's metadata cut to match."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(source))
    meta = {p.key: p for p in model.metadata_props}
    if "character" not in meta:
        raise ValueError(f"{source} carries no character list")
    chars = meta["character"].value.splitlines()
    charset = ["", *chars, " "]
    keep = latin_classes(charset)
    inits = {t.name: t for t in model.graph.initializer}
    if _WEIGHT not in inits or _BIAS not in inits:
        raise ValueError(f"{source} has no output layer {_WEIGHT}")
    weight = numpy_helper.to_array(inits[_WEIGHT])
    bias = numpy_helper.to_array(inits[_BIAS])
    if weight.shape[1] != len(charset) or bias.shape != (len(charset),):
        raise ValueError(f"{source}'s output layer has {weight.shape[1]} classes, not {len(charset)}")
    cols = np.asarray(keep)
    inits[_WEIGHT].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(weight[:, cols]), _WEIGHT))
    inits[_BIAS].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(bias[cols]), _BIAS))
    meta["character"].value = "\n".join(charset[i] for i in keep[1:-1])
    for info in (*model.graph.value_info, *model.graph.output):  # the shapes recorded after it
        dims = info.type.tensor_type.shape.dim
        if dims and dims[-1].dim_value == len(charset):
            dims[-1].dim_value = len(keep)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def latin_model(source: Path, source_sha256: str, cache: Path | None = None) -> Path:
    """The Latin head made from ``source`` (the wheel's recognition model, whose sha256 is
    ``source_sha256``): from the cache
    when there and verified, else made now (about a second) and verified.
    :class:`~panelvox.errors.ModelUnavailable` when it cannot be made as pinned."""
    # Translators: logged when the text reader's faster Latin-alphabet model cannot be made.
    failed = _("The Latin-alphabet text model could not be made; the full one is used.")
    return made_model(source, source_sha256, LATIN_FILENAME, LATIN_SHA256, make_latin, cache, failed)
