"""The describer: a local vision-language model turns a panel crop into structured claims.

Per panel the model gets the crop and the facts already verified on the page (dialogue in
reading order with speakers, detected characters with their positions, known names). It
is told not to read or quote text (VLMs misread and misattribute lettering; dialogue comes
from the OCR). Its answer is forced into JSON by a llama.cpp grammar built here, with
bounded string lengths and list sizes, so even a tiny or badly behaved model returns
parseable claims of bounded length. Several samples are drawn so :mod:`verify` can check
self-consistency; each claim carries the model's own probability for its tokens.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np
from PIL import Image as PILImage

from panelvox.i18n import _
from panelvox.model import BalloonKind, BBox, Image, PageAnalysis, Panel
from panelvox.narration.script import said_by, speaker_labels
from panelvox.narration.vlm_backend import Generation, LlamaBackend

log = logging.getLogger(__name__)

#: An RGB page image, shape (height, width, 3), dtype uint8.


class ClaimKind(Enum):
    CHARACTER = "character"  # "who": a character is present
    APPEARANCE = "appearance"
    EXPRESSION = "expression"
    POSTURE = "posture"
    ACTION = "action"
    SETTING = "setting"
    OBJECT = "object"
    SUMMARY = "summary"

    @property
    def attribute(self) -> bool:
        return self in (ClaimKind.APPEARANCE, ClaimKind.EXPRESSION, ClaimKind.POSTURE, ClaimKind.ACTION)


_ATTRIBUTES = (ClaimKind.APPEARANCE, ClaimKind.EXPRESSION, ClaimKind.POSTURE, ClaimKind.ACTION)


@dataclass(frozen=True, slots=True)
class Claim:
    """One statement of the model about a panel."""

    kind: ClaimKind
    text: str
    character: int | None = None  # index of the character a CHARACTER/attribute claim is about
    prob: float | None = None  # geometric-mean token probability, when the backend gives it


@dataclass(frozen=True, slots=True)
class PanelClaims:
    """One sample: everything the model said about a panel, in document order."""

    claims: tuple[Claim, ...]
    raw: str = ""
    seconds: float = 0.0
    tokens: int = 0

    def of(self, kind: ClaimKind) -> list[Claim]:
        return [c for c in self.claims if c.kind is kind]

    def who(self, index: int) -> str:
        return next(
            (c.text for c in self.claims if c.kind is ClaimKind.CHARACTER and c.character == index), ""
        )


@dataclass(frozen=True, slots=True)
class DescribeConfig:
    samples: int = 3  # for self-consistency; 1 turns it off
    temperature: float = 0.7
    word_budget: int = 60  # words spoken per panel after verification
    max_characters: int = 4
    max_objects: int = 4
    short_chars: int = 40  # who, expression, posture, objects
    long_chars: int = 90  # appearance, action, setting, summary
    crop_max_side: int = 768
    seed: int = 0

    @property
    def max_tokens(self) -> int:
        """Enough for the longest answer the grammar allows, even one byte per token."""
        per_char = 3 * self.short_chars + 2 * self.long_chars + 80
        total = self.max_characters * per_char + self.max_objects * (self.short_chars + 4)
        return total + 2 * self.long_chars + 120


@dataclass(frozen=True, slots=True)
class PanelFacts:
    """What the page analysis already established about a panel (given to the model)."""

    panel_id: str
    panel_number: int
    dialogue: tuple[tuple[str | None, str], ...] = ()  # (speaker name or None, text) in order
    characters: tuple[tuple[str | None, str], ...] = ()  # (name or None, position words)
    names: tuple[str, ...] = ()  # every name known on the page
    characters_detected: bool = False  # whether a character detector ran at all


@dataclass(frozen=True, slots=True)
class PanelDescription:
    facts: PanelFacts
    samples: tuple[PanelClaims, ...]
    seconds: float = 0.0
    failed_samples: int = 0

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.samples)


# -- grammar -----------------------------------------------------------------------------------
def claims_grammar(config: DescribeConfig = DescribeConfig()) -> str:
    """GBNF for the claims JSON: strings without quotes or backslashes, of bounded length."""
    c = config

    def key(name: str) -> str:
        return f'"\\"{name}\\":" ws'

    character = (
        f'"{{" ws {key("who")} short "," ws {key("appearance")} long "," ws '
        f'{key("expression")} short "," ws {key("posture")} short "," ws {key("action")} long ws "}}"'
    )
    return "\n".join(
        [
            f'root ::= "{{" ws {key("characters")} chars "," ws {key("setting")} long "," ws '
            f'{key("objects")} objs "," ws {key("summary")} long ws "}}"',
            f'chars ::= "[" ws "]" | "[" ws char ("," ws char){{0,{c.max_characters - 1}}} ws "]"',
            f"char ::= {character}",
            f'objs ::= "[" ws "]" | "[" ws short ("," ws short){{0,{c.max_objects - 1}}} ws "]"',
            f'short ::= "\\"" ch{{0,{c.short_chars}}} "\\""',
            f'long ::= "\\"" ch{{0,{c.long_chars}}} "\\""',
            # no quote, backslash or control character: values need no escaping, and a
            # straight double quote (the usual way to quote dialogue) cannot be produced
            r"ch ::= [^\"\\\x00-\x1f\x7f]",
            'ws ::= " "?',
        ]
    )


def claims_schema(config: DescribeConfig = DescribeConfig()) -> dict[str, Any]:
    """The same structure as a JSON schema (for documentation and outside tools)."""
    short = {"type": "string", "maxLength": config.short_chars}
    long = {"type": "string", "maxLength": config.long_chars}
    character = {
        "type": "object",
        "properties": {
            "who": short,
            "appearance": long,
            "expression": short,
            "posture": short,
            "action": long,
        },
        "required": ["who", "appearance", "expression", "posture", "action"],
    }
    return {
        "type": "object",
        "properties": {
            "characters": {"type": "array", "items": character, "maxItems": config.max_characters},
            "setting": long,
            "objects": {"type": "array", "items": short, "maxItems": config.max_objects},
            "summary": long,
        },
        "required": ["characters", "setting", "objects", "summary"],
    }


# -- parsing -----------------------------------------------------------------------------------
def parse_claims(generation: Generation) -> PanelClaims:
    """Claims from a grammar-constrained answer. Raises ``ValueError`` if it is not the JSON asked for."""
    raw = generation.text
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("claims are not an object")
    cursor = 0
    claims: list[Claim] = []

    def add(kind: ClaimKind, value: Any, character: int | None = None) -> None:
        nonlocal cursor
        if not isinstance(value, str):
            raise ValueError(f"{kind.value} is not a string")
        # values contain no quote or backslash (grammar), so they appear verbatim in order
        at = raw.find(f'"{value}"', cursor)
        prob = None
        if at >= 0:
            cursor = at + len(value) + 2
            prob = generation.span_prob(at + 1, at + 1 + len(value)) if value else None
        text = " ".join(value.split())
        if text:
            claims.append(Claim(kind, text, character, prob))

    for i, char in enumerate(data.get("characters") or []):
        if not isinstance(char, dict):
            raise ValueError("a character is not an object")
        add(ClaimKind.CHARACTER, char.get("who", ""), i)
        for kind in _ATTRIBUTES:
            add(kind, char.get(kind.value, ""), i)
    add(ClaimKind.SETTING, data.get("setting", ""))
    for obj in data.get("objects") or []:
        add(ClaimKind.OBJECT, obj)
    add(ClaimKind.SUMMARY, data.get("summary", ""))
    return PanelClaims(tuple(claims), raw, generation.seconds, len(generation.tokens))


# -- facts and prompt --------------------------------------------------------------------------
def _position(box: BBox, panel: BBox) -> str:
    cx = (box.center.x - panel.x0) / max(panel.width, 1.0)
    cy = (box.center.y - panel.y0) / max(panel.height, 1.0)
    horiz = "left" if cx < 0.36 else "right" if cx > 0.64 else "centre"
    vert = "top" if cy < 0.33 else "bottom" if cy > 0.67 else ""
    return f"{vert} {horiz}".strip()


def known_names(analysis: PageAnalysis) -> dict[str, str]:
    """Character id -> name for every character with a known name on the page."""
    return {c.id: c.name for c in analysis.characters if c.name}


def panel_facts(analysis: PageAnalysis, panel: Panel) -> PanelFacts:
    """The verified facts of one panel, as the describer gives them to the model."""
    named = known_names(analysis)
    spoken = speaker_labels(analysis)
    dialogue = []
    for block in analysis.blocks_of(panel.id):
        if block.kind in (BalloonKind.SFX, BalloonKind.OTHER) or not block.text.strip():
            continue
        link = analysis.speaker_of(block.id)
        who = None
        if block.kind is BalloonKind.CAPTION:
            who = "narrator"
        elif link is not None and link.character is not None:
            who = said_by(analysis, link)
        dialogue.append((who, block.text))
    chars = [
        (named.get(c.id), _position(c.bbox, panel.bbox))
        for c in analysis.characters
        if c.panel == panel.id and c.kind == "body"
    ] or [
        (named.get(c.id), _position(c.bbox, panel.bbox)) for c in analysis.characters if c.panel == panel.id
    ]
    number = panel.order or (analysis.panels_in_order().index(panel) + 1)
    return PanelFacts(
        panel_id=panel.id,
        panel_number=number,
        dialogue=tuple(dialogue),
        characters=tuple(chars),
        names=tuple(sorted(set(named.values()) | set(spoken.values()))),
        characters_detected=any(s.startswith("characters") for s in analysis.stages),
    )


SYSTEM_PROMPT = (
    "You describe one comic panel for a blind reader. Describe only what is drawn: the "
    "characters (appearance, facial expression, posture, action), the setting, key objects, "
    "and one short summary sentence. Never read, quote or paraphrase any lettering: speech "
    "balloons, captions, signs and sound effects are read to the user separately from the "
    "text below. Use a name only if it is in the list of known names; otherwise say who it "
    "is plainly (a man, a girl, a dog). Leave a field empty when you cannot see it clearly. "
    "Answer only with the JSON asked for."
)


def build_prompt(facts: PanelFacts, config: DescribeConfig = DescribeConfig()) -> str:
    """The user message: the verified facts and the word budget (in English, for the model)."""
    lines = [f"Panel {facts.panel_number}."]
    if facts.characters_detected:
        lines.append(f"Characters detected in this panel: {len(facts.characters)}.")
        for name, where in facts.characters:
            lines.append(f"- {name or 'unnamed'}, {where}")
    if facts.names:
        lines.append("Known names: " + ", ".join(facts.names) + ".")
    if facts.dialogue:
        lines.append("Dialogue already read to the user (do not repeat it):")
        lines.extend(f"- {who or 'someone'}: {text}" for who, text in facts.dialogue)
    lines.append(
        f"Describe the panel in at most {config.word_budget} words in all, as JSON with "
        "characters (who, appearance, expression, posture, action), setting, objects, summary."
    )
    return "\n".join(lines)


def crop_png(image: Image, box: BBox, max_side: int) -> bytes:
    """The panel crop as PNG, scaled down so its longer side is at most ``max_side``."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(box.x0)), max(0, int(box.y0))
    x1, y1 = min(w, int(np.ceil(box.x1))), min(h, int(np.ceil(box.y1)))
    crop = PILImage.fromarray(np.ascontiguousarray(image[y0:y1, x0:x1]))
    if max(crop.size) > max_side:
        crop.thumbnail((max_side, max_side))
    buf = io.BytesIO()
    crop.save(buf, format="PNG")
    return buf.getvalue()


@dataclass
class Describer:
    """Describes panels with one loaded model (create once, reuse for every panel)."""

    backend: LlamaBackend
    config: DescribeConfig = field(default_factory=DescribeConfig)

    def describe_panel(
        self,
        image: Image | None,
        analysis: PageAnalysis,
        panel: Panel,
    ) -> PanelDescription:
        """``config.samples`` samples of claims about ``panel`` (the image is the whole page)."""
        facts = panel_facts(analysis, panel)
        png = crop_png(image, panel.bbox, self.config.crop_max_side) if image is not None else None
        grammar = claims_grammar(self.config)
        prompt = build_prompt(facts, self.config)
        samples: list[PanelClaims] = []
        failed = 0
        seconds = 0.0
        for i in range(max(1, self.config.samples)):
            gen = self.backend.generate(
                SYSTEM_PROMPT,
                prompt,
                grammar=grammar,
                image_png=png,
                # the first sample is the most likely answer; the others probe consistency
                temperature=0.0 if i == 0 else self.config.temperature,
                seed=self.config.seed + i,
                max_tokens=self.config.max_tokens,
            )
            seconds += gen.seconds
            try:
                samples.append(parse_claims(gen))
            except ValueError as exc:
                failed += 1
                log.warning("panel %s sample %d unusable (%s): %r", panel.id, i, gen.finish_reason, exc)
        return PanelDescription(facts, tuple(samples), seconds, failed)

    def describe_page(
        self,
        image: Image | None,
        analysis: PageAnalysis,
        panels: Sequence[Panel] | None = None,
    ) -> list[PanelDescription]:
        return [self.describe_panel(image, analysis, p) for p in (panels or analysis.panels_in_order())]


def no_description_notice() -> str:
    # Translators: spoken when a panel has no description the checks let through.
    return _("No description could be confirmed for this panel.")
