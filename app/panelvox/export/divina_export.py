"""Readium DiViNa with Guided Navigation: a Web Publication (``manifest.json``, the DiViNa
profile) with the page pictures and one Guided Navigation Document (``guided.json``) that
lists each page's panels in reading order with their bubbles, captions and sounds, and who
speaks each bubble whose speaker the narration says (``character``; a guess marked as one).

Written as a folder, or packaged as a ``.divina`` (zip, manifest at the root). With audio,
each page has one audio file and every block an ``audioref`` with its ``#t=`` span.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panelvox.export.book_content import BookMeta, Line, PageContent, Section
from panelvox.export.package import Package
from panelvox.export.page_audio import PageRenderer, heading
from panelvox.i18n import interface_language
from panelvox.model import BBox
from panelvox.narration.prefs import UtteranceKind

DIVINA_PROFILE = "https://readium.org/webpub-manifest/profiles/divina"
GUIDED_TYPE = "application/guided-navigation+json"
GUIDED_NAME = "guided.json"

#: Guided Navigation roles of the comic kinds (the spec's comic examples; the roles of
#: lettering that is nobody's speech are not defined yet, so a sign carries none)
ROLES = {
    UtteranceKind.DIALOGUE: "speechBubble",
    UtteranceKind.THOUGHT: "thoughtBubble",
    UtteranceKind.CAPTION: "caption",
    UtteranceKind.SFX: "sound",
}


def fragment(bbox: BBox, width: int, height: int) -> str:
    """``#xywh=percent:x,y,w,h`` of ``bbox`` on a page of ``width`` x ``height`` pixels."""

    def pct(v: float, whole: int) -> str:
        return f"{max(0.0, min(100.0, 100.0 * v / max(whole, 1))):.2f}".rstrip("0").rstrip(".")

    return (
        f"#xywh=percent:{pct(bbox.x0, width)},{pct(bbox.y0, height)},"
        f"{pct(bbox.x1 - bbox.x0, width)},{pct(bbox.y1 - bbox.y0, height)}"
    )


@dataclass
class DivinaWriter:
    """Collects pages, then writes the publication into a :class:`Package`."""

    meta: BookMeta
    renderer: PageRenderer | None = None  # audio for every block, when given
    audio_ext: str = "wav"
    guided: list[dict[str, Any]] = field(default_factory=list)
    reading_order: list[dict[str, Any]] = field(default_factory=list)
    audio_seconds: float = 0.0

    def add_page(self, page: PageContent, package: Package) -> None:
        image = f"pages/page-{page.number:03d}.{page.extension}"
        package.write_bytes(image, page.image)
        spans: dict[str, tuple[float, float]] = {}
        audio: str | None = None
        if self.renderer is not None:
            rendered = self.renderer.render(
                [heading(page.overview), *(line.utterance for line in page.lines)]
            )
            audio = f"audio/page-{page.number:03d}.{self.audio_ext}"
            package.write_audio(audio, rendered.samples, rendered.sample_rate)
            spans = rendered.spans
            self.audio_seconds += rendered.seconds
        children = [
            o for s in page.sections if (o := self._section(s, page, image, audio, spans)) is not None
        ]
        entry: dict[str, Any] = {
            "imgref": image,
            # the overview is Panelvox's own words, in the interface's language
            "text": {"plain": page.overview, "language": interface_language()},
        }
        if children:
            entry["children"] = children
        self.guided.append(entry)
        self.reading_order.append(
            {
                "href": image,
                "type": page.image_type,
                "width": page.width,
                "height": page.height,
                "alternate": [{"href": GUIDED_NAME, "type": GUIDED_TYPE}],
            }
        )

    def _section(
        self,
        section: Section,
        page: PageContent,
        image: str,
        audio: str | None,
        spans: dict[str, tuple[float, float]],
    ) -> dict[str, Any] | None:
        blocks = [self._block(line, page, image, audio, spans) for line in section.lines if line.block]
        if section.panel is None:
            return {"children": blocks} if blocks else None  # lettering outside every panel
        where = fragment(section.bbox, page.width, page.height) if section.bbox else ""
        out: dict[str, Any] = {"role": ["panel"], "imgref": image + where}
        if blocks:
            out["children"] = blocks
        return out

    def _block(
        self,
        line: Line,
        page: PageContent,
        image: str,
        audio: str | None,
        spans: dict[str, tuple[float, float]],
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        role = ROLES.get(line.kind)
        if role is not None:
            out["role"] = [role]
        out["imgref"] = image + (fragment(line.bbox, page.width, page.height) if line.bbox else "")
        out["text"] = {"plain": line.words, "language": line.utterance.language}
        if line.character:
            # the Guided Navigation draft's ``character`` (an array of strings); a guess says so
            # in its own words ("probably Kala"), as the narration does
            out["character"] = [line.character]
        span = spans.get(line.block or "")
        if audio is not None and span is not None:
            out["audioref"] = f"{audio}#t={span[0]:.3f},{span[1]:.3f}"
        return out

    def finish(self, package: Package) -> None:
        package.write_bytes(GUIDED_NAME, _json({"guided": self.guided}))
        package.write_bytes("manifest.json", _json(self.manifest()))

    def manifest(self) -> dict[str, Any]:
        m = self.meta
        metadata: dict[str, Any] = {
            "@type": "http://schema.org/ComicStory",
            "conformsTo": DIVINA_PROFILE,
            "identifier": m.identifier,
            "title": m.title,
            "language": m.language,
            "readingProgression": "ltr" if m.direction.value == "ltr" else "rtl",
            "numberOfPages": m.page_count,
            "accessibility": accessibility(audio=self.renderer is not None),
        }
        if m.series:
            metadata["belongsTo"] = {
                "series": [
                    {"name": m.series, **({"position": _num(m.number)} if _num(m.number) is not None else {})}
                ]
            }
        for role, name in m.creators:
            metadata.setdefault(role, []).append(name)
        if m.summary:
            metadata["description"] = m.summary
        if m.publisher:
            metadata["publisher"] = m.publisher
        if m.year:
            metadata["published"] = f"{m.year:04d}"
        if m.genres:
            metadata["subject"] = list(m.genres)
        if self.renderer is not None:
            metadata["duration"] = round(self.audio_seconds, 3)
            metadata["narrator"] = {"name": "Panelvox (synthetic speech)"}
        return {
            "@context": "https://readium.org/webpub-manifest/context.jsonld",
            "metadata": metadata,
            "links": [
                {"rel": "self", "href": "manifest.json", "type": "application/webpub+json"},
                {"rel": "related", "href": GUIDED_NAME, "type": GUIDED_TYPE},
            ],
            "readingOrder": self.reading_order,
        }


def accessibility(*, audio: bool) -> dict[str, Any]:
    """What the publication offers a reader who cannot see it, said truthfully: the text and
    order come from automatic analysis and may hold recognition errors."""
    features = ["readingOrder", "structuralNavigation", "transcript"]
    modes = ["visual", "textual"]
    if audio:
        features.append("synchronizedAudioText")
        modes.append("auditory")
    return {
        "accessMode": modes,
        "accessModeSufficient": [["visual"], ["textual"]],
        "feature": features,
        "hazard": ["unknown"],
        "summary": (
            "Each page's panels in reading order with the text of every balloon, caption and sound "
            "effect and who speaks it where Panelvox can tell, found by automatic analysis; the text may "
            "hold recognition errors, and a speaker Panelvox guesses is marked 'probably'."
        ),
    }


def _num(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None


def _json(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def write_divina(
    pages: Iterable[PageContent], meta: BookMeta, out: Path, renderer: PageRenderer | None = None
) -> Path:
    """The publication at ``out``: a ``.divina`` zip, or a folder for any other name."""
    with Package.open(out, zipped=out.suffix.lower() == ".divina") as package:
        writer = DivinaWriter(meta, renderer, audio_ext=package.audio_ext)
        for page in pages:
            writer.add_page(page, package)
        writer.finish(package)
    return out
