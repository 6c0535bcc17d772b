"""Dataset loaders: each known layout into :class:`~panelvox.eval.ground_truth.Dataset`.

:func:`load_dataset` takes a short name (``cib``, ``openmantra``, ``iabc``, ``comic-ocr``,
resolved under the evaluation data folder) or a path, and recognises the layout.
"""

from __future__ import annotations

import os
from pathlib import Path

from panelvox.errors import DatasetError
from panelvox.eval.ground_truth import Dataset
from panelvox.eval.loaders.cib_loader import is_cib, load_cib
from panelvox.eval.loaders.coco_loader import is_coco, load_coco
from panelvox.eval.loaders.comic_ocr_loader import is_comic_ocr, load_comic_ocr
from panelvox.eval.loaders.common import read_json
from panelvox.eval.loaders.iabc_loader import is_iabc, load_iabc
from panelvox.eval.loaders.json_loader import is_gt_json, load_gt_json
from panelvox.eval.loaders.manga109_loader import is_manga109, load_manga109
from panelvox.eval.loaders.openmantra_loader import is_openmantra, load_openmantra
from panelvox.i18n import _

#: Short names of the datasets in the shared evaluation folder, in report order.
KNOWN_DATASETS: tuple[str, ...] = ("cib", "openmantra", "iabc", "comic-ocr")
#: Environment variable naming the evaluation data folder.
DATA_ENV = "PANELVOX_EVAL_DATA"

__all__ = ["DATA_ENV", "KNOWN_DATASETS", "data_root", "load_dataset"]


def data_root() -> Path | None:
    """The evaluation data folder: $PANELVOX_EVAL_DATA, ../shared/data from here or the checkout."""
    env = os.environ.get(DATA_ENV)
    candidates = [Path(env)] if env else []
    candidates.append(Path.cwd().parent / "shared" / "data")
    # app/panelvox/eval/loaders/__init__.py -> the checkout's parent holds shared/
    candidates.append(Path(__file__).resolve().parents[4].parent / "shared" / "data")
    return next((c for c in candidates if c.is_dir()), None)


def _not_found(what: str) -> DatasetError:
    return DatasetError(
        # Translators: printed when `panelvox eval` is given a dataset it cannot find.
        _("The evaluation dataset was not found."),
        detail=what,
    )


def load_dataset(path_or_name: str | Path, data_dir: Path | None = None) -> Dataset:
    """Load a dataset by short name or path, recognising its layout."""
    name = str(path_or_name)
    if name in KNOWN_DATASETS and not Path(name).exists():
        root = data_dir or data_root()
        if root is None or not (root / name).is_dir():
            raise _not_found(f"{name!r}: no evaluation data folder (set {DATA_ENV})")
        path = root / name
    else:
        path = Path(path_or_name)
    if not path.exists():
        raise _not_found(str(path))
    if path.is_file():
        data = read_json(path)
        if is_gt_json(data):
            return load_gt_json(path)
        if is_coco(data):
            return load_coco(path)
        raise DatasetError(
            # Translators: printed when a file given as evaluation data is not in a known format.
            _("This file is not in an annotation format Panelvox knows."),
            detail=str(path),
        )
    label = path.name if path.name in KNOWN_DATASETS else path.name or str(path)
    if is_cib(path):
        return load_cib(path, label)
    if is_openmantra(path):
        return load_openmantra(path, label)
    if is_iabc(path):
        return load_iabc(path, label)
    if is_manga109(path):
        return load_manga109(path, label)
    own = (
        sorted(p for p in path.glob("*.json") if is_gt_json(read_json(p))) if any(path.glob("*.json")) else []
    )
    if own:
        return load_gt_json(own[0])
    coco = [p for p in path.glob("*.json") if is_coco(read_json(p))]
    if coco:
        return load_coco(coco[0])
    if is_comic_ocr(path):
        return load_comic_ocr(path, label)
    raise DatasetError(
        # Translators: printed when a folder given as evaluation data has no layout Panelvox knows.
        _("This folder is not in a dataset layout Panelvox knows."),
        detail=str(path),
    )
