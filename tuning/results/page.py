"""The frame of the small report pages (a test's, a learning run's): one self-contained HTML
document with the same plain style."""
from __future__ import annotations

import html
from pathlib import Path

__all__ = ["html_page", "figure_path"]

_STYLE = """body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; vertical-align: top; }
img { max-width: 100%; display: block; margin: 8px 0; } .note { color: #666; }"""


def html_page(title: str, body: str) -> str:
    """A whole HTML document titled ``title`` (escaped here) around ``body`` (HTML as given)."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
{_STYLE}
</style></head><body>
{body}
</body></html>
"""


def figure_path(out: Path, name: str) -> Path:
    """Where the PNG of figure ``name`` of page ``out`` goes: in a folder beside the page, named
    after it (``report.html`` -> ``report_figures/history.png``), created if missing. The page
    itself carries every figure inside it: it opens without the folder."""
    folder = out.with_name(f"{out.stem}_figures")
    folder.mkdir(exist_ok=True)
    return folder / f"{name}.png"

