"""Shared by the bench scripts: prints a section and puts it into BENCHMARKS.md under its heading, in
place of the one there (or at the end)."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_section(heading, lines):
    """Prints the section (its lines, the heading first) and writes it."""
    text = "\n".join(lines)
    print(text)
    path = os.path.join(ROOT, "BENCHMARKS.md")
    current = open(path).read()
    if heading in current:
        before, rest = current.split(heading, 1)
        after = rest[rest.find("\n## "):] if "\n## " in rest else ""
        current = before + text + after
    else:
        current = current.rstrip("\n") + "\n\n" + text
    with open(path, "w") as f:
        f.write(current)
