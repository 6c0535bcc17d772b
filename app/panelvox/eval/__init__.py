"""Measuring the page analysis: dataset loaders, benchmark metrics and ``panelvox eval``.

- :mod:`.ground_truth` — the ground-truth types every loader produces;
- :mod:`.loaders` — cib, OpenMantra, iabc, comic-ocr, Manga109, COCO and our own JSON;
- :mod:`.metrics`, :mod:`.dialogue_metrics`, :mod:`.text_norm` — pure metric functions;
- :mod:`.runner`, :mod:`.page_scoring`, :mod:`.aggregate` — run the pipeline and score it;
- :mod:`.report`, :mod:`.overlay`, :mod:`.command` — tables, files and the CLI command.

Never imports Qt.
"""
