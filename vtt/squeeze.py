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
# A line of template tags and comments alone ({% if %}, {% endfor %}, {# ... #}), and the
# line break after it: what such a line draws is nothing, or what its tags draw.
TAGS_LINE = re.compile(r"^((?:\{%(?:[^%\n]|%(?!\}))*%\}|\{#(?:[^#\n]|#(?!\}))*#\})+)\n", re.M)


def squeeze(source: str) -> str:
    """`source` without indentation, blank lines, or the line break after a line of tags
    alone. A line break before such a line stays, so words on two lines stay apart."""
    return TAGS_LINE.sub(r"\1", LINE_BREAK.sub("\n", source))


class Loader(filesystem.Loader):
    """Django's filesystem loader for the project's `templates/`, each HTML template
    squeezed (`squeeze`)."""

    def get_contents(self, origin: Origin) -> str:
        contents = super().get_contents(origin)
        return squeeze(contents) if origin.name.endswith(".html") else contents
