"""What a feature's `apply(model, options)` reports: titled sections of lines, and the measured deviation from
stock, rendered to the node's text once (`Report.render`, at the node boundary).

    Report([Section("compile", "mode default (inductor), ...", ["  status: compiles on the first sampling step"])])
    -> "compile: mode default (inductor), ...\n  status: compiles on the first sampling step"

A feature's first section is its headline; a node's headline is titled with the node's title (None outside a
node). A preset that chains features (Wan Level-1) takes their sections, not their text: `Report.under(name)`, or
`Report.body` where the headline is only the node's name.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace


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

    def plus(self, *lines: str) -> "Section":
        """This section with `lines` added under it."""
        return replace(self, lines=self.lines + lines)


@dataclass(frozen=True)
class Report:
    """Titled sections, and `deviation`: the measured deviation from stock ComfyUI of what was applied (a figure with
    where it was measured), None where the applied path is exact. Where a feature states the deviation, its
    section's text says it too; the field lets a preset or a test read it without parsing text."""

    sections: tuple = field(default_factory=tuple)
    deviation: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "sections", tuple(self.sections))

    def render(self) -> str:
        return "\n".join(line for s in self.sections for line in s.render())

    def under(self, title: str) -> tuple:
        """The sections inside a preset's report: the headline titled `title` (the feature's name there) instead of
        the node's title."""
        return (replace(self.sections[0], title=title), *self.sections[1:])

    def plus(self, *lines: str) -> "Report":
        """This report with `lines` added under its last section."""
        return replace(self, sections=(*self.sections[:-1], self.sections[-1].plus(*lines)))

    @property
    def body(self) -> tuple:
        """The sections under the headline."""
        return self.sections[1:]
