"""The project's templates, read without their indentation and blank lines.

Every pushed fragment is made of these templates, and their indentation (kept for whoever
edits them) is about a tenth of each frame's bytes. A line break still separates what the
next line starts, so a browser shows the same text: HTML collapses a run of white space
to one space, and the only elements that would keep it (`<pre>`, `<textarea>`) hold no
indented template text here. Done once, when a template is first read (Django's cached
loader keeps the result), so it costs no time per render.
"""

from __future__ import annotations

import re

from django.template import Origin
from django.template.loaders import filesystem

# A line break followed by indentation, blank lines and the next line's indentation.
LINE_BREAK = re.compile(r"\n[ \t]*(?:\n[ \t]*)*")


def squeeze(source: str) -> str:
    return LINE_BREAK.sub("\n", source)


class Loader(filesystem.Loader):
    """Django's filesystem loader for the project's `templates/`, each HTML template
    squeezed (`squeeze`)."""

    def get_contents(self, origin: Origin) -> str:
        contents = super().get_contents(origin)
        return squeeze(contents) if origin.name.endswith(".html") else contents
