"""``panelvox eval DATASET --stage describe``: the describer and its verifier, measured.

Claims come from one of two sources (``--describer``):

``model``
    The VLM the user added (``panelvox models add``). Every panel the pipeline finds is
    described (``samples`` samples) and verified. The page's claims are scored with the
    eval's own "quoting text that is not there" metric
    (:func:`~panelvox.eval.dialogue_metrics.narration_faithfulness`) twice: verifier off
    (the first sample's claims as the model gave them) and verifier on (the claims it lets
    through, uncertain ones included: they are spoken with the cue). Flags are counted per
    type and per page, like the page-narration study's per-page hallucination rates; a flag
    is the verifier's doubt, not a confirmed hallucination.
``injected``
    No model: claims are written from the page's ground truth, and hallucinations are
    injected, so what is measured is the verifier itself against our OCR and detections.
    Per page, for every true quote (the human narration's quoted balloon text, the
    dialogue list, transcripts): one claim quoting it (should be kept), one quoting a line
    of another book instead (should be caught), one with a third of its words replaced
    from another book (should be caught). Names: every name the human narration makes speak
    ("Chad replies") and one name from another book (should be caught). Quote claims that
    are not truly absent by the eval's own measure (partial similarity ≥ 0.8 with the page's
    true text) are not injected. The same claims are also scored as narrations with the
    verifier off and on; the "off" rate is then set by the injection mix (2 of 3 quotes
    false) and only the "on" rate measures anything.
``auto``
    ``model`` when a model was added, else ``injected``.

Self-consistency and token probabilities (hallucination type 3, and character attributes)
need a model's samples; they are measured only in ``model`` mode.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from panelvox.analysis.cache import PageAnalyzer
from panelvox.analysis.pipeline import Stage, default_stages
from panelvox.eval.dataset_book import dataset_pages
from panelvox.eval.dialogue_metrics import extract_quotes, narration_faithfulness, quote_supported
from panelvox.eval.ground_truth import Dataset, GTPage
from panelvox.model import Image, PageAnalysis
from panelvox.narration.describe import (
    Claim,
    ClaimKind,
    Describer,
    PanelClaims,
    PanelDescription,
    PanelFacts,
    known_names,
)
from panelvox.narration.verify import (
    Decision,
    FlaggedPolicy,
    Hallucination,
    VerifiedClaim,
    VerifyConfig,
    name_candidates,
    quote_support,
    reported_speech,
    verify_narration,
    verify_panel,
)
from panelvox.textmatch import word_form

#: quote thresholds the injected mode also reports, to show the trade-off
SWEEP = (0.7, 0.75, 0.8, 0.85, 0.9)
_QUOTE_MARKS = re.compile(r"[\"“”„«»「」『』]")
MIN_QUOTE_WORDS_FOR_ALTERING = 3

Progress = Callable[[int, int, str], None]


class ClaimSource(Enum):
    AUTO = "auto"
    MODEL = "model"
    INJECTED = "injected"


class Probe(Enum):
    """What an injected claim is, and what the verifier should do with it."""

    TRUE_QUOTE = "true_quote"  # keep
    FOREIGN_QUOTE = "foreign_quote"  # catch (QUOTE flag)
    ALTERED_QUOTE = "altered_quote"  # catch (QUOTE flag)
    TRUE_NAME = "true_name"  # keep, if the page knows the name
    INVENTED_NAME = "invented_name"  # catch (CHARACTER flag)

    @property
    def should_catch(self) -> bool:
        return self in (Probe.FOREIGN_QUOTE, Probe.ALTERED_QUOTE, Probe.INVENTED_NAME)

    @property
    def flag_type(self) -> Hallucination:
        return (
            Hallucination.CHARACTER if self in (Probe.TRUE_NAME, Probe.INVENTED_NAME) else Hallucination.QUOTE
        )


@dataclass(frozen=True, slots=True)
class DescribeEvalResult:
    dataset: str
    source: ClaimSource  # MODEL or INJECTED (never AUTO)
    label: str  # what made the claims, in words
    pages: int
    seconds: float
    metrics: dict[str, float | int | str]
    per_page: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = field(default=())


# -- ground truth ----------------------------------------------------------------------------------
def reference_texts(page: GTPage) -> list[str]:
    """The page's true text: the narration's quotes, the dialogue list, box transcripts."""
    texts = [*extract_quotes(page.narration or ""), *page.dialogue]
    texts += [u.text for u in page.text_units() if u.text]
    out: list[str] = []
    seen: set[str] = set()
    for t in texts:
        clean = " ".join(_QUOTE_MARKS.sub(" ", t).split())
        key = word_form(clean)
        if len(key) >= VerifyConfig().min_quote_chars and key not in seen:
            seen.add(key)
            out.append(clean)
    return out


def speaking_names(narration: str | None) -> list[str]:
    """Names a human narration makes speak ("Chad replies, ...")."""
    names: list[str] = []
    for who, _what in reported_speech(narration or ""):
        for name in name_candidates(who):
            if name not in names:
                names.append(name)
    return names


def _book(page: GTPage) -> str:
    return page.book or page.page_id


def _alter(quote: str, donor: str, rng: random.Random) -> str | None:
    """``quote`` with a third of its words (at least one) replaced by other words of ``donor``.

    Only words of three letters or more are replaced and used: swapping "A" for "I" is OCR
    noise, not a misquote.
    """
    words = quote.split()
    content = [i for i, w in enumerate(words) if len(word_form(w)) >= 3]
    if len(words) < MIN_QUOTE_WORDS_FOR_ALTERING or not content:
        return None
    count = min(len(content), max(1, round(len(words) / 3)))
    for i in rng.sample(content, count):
        spare = [w for w in donor.split() if len(word_form(w)) >= 3 and word_form(w) != word_form(words[i])]
        if not spare:
            return None
        words[i] = rng.choice(spare)
    return " ".join(words)


def injected_probes(page: GTPage, dataset: Dataset, seed: int = 0) -> list[tuple[Probe, str, str]]:
    """(probe, claim text, the quote or name injected) for one page; deterministic."""
    rng = random.Random(f"{seed}:{page.page_id}")
    truth = reference_texts(page)
    others = [p for p in dataset.pages if _book(p) != _book(page)]
    pool = sorted({q for p in others for q in reference_texts(p)})
    probes: list[tuple[Probe, str, str]] = []

    def absent(text: str) -> bool:
        return not quote_supported(text, truth)

    for quote in truth:
        probes.append((Probe.TRUE_QUOTE, f"a balloon reads “{quote}”", quote))
        if not pool:
            continue
        foreign = rng.choice(pool)
        if absent(foreign):
            probes.append((Probe.FOREIGN_QUOTE, f"a balloon reads “{foreign}”", foreign))
        altered = _alter(quote, rng.choice(pool), rng)
        if altered is not None and absent(altered):
            probes.append((Probe.ALTERED_QUOTE, f"a balloon reads “{altered}”", altered))
    narration = (page.narration or "").casefold()
    true_names = speaking_names(page.narration)
    for name in true_names:
        probes.append((Probe.TRUE_NAME, f"{name} is in this panel", name))
    other_names = sorted(
        {n for p in others for n in speaking_names(p.narration) if n.casefold() not in narration}
    )
    if true_names and other_names:
        name = rng.choice(other_names)
        probes.append((Probe.INVENTED_NAME, f"{name} is in this panel", name))
    return probes


def _verify_probes(
    probes: Sequence[tuple[Probe, str, str]], analysis: PageAnalysis, config: VerifyConfig
) -> list[VerifiedClaim]:
    """One verified claim per probe, in order. A quote is checked against the whole page
    whatever its panel; a name is put in the panel where the page analysis has a character
    of that name (the first panel when none), so "not in this panel" does not count against it."""
    panels = analysis.panels_in_order()
    first = panels[0].id if panels else ""
    named = {name.casefold(): cid for cid, name in known_names(analysis).items()}
    panel_of = {c.id: c.panel for c in analysis.characters}
    by_panel: dict[str, list[int]] = {}
    for i, (probe, _text, payload) in enumerate(probes):
        panel = first
        if probe in (Probe.TRUE_NAME, Probe.INVENTED_NAME):
            panel = panel_of.get(named.get(payload.casefold(), "")) or first
        by_panel.setdefault(panel, []).append(i)
    out: dict[int, VerifiedClaim] = {}
    for number, (panel, indices) in enumerate(by_panel.items(), start=1):
        # prob 1.0: the claims are not in doubt as scenery, only their quotes and names are checked
        claims = tuple(Claim(ClaimKind.SUMMARY, probes[i][1], prob=1.0) for i in indices)
        description = PanelDescription(PanelFacts(panel, number), (PanelClaims(claims),))
        verified = verify_panel(description, analysis, config=config)
        out.update(zip(indices, verified.claims, strict=True))
    return [out[i] for i in range(len(probes))]


def _caught(probe: Probe, verified_flags: Sequence[Hallucination]) -> bool:
    return probe.flag_type in verified_flags


# -- runs ---------------------------------------------------------------------------------------------
def _pages(dataset: Dataset, limit: int | None) -> list[GTPage]:
    pages = [p for p in dataset.pages if reference_texts(p)]
    return pages[:limit] if limit is not None else pages


def _analyzer(stages: Sequence[Stage] | None) -> PageAnalyzer:
    """The default pipeline through the analysis cache (keyed by the code's fingerprint, so a
    changed stage is re-run); injected stages (tests) are never cached."""
    if stages is None:
        return PageAnalyzer.with_default_cache(default_stages())
    return PageAnalyzer(tuple(stages), None)


def _analyse(page: GTPage, analyzer: PageAnalyzer) -> tuple[Image, PageAnalysis]:
    """The page image and the page as the page service reads it (each image its own book)."""
    with dataset_pages(page.page_id, [page], analyzer) as service:
        return service.image(1), service.read(1)


def _ratio(num: int, den: int) -> float:
    return num / den if den else float("nan")


def _faithfulness_rows(prefix: str, off: list[tuple[int, int]], on: list[tuple[int, int]]) -> dict[str, Any]:
    """(quotes, unsupported) per page with the verifier off and on -> rates."""
    out: dict[str, Any] = {}
    for state, rows in (("off", off), ("on", on)):
        quotes = sum(q for q, _u in rows)
        bad = sum(u for _q, u in rows)
        out[f"{prefix}.quotes_verifier_{state}"] = quotes
        out[f"{prefix}.unsupported_quote_rate_verifier_{state}"] = _ratio(bad, quotes)
        out[f"{prefix}.pages_quoting_absent_text_verifier_{state}"] = _ratio(
            sum(1 for _q, u in rows if u), len(rows)
        )
    return out


def run_injected(
    dataset: Dataset,
    *,
    stages: Sequence[Stage] | None = None,
    limit: int | None = None,
    config: VerifyConfig | None = None,
    progress: Progress | None = None,
) -> DescribeEvalResult:
    """The verifier on true claims and injected hallucinations (see the module docstring)."""
    config = config or VerifyConfig()
    analyzer = _analyzer(stages)
    pages = _pages(dataset, limit)
    totals: dict[Probe, int] = dict.fromkeys(Probe, 0)
    caught: dict[Probe, int] = dict.fromkeys(Probe, 0)  # by the verifier's decisions
    swept: dict[tuple[float, Probe], int] = {}  # by the quote rule at other thresholds
    off_rows: list[tuple[int, int]] = []
    on_rows: list[tuple[int, int]] = []
    human_sentences = human_dropped = names_known = 0
    per_page: list[dict[str, Any]] = []
    started = time.perf_counter()
    for k, page in enumerate(pages):
        if progress is not None:
            progress(k, len(pages), page.page_id)
        _image, analysis = _analyse(page, analyzer)
        probes = injected_probes(page, dataset)
        names_known += int(any(c.name for c in analysis.characters))
        row: dict[str, Any] = {"page": page.page_id, "blocks": len(analysis.blocks)}
        for probe, *_rest in probes:
            totals[probe] += 1
        claims = _verify_probes(probes, analysis, config)
        flagged = [
            _caught(p, [f.type for f in vc.flags]) for (p, _t, _x), vc in zip(probes, claims, strict=True)
        ]
        for (probe, _text, _x), hit in zip(probes, flagged, strict=True):
            caught[probe] += int(hit)
        # the same quote rule at other thresholds, from the scores the verifier computed
        for probe, text, _x in probes:
            if probe.flag_type is not Hallucination.QUOTE:
                continue
            worst = min((score for _q, _b, score in quote_support(text, analysis, config)), default=1.0)
            for threshold in SWEEP:
                swept[(threshold, probe)] = swept.get((threshold, probe), 0) + int(worst < threshold)
        row.update(
            missed=[x for (p, _t, x), hit in zip(probes, flagged, strict=True) if p.should_catch and not hit],
            true_quotes_dropped=[
                x for (p, _t, x), hit in zip(probes, flagged, strict=True) if p is Probe.TRUE_QUOTE and hit
            ],
        )
        truth = reference_texts(page)
        quoting = [
            (vc, hit)
            for (p, _t, _x), vc, hit in zip(probes, claims, flagged, strict=True)
            if p.flag_type is Hallucination.QUOTE
        ]
        off_text = " ".join(vc.claim.text for vc, _hit in quoting)
        on_text = " ".join(vc.claim.text for vc, _hit in quoting if vc.spoken)
        off, on = narration_faithfulness(off_text, truth), narration_faithfulness(on_text, truth)
        off_rows.append((off.quotes, len(off.unsupported)))
        on_rows.append((on.quotes, len(on.unsupported)))
        if page.narration:
            kept, flags = verify_narration(page.narration, analysis, config)
            sentences = [s for s in re.split(r"(?<=[.!?…])\s+", page.narration.strip()) if s]
            human_sentences += len(sentences)
            human_dropped += len(sentences) - len([s for s in re.split(r"(?<=[.!?…])\s+", kept) if s])
            row["human_narration_flags"] = len(flags)
        per_page.append(row)
    if progress is not None:
        progress(len(pages), len(pages), "")
    seconds = time.perf_counter() - started
    metrics: dict[str, float | int | str] = {
        "verifier.quote_threshold": config.quote_threshold,
        "verifier.true_quotes": totals[Probe.TRUE_QUOTE],
        "verifier.true_quotes_kept": 1 - _ratio(caught[Probe.TRUE_QUOTE], totals[Probe.TRUE_QUOTE]),
        "verifier.foreign_quotes": totals[Probe.FOREIGN_QUOTE],
        "verifier.foreign_quotes_caught": _ratio(caught[Probe.FOREIGN_QUOTE], totals[Probe.FOREIGN_QUOTE]),
        "verifier.altered_quotes": totals[Probe.ALTERED_QUOTE],
        "verifier.altered_quotes_caught": _ratio(caught[Probe.ALTERED_QUOTE], totals[Probe.ALTERED_QUOTE]),
        "verifier.true_names": totals[Probe.TRUE_NAME],
        "verifier.true_names_flagged": _ratio(caught[Probe.TRUE_NAME], totals[Probe.TRUE_NAME]),
        "verifier.invented_names": totals[Probe.INVENTED_NAME],
        "verifier.invented_names_caught": _ratio(caught[Probe.INVENTED_NAME], totals[Probe.INVENTED_NAME]),
        "verifier.pages_with_known_names": _ratio(names_known, len(pages)),
        "verifier.human_narration_sentences": human_sentences,
        "verifier.human_narration_sentences_dropped": _ratio(human_dropped, human_sentences),
        **_faithfulness_rows("injected", off_rows, on_rows),
    }
    for threshold in SWEEP:
        kept_rate = 1 - _ratio(swept.get((threshold, Probe.TRUE_QUOTE), 0), totals[Probe.TRUE_QUOTE])
        fq = _ratio(swept.get((threshold, Probe.FOREIGN_QUOTE), 0), totals[Probe.FOREIGN_QUOTE])
        aq = _ratio(swept.get((threshold, Probe.ALTERED_QUOTE), 0), totals[Probe.ALTERED_QUOTE])
        metrics[f"sweep.{threshold:.2f}"] = (
            f"kept {kept_rate:.3f}, foreign caught {fq:.3f}, altered caught {aq:.3f}"
        )
    label = "injected claims (true quotes and names from the human ground truth, false ones from other books)"
    return DescribeEvalResult(
        dataset.name, ClaimSource.INJECTED, label, len(pages), seconds, metrics, tuple(per_page)
    )


def run_model(
    dataset: Dataset,
    describer: Describer,
    *,
    label: str,
    stages: Sequence[Stage] | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
) -> DescribeEvalResult:
    """Describe and verify every panel with a loaded model (see the module docstring)."""
    analyzer = _analyzer(stages)
    pages = _pages(dataset, limit)
    decisions: dict[Decision, int] = dict.fromkeys(Decision, 0)
    pages_flagged: dict[Hallucination, int] = dict.fromkeys(Hallucination, 0)
    flags_total: dict[Hallucination, int] = dict.fromkeys(Hallucination, 0)
    off_rows: list[tuple[int, int]] = []
    on_rows: list[tuple[int, int]] = []
    sure_rows: list[tuple[int, int]] = []
    per_page: list[dict[str, Any]] = []
    panels = tokens = failed = 0
    gen_seconds = describe_seconds = 0.0
    started = time.perf_counter()
    for k, page in enumerate(pages):
        if progress is not None:
            progress(k, len(pages), page.page_id)
        image, analysis = _analyse(page, analyzer)
        t0 = time.perf_counter()
        descriptions = describer.describe_page(image if describer.backend.has_vision else None, analysis)
        verified = [verify_panel(d, analysis) for d in descriptions]
        describe_seconds += time.perf_counter() - t0
        panels += len(descriptions)
        tokens += sum(d.tokens for d in descriptions)
        failed += sum(d.failed_samples for d in descriptions)
        gen_seconds += sum(d.seconds for d in descriptions)
        # as the page-narration eval does: the true text, and what the OCR read
        truth = [*reference_texts(page), *(b.text for b in analysis.blocks if b.text.strip())]
        raw = " ".join(c.text for d in descriptions if d.samples for c in d.samples[0].claims)
        cued = " ".join(c.claim.text for vp in verified for c in vp.kept(FlaggedPolicy.CUE))
        sure = " ".join(c.claim.text for vp in verified for c in vp.kept(FlaggedPolicy.DROP))
        for rows, text in ((off_rows, raw), (on_rows, cued), (sure_rows, sure)):
            fs = narration_faithfulness(text, truth)
            rows.append((fs.quotes, len(fs.unsupported)))
        types: set[Hallucination] = set()
        for vp in verified:
            for c in vp.claims:
                decisions[c.decision] += 1
                for f in c.flags:
                    flags_total[f.type] += 1
                    types.add(f.type)
        for h in types:
            pages_flagged[h] += 1
        per_page.append(
            {
                "page": page.page_id,
                "panels": len(descriptions),
                "quotes_verifier_off": off_rows[-1][0],
                "unsupported_verifier_off": off_rows[-1][1],
                "unsupported_verifier_on": on_rows[-1][1],
                "flag_types": sorted(h.value for h in types),
            }
        )
    if progress is not None:
        progress(len(pages), len(pages), "")
    n_claims = sum(decisions.values())
    metrics: dict[str, float | int | str] = {
        "describe.panels": panels,
        "describe.samples_per_panel": describer.config.samples,
        "describe.failed_samples": failed,
        "describe.seconds_per_panel": _ratio_f(describe_seconds, panels),
        "describe.seconds_per_page": _ratio_f(describe_seconds, len(pages)),
        "describe.tokens_per_second": _ratio_f(tokens, gen_seconds),
        "claims": n_claims,
        "claims.kept": _ratio(decisions[Decision.KEEP], n_claims),
        "claims.uncertain": _ratio(decisions[Decision.UNCERTAIN], n_claims),
        "claims.dropped": _ratio(decisions[Decision.DROP], n_claims),
        **_faithfulness_rows("model", off_rows, on_rows),
        "model.unsupported_quote_rate_uncertain_dropped_too": _ratio(
            sum(u for _q, u in sure_rows), sum(q for q, _u in sure_rows)
        ),
    }
    for h in Hallucination:
        metrics[f"flags.{h.value}.pages"] = _ratio(pages_flagged[h], len(pages))
        metrics[f"flags.{h.value}.claims"] = flags_total[h]
    seconds = time.perf_counter() - started
    return DescribeEvalResult(
        dataset.name, ClaimSource.MODEL, label, len(pages), seconds, metrics, tuple(per_page)
    )


def _ratio_f(num: float, den: float) -> float:
    return num / den if den else float("nan")
