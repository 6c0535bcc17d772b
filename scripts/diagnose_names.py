#!/usr/bin/env python3
"""Why a line by a named cast member is not said with its name (issue 29), held out by story.

For every found dialogue line of the golden scripts whose speaker is a named cast member (the
lines named recall counts), the first of these that holds, in this order:

- ``said right``: the line is said with a name that fits its speaker;
- ``said wrong``: it is said with a name that fits someone else;
- ``no mention``: the pages of the story, as read, never mention the speaker's name (a
  vocative, a self-introduction or a caption); ``in text`` when one of the speaker's name
  words is in the text read all the same (the mention finder did not take it);
- ``not attributed``: a mention is there, but no page person of the story is given the name
  (the page's evidence rules: one exchange, three people talking, a caption alone …);
- ``wrong person``: the name is held only by page persons whose balloons are mostly someone
  else's;
- ``speaker wrong``: the name is held by the right person, but this line's own balloon is
  given to a page person who is mostly someone else (or to no one);
- ``not carried``: the line's page person is the right one and the name is held by the right
  person on some page, but it does not reach this line: ``same page person, other figure``
  (the name lands on the figures its evidence points at only), ``grouped, gate`` (one book
  person, the link model below :data:`CARRY_SURE`), ``not grouped`` (the book grouping keeps
  them apart), ``decision`` (two names held as often, or the person calls the name).

The analyses are those ``scripts/train_speaker_model.py`` reads (its cache of the stages up to
"characters"), the speakers stage with the page pair model of the fold that held the story
out, and the names pass with the person link model of that fold (merge bias of the shipped
model). The fold analyses are kept under $XDG_CACHE_HOME/panelvox/names-diag so that a change
of the names pass alone is measured again in seconds (``--fresh`` makes them again).

    .venv/bin/python scripts/diagnose_names.py --extra ../shared/data/cib-extra
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pickle
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "app"))

from panelvox import paths  # noqa: E402
from panelvox.analysis.lettering import WordList  # noqa: E402
from panelvox.eval.dataset_book import DatasetBook, books_of  # noqa: E402
from panelvox.eval.ground_truth import Dataset, GoldenScript, GTPage  # noqa: E402
from panelvox.eval.loaders import load_dataset  # noqa: E402
from panelvox.eval.page_scoring import heard_blocks  # noqa: E402
from panelvox.eval.runner import EvalStage, run_eval  # noqa: E402
from panelvox.eval.script_metrics import (  # noqa: E402
    DIALOGUE_KINDS,
    UNNAMED_PREFIX,
    HeardBlock,
    aggregate_scores,
    name_fits,
    name_words,
    score_script_page,
    speaker_words,
)
from panelvox.model import PageAnalysis, ReadingDirection  # noqa: E402
from panelvox.names.book_names import BookNames  # noqa: E402
from panelvox.names.book_persons import PagePerson, PersonModel, carries, group_book  # noqa: E402
from panelvox.names.evidence import Mention, is_name_word, name_key  # noqa: E402
from panelvox.names.persons import person_evidence  # noqa: E402
from panelvox.names.stores import NameStore  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "train_speaker_model", REPO / "scripts" / "train_speaker_model.py"
)
assert _spec is not None and _spec.loader is not None
train = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train)

CACHE = paths.cache_dir() / "names-diag"
CLASSES = (
    "said right",
    "said wrong",
    "no mention: not in the text read",
    "no mention: in text, not a name word (a dictionary word)",
    "no mention: in text, not a vocative or introduction",
    "not attributed: no evidence tied to a person",
    "not attributed: tied to the right person, not held",
    "not attributed: tied to others only, not held",
    "wrong person",
    "speaker wrong",
    "not carried: same page person, other figure",
    "not carried: grouped, gate",
    "not carried: not grouped",
    "not carried: decision",
)


class Stored:
    """A page source over fold analyses made once (keyed by page id)."""

    def __init__(self, analyses: Mapping[str, PageAnalysis]) -> None:
        self.analyses = analyses

    def analyze_page(self, book: DatasetBook, page: int, direction: ReadingDirection) -> PageAnalysis:
        return self.analyses[book.pages[page - 1].page_id]


@dataclass(frozen=True)
class Fold:
    story: str
    person_model: PersonModel
    analyses: dict[str, PageAnalysis]


def prepare(
    extra_dir: Path | None, fresh: bool
) -> tuple[list[tuple[str, list[GTPage]]], dict[str, list[GTPage]], dict[str, Fold]]:
    dataset = load_dataset("cib")
    pages = [p for p in dataset.pages if p.script is not None]
    extra = [p for p in load_dataset(extra_dir).pages if p.script is not None] if extra_dir else []
    stories = books_of(pages)
    extra_of = {name: group for name, group in books_of(extra)}
    store = CACHE / f"folds{'-extra' if extra else ''}.pickle"
    if store.exists() and not fresh:
        with store.open("rb") as f:
            kept = pickle.load(f)
        return stories, extra_of, {s: Fold(s, model, analyses) for s, (model, analyses) in kept.items()}
    from panelvox.analysis.cache import AnalysisCache, PageAnalyzer, pipeline_fingerprint
    from panelvox.analysis.pipeline import default_stages

    prefix_stages = tuple(s for s in default_stages() if s.name != "speakers")
    fingerprint = pipeline_fingerprint(prefix_stages, ignore=train.SPEAKER_MODELS)
    prefix = PageAnalyzer(prefix_stages, AnalysisCache(paths.cache_dir() / "train", fingerprint))
    everything = {name: group + extra_of.get(name, []) for name, group in stories}
    import numpy as np

    data = {}
    for k, (story, story_pages) in enumerate(everything.items(), 1):
        print(f"[{k}/{len(everything)}] pairs of {story}", file=sys.stderr)
        book = DatasetBook(story, story_pages)
        xs, ys = [], []
        for number, page in enumerate(story_pages, 1):
            analysis = prefix.analyze_page(book, number, page.direction)
            x, y = train.labelled_pairs(page, analysis, book.load_page_array(number - 1))
            xs.append(x)
            ys.append(y)
        data[story] = (np.concatenate(xs), np.concatenate(ys))
    analyses: dict[str, dict[str, PageAnalysis]] = {}
    person_data = {}
    for story, story_pages in everything.items():
        x = np.concatenate([v[0] for s, v in data.items() if s != story])
        y = np.concatenate([v[1] for s, v in data.items() if s != story])
        fold = train.FoldAnalyzer(prefix, train.fit(x, y))
        book = DatasetBook(story, story_pages)
        analyses[story] = {
            p.page_id: fold.analyze_page(book, n, p.direction) for n, p in enumerate(story_pages, 1)
        }
        person_data[story] = train.story_person_pairs(story, story_pages, Stored(analyses[story]))
    bias = PersonModel.shipped().merge_bias
    folds = {}
    for story in everything:
        x = np.concatenate([v[0] for s, v in person_data.items() if s != story])
        y = np.concatenate([v[1] for s, v in person_data.items() if s != story])
        folds[story] = Fold(story, train.fit_persons(x, y, bias), analyses[story])
    CACHE.mkdir(parents=True, exist_ok=True)
    with store.open("wb") as f:
        pickle.dump({s: (fold.person_model, fold.analyses) for s, fold in folds.items()}, f)
    return stories, extra_of, folds


def _majority(votes: Counter[str]) -> str | None:
    return votes.most_common(1)[0][0] if votes else None


@dataclass(frozen=True)
class _Book:
    """What the names pass made of one book's pages, and the golden speaker of its persons."""

    words: WordList
    #: page -> its mentions (the names pass's)
    mentions: dict[int, list[Mention]]
    #: page person -> the golden speaker most of its balloons have (the trainer's rule)
    gold_of: dict[tuple[int, str], str]
    #: (page, block id) -> the page person who says it
    person_of_block: dict[tuple[int, str], tuple[int, str]]
    #: name key -> the page persons whose page holds it for them (the page's evidence rules)
    holders: dict[str, list[tuple[int, str]]]
    #: name key -> the page persons a mention is tied to, held or not
    tied_to: dict[str, list[tuple[int, str]]]
    #: name words of everything read on the book's pages
    text_words: frozenset[str]
    group_of: dict[tuple[int, str], int]
    persons: dict[tuple[int, str], PagePerson]
    carry: Callable[[PagePerson, PagePerson], bool]


def _book_facts(
    pages: Sequence[GTPage], raw: Mapping[int, PageAnalysis], names: BookNames, fold: Fold
) -> _Book:
    named, everyone = names._named_pages()
    mentions: dict[int, list[Mention]] = names._mentions
    groups = group_book(everyone, fold.person_model)
    gold_of: dict[tuple[int, str], str] = {}
    person_of_block: dict[tuple[int, str], tuple[int, str]] = {}
    for n, page in enumerate(pages, 1):
        a = named.get(n, raw[n])
        chars = {c.id: c for c in a.characters}
        votes: dict[str, Counter[str]] = {}
        said = train.block_speakers(page, a)
        for b in a.blocks:
            link = a.speaker_of(b.id)
            who = chars.get(link.character) if link is not None and link.character else None
            if who is not None:
                person_of_block[(n, b.id)] = (n, who.cluster or who.id)
                if b.id in said:
                    votes.setdefault(who.cluster or who.id, Counter())[said[b.id]] += 1
        for key, c in votes.items():
            gold_of[(n, key)] = c.most_common(1)[0][0]
    holders: dict[str, list[tuple[int, str]]] = {}
    for p in everyone:
        if p.name is not None:
            holders.setdefault(name_key(p.name), []).append(p.ident)
    tied_to: dict[str, list[tuple[int, str]]] = {}
    for n, a in named.items():
        cluster = {c.id: c.cluster or c.id for c in a.characters}
        for e in person_evidence(a, mentions.get(n, [])):
            if not e.against:
                tied_to.setdefault(name_key(e.name), []).append((n, cluster.get(e.person, e.person)))
    text_words = frozenset(w for a in raw.values() for b in a.blocks for w in name_words(b.text))
    return _Book(
        names.words,
        mentions,
        gold_of,
        person_of_block,
        holders,
        tied_to,
        text_words,
        {p.ident: g for p, g in zip(everyone, groups, strict=True)},
        {p.ident: p for p in everyone},
        carries(fold.person_model),
    )


def _classify(book: _Book, script: GoldenScript, page: int, speaker: str, block: HeardBlock) -> str:
    """Why one line by a named cast member is (not) said with its name: the first class that holds."""
    words = speaker_words(script, speaker)
    if block.name is not None:
        return "said right" if name_fits(script, block.name, speaker) else "said wrong"
    keys = {m.key for ms in book.mentions.values() for m in ms if name_words(m.name) & words}
    if not keys:
        found = words & book.text_words
        if not found:
            return "no mention: not in the text read"
        if any(is_name_word(w, book.words) for w in found):
            return "no mention: in text, not a vocative or introduction"
        return "no mention: in text, not a name word (a dictionary word)"
    held = [i for k in keys for i in book.holders.get(k, [])]
    if not held:
        tied = [t for k in keys for t in book.tied_to.get(k, [])]
        if any(book.gold_of.get(t) == speaker for t in tied):
            return "not attributed: tied to the right person, not held"
        return (
            "not attributed: tied to others only, not held"
            if tied
            else "not attributed: no evidence tied to a person"
        )
    right = [i for i in held if book.gold_of.get(i) == speaker]
    mine = book.person_of_block.get((page, block.id))
    if not right:
        return "wrong person"
    if mine is None or book.gold_of.get(mine) != speaker:
        return "speaker wrong"
    if mine in right:
        return "not carried: same page person, other figure"
    same = [i for i in right if book.group_of[i] == book.group_of[mine]]
    if not same:
        return "not carried: not grouped"
    gated = not all(book.carry(book.persons[i], book.persons[mine]) for i in same)
    return "not carried: grouped, gate" if gated else "not carried: decision"


#: what perfect persons would reach (every line of a golden speaker one person of the book):
#: the lines whose speaker's name the story's pages hold for them, or tie to them at least once
CEILINGS = (
    "ceiling: held for the right person somewhere in the story",
    "ceiling: tied to the right person somewhere in the story",
)


def _ceilings(book: _Book, script: GoldenScript, speaker: str) -> list[str]:
    words = speaker_words(script, speaker)
    keys = {m.key for ms in book.mentions.values() for m in ms if name_words(m.name) & words}
    held = any(book.gold_of.get(i) == speaker for k in keys for i in book.holders.get(k, []))
    tied = any(book.gold_of.get(i) == speaker for k in keys for i in book.tied_to.get(k, []))
    return [c for c, hit in zip(CEILINGS, (held, held or tied), strict=True) if hit]


def diagnose_book(name: str, pages: Sequence[GTPage], fold: Fold) -> tuple[Counter[str], list[str]]:
    """The class of every found named-cast dialogue line of one book (one story's pages)."""
    dataset_book = DatasetBook(name, pages)
    source = Stored(fold.analyses)
    with TemporaryDirectory(prefix="panelvox-diag-") as tmp:
        store = NameStore(Path(tmp) / "names.json")
        names = BookNames(dataset_book.content_hash, (), store, persons=fold.person_model)
        raw = {n: source.analyze_page(dataset_book, n, p.direction) for n, p in enumerate(pages, 1)}
        for a in raw.values():
            names.learn(a)
        heard_pages = {n: names.apply(a) for n, a in raw.items()}
        book = _book_facts(pages, raw, names, fold)
    out: Counter[str] = Counter()
    examples: list[str] = []
    for n, page in enumerate(pages, 1):
        script = page.script
        assert script is not None
        heard = heard_blocks(heard_pages[n])
        score = score_script_page(script, heard)
        lines = [ln for ln in script.lines if any(ch.isalnum() for ch in ln.text)]
        for line, pos in zip(lines, score.positions, strict=True):
            if pos is None or line.kind not in DIALOGUE_KINDS or line.speaker is None:
                continue
            if line.speaker.startswith(UNNAMED_PREFIX):
                continue
            cls = _classify(book, script, n, line.speaker, heard[pos])
            out[cls] += 1
            for ceiling in _ceilings(book, script, line.speaker):
                out[ceiling] += 1
            if cls != "said right":
                seen = ",".join(sorted(speaker_words(script, line.speaker) & book.text_words))
                examples.append(f"{page.page_id}\t{cls}\t{line.speaker}\t{seen}\t{line.text[:60]}")
    return out, examples


def _held_out_metrics(
    stories: Sequence[tuple[str, list[GTPage]]], folds: Mapping[str, Fold], root: Path, name: str
) -> dict[str, float]:
    """``panelvox eval --stage script`` on each story with its fold's models (the trainer's figures)."""
    from panelvox.analysis.pipeline import default_stages

    results = []
    for story, story_pages in stories:
        if not story_pages:
            continue
        fold = folds[story]
        held = Dataset(name, root, tuple(story_pages))
        results.append(
            run_eval(
                held,
                EvalStage.SCRIPT,
                stages=default_stages(),
                analyzer=Stored(fold.analyses),
                person_model=fold.person_model,
            )
        )
    totals = aggregate_scores([r.script for res in results for r in res.records if r.script is not None])
    return {k: round(float(totals[k]), 3) for k in train._REPORTED}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--extra", type=Path, help="cib-extra: its pages train the folds and are diagnosed apart"
    )
    parser.add_argument("--fresh", action="store_true", help="make the fold analyses again")
    parser.add_argument("--examples", type=Path, help="write every line not said right here (TSV)")
    parser.add_argument("--no-metrics", action="store_true", help="only the diagnosis")
    args = parser.parse_args()
    stories, extra_of, folds = prepare(args.extra, args.fresh)
    sets = {"cib": stories}
    if extra_of:
        sets["cib-extra"] = [(s, extra_of.get(s, [])) for s, _ in stories]
    report: dict[str, object] = {}
    all_examples = []
    for set_name, groups in sets.items():
        total: Counter[str] = Counter()
        for story, story_pages in groups:
            if story_pages:
                got, examples = diagnose_book(story, story_pages, folds[story])
                total += got
                all_examples += [f"{set_name}\t{e}" for e in examples]
        lines = sum(total[c] for c in CLASSES)
        report[set_name] = {"lines": lines, **{c: total[c] for c in (*CLASSES, *CEILINGS)}}
        print(f"{set_name}: {lines} found dialogue lines by a named cast member")
        for c in (*CLASSES, *CEILINGS):
            print(f"  {c:46s} {total[c]:4d}  {total[c] / max(lines, 1):.3f}")
        if not args.no_metrics:
            root = load_dataset("cib").root
            report[f"{set_name} metrics"] = _held_out_metrics(groups, folds, root, set_name)
            print(f"  held-out metrics: {json.dumps(report[f'{set_name} metrics'])}")
    if args.examples:
        args.examples.write_text("\n".join(all_examples) + "\n", encoding="utf-8")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
