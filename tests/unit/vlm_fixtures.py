"""A hand-made page for the describer and verifier tests: two panels, three balloons, names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from panelvox.model import (
    Balloon,
    BalloonKind,
    BBox,
    Character,
    PageAnalysis,
    Panel,
    ReadingDirection,
    SpeakerLink,
    SpeakerReason,
)
from panelvox.narration.describe import Claim, ClaimKind, PanelClaims, PanelDescription, PanelFacts

REPO = Path(__file__).resolve().parents[2]


def page(*, characters_ran: bool = True) -> PageAnalysis:
    """Panel 1: Steenie (left) and Dougal (right) talk; panel 2: a caption and a sign, nobody."""
    p1 = Panel("p1", BBox(0, 0, 400, 300), 0.9, "t", order=1)
    p2 = Panel("p2", BBox(0, 300, 400, 600), 0.9, "t", order=2)
    blocks = (
        Balloon(
            "b1",
            BalloonKind.SPEECH,
            BBox(20, 10, 180, 60),
            "WHERE IS THE BOAT?",
            0.9,
            "t",
            panel="p1",
            order=1,
        ),
        Balloon(
            "b2",
            BalloonKind.SPEECH,
            BBox(220, 10, 380, 60),
            "IT SANK LAST NIGHT.",
            0.9,
            "t",
            panel="p1",
            order=2,
        ),
        Balloon(
            "b3",
            BalloonKind.CAPTION,
            BBox(10, 310, 200, 340),
            "MEANWHILE, IN TOWN...",
            0.9,
            "t",
            panel="p2",
            order=3,
        ),
        Balloon("b4", BalloonKind.OTHER, BBox(250, 400, 350, 430), "BAKERY", 0.9, "t", panel="p2", order=4),
    )
    chars = (
        Character("c1", BBox(20, 80, 150, 290), 0.8, "t", panel="p1", name="Steenie", label="Steenie"),
        Character("c2", BBox(230, 80, 380, 290), 0.8, "t", panel="p1", name="Dougal", label="Dougal"),
    )
    speakers = (
        SpeakerLink("b1", "c1", 0.8, SpeakerReason.TAIL, "t"),
        SpeakerLink("b2", "c2", 0.7, SpeakerReason.PROXIMITY, "t"),
        SpeakerLink("b3", None, 1.0, SpeakerReason.NARRATOR, "t"),
    )
    stages = ("panels:t", "text:t", "order:t") + (("characters:t", "speakers:t") if characters_ran else ())
    return PageAnalysis(
        page=3,
        width=400,
        height=600,
        direction=ReadingDirection.LTR,
        panels=(p1, p2),
        blocks=blocks,
        characters=chars if characters_ran else (),
        speakers=speakers if characters_ran else (),
        stages=stages,
    )


def sample(*claims: Claim) -> PanelClaims:
    return PanelClaims(tuple(claims))


def description(panel_id: str, *samples: PanelClaims) -> PanelDescription:
    number = 1 if panel_id == "p1" else 2
    return PanelDescription(PanelFacts(panel_id, number), tuple(samples))


def char(i: int, who: str, **attrs: str) -> list[Claim]:
    out = [Claim(ClaimKind.CHARACTER, who, i)]
    for key, value in attrs.items():
        out.append(Claim(ClaimKind(key), value, i))
    return out


def make_tiny_vlm(out: Path) -> tuple[Path, Path]:
    """Run scripts/make_tiny_vlm.py (the real script) into ``out``."""
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_tiny_vlm.py"), str(out)], check=True)
    return out / "tiny-vlm.gguf", out / "tiny-vlm-mmproj.gguf"
