"""What a feature's `apply(model, options)` reports: the first screen (what ran, the measured gain for this kind of
model and GPU, what to install or change for more), titled sections of lines with the reasons, sources and fidelity,
and the measured deviation from stock, rendered to the node's text once (`Report.render`, at the node boundary).

    Report([Section("compile", "mode default (inductor), ...", ["  status: compiles on the first sampling step"])])
    -> "compile: mode default (inductor), ...\n  status: compiles on the first sampling step"

A report with a `summary` renders it first, then the DETAILS line, then the sections: the frontend shows the first
screen and folds the details away (web/accel_report.js); the node's STRING output, the log and the prompt's history
keep the whole text.

A feature's first section is its headline; a node's headline is titled with the node's title (None outside a
node). A preset that chains features (Wan Level-1) takes their sections, not their text: `Report.under(name)`, or
`Report.body` where the headline is only the node's name.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

DETAILS = "-- details --"  # the line between a report's first screen and its details
FIRST_SCREEN = 6  # lines a report's first screen has at most (the report after a run puts one line above a summary)


def split_details(text: str) -> tuple:
    """(first screen, details) of a report's text; details "" where the text has no DETAILS line."""
    head, sep, tail = text.partition("\n" + DETAILS + "\n")
    if not sep and text.endswith("\n" + DETAILS):
        return text[:-len(DETAILS) - 1], ""
    return head, tail


def join_details(summary, details: str) -> str:
    """The text of a first screen (lines) and its details (text): the first screen alone where there are no details,
    the details alone where there is no first screen."""
    if not summary or not details:
        return "\n".join(summary) or details
    return "\n".join([*summary, DETAILS, details])


def with_first_screen(text: str) -> str:
    """A report's text with a first screen of at most FIRST_SCREEN lines: as it is where it has one (or is that
    short), else its first line, then the rest as details."""
    if ("\n" + DETAILS + "\n") in text or text.count("\n") < FIRST_SCREEN:
        return text
    first, _, rest = text.partition("\n")
    return join_details([first], rest)


@dataclass(frozen=True)
class Section:
    """`<title>: <text>` on the first line (the title or the text alone when the other is empty), then `lines`,
    each as shown (sub-lines carry their own indent)."""

    title: str | None
    text: str = ""
    lines: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "lines", tuple(self.lines))

    def render(self) -> list[str]:
        return [": ".join(p for p in (self.title, self.text) if p), *self.lines]

    def plus(self, *lines: str) -> Section:
        """This section with `lines` added under it."""
        return replace(self, lines=self.lines + lines)


@dataclass(frozen=True)
class Report:
    """Titled sections, and `deviation`: the measured deviation from stock ComfyUI of what was applied (a figure with
    where it was measured), None where the applied path is exact. Where a feature states the deviation, its
    section's text says it too; the field lets a preset or a test read it without parsing text.
    `summary`: the first screen, at most FIRST_SCREEN - 1 lines (what ran, the measured gain for this kind of model
    and GPU, what to install or change for more); none: the sections alone. `hints`: what to install or change for
    more, one sentence each, for the summary of a node that chains this feature (a preset)."""

    sections: tuple = field(default_factory=tuple)
    deviation: str | None = None
    summary: tuple = ()
    hints: tuple = ()

    def __post_init__(self):
        for name in ("sections", "summary", "hints"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if len(self.summary) >= FIRST_SCREEN:
            raise ValueError(f"a report's summary has at most {FIRST_SCREEN - 1} lines, not {len(self.summary)}")

    def render(self) -> str:
        return join_details(self.summary, self.details())

    def details(self) -> str:
        """The sections' text (everything but the summary)."""
        return "\n".join(line for s in self.sections for line in s.render())

    def under(self, title: str) -> tuple:
        """The sections inside a preset's report: the headline titled `title` (the feature's name there) instead of
        the node's title."""
        return (replace(self.sections[0], title=title), *self.sections[1:])

    def plus(self, *lines: str) -> Report:
        """This report with `lines` added under its last section."""
        return replace(self, sections=(*self.sections[:-1], self.sections[-1].plus(*lines)))

    @property
    def body(self) -> tuple:
        """The sections under the headline."""
        return self.sections[1:]
