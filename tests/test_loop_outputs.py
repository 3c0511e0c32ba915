"""The files the README's loop writes in the clone are git-ignored (issue 35): a newcomer's
`git status` after the loop shows nothing of theirs to commit by mistake. Read from .gitignore
itself (a plain reading of its patterns: no git needed)."""
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ignored(path: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        anchored = pattern.startswith("/")
        pattern = pattern.lstrip("/").rstrip("/")
        names = [path] if anchored else [path, path.rsplit("/", 1)[-1]]
        parts = path.split("/")
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts))]  # a folder ignores what is in it
        if any(fnmatch.fnmatch(n, pattern) for n in names + prefixes):
            return True
    return False


def test_what_the_readme_loop_writes_is_git_ignored():
    patterns = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    loop = (ROOT / "README.md").read_text().split("## A bot author's loop", 1)[1].split("\n```\n", 1)[0]
    written = set(re.findall(r"--(?:out|replay) (\S+)", loop)) | set(re.findall(r"ocean replay (\S+)", loop))
    assert {"best.toml", "report.html", "game.json", "game.html", "params.hpp", "learned.toml"} <= written
    figures = [f"report_figures/{n}.png" for n in ("history", "importances", "opponents")]
    for path in sorted(written) + figures + ["report_history.png"]:  # and figures of before
        assert _ignored(path, patterns), f"{path} is not git-ignored"
    assert not _ignored("studies/quick.toml", patterns) and not _ignored("docs/report.png", patterns)
