"""The docs cannot drift from the command line.

Every ``ocean ...``, ``tune ...`` and ``python -m benchmarks.chaos|methods|prunebench|v4search ...`` command
shown in README.md and docs/*.md — in shell code blocks and in inline code, including commands
quoted inside others (``--p0 "ocean bot --params best.toml"``) — must name commands and subcommands
that exist, and every ``--flag`` it shows must be an option of that command. A flag shown alone in
inline code (``--or-resume``) must belong to a command named in the heading it sits under, or, under
a heading that names none, to some command. The command tree is read from the click objects Typer
builds (``typer.main.get_command``), so nothing is parsed from help text. Every relative link must
lead to a file that exists.
"""
from __future__ import annotations

import ast
import re
import shlex
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Shown in the docs before the code lands (the external-programs work: docs/programs.md and the
# README's "Tune your own bot"). Each is excused only while it is missing; once it exists it is
# checked like any other, and this list should lose it.
PENDING_FLAGS: set[tuple[str, str]] = set()
PENDING_LINKS: set[str] = set()

SHELL_LANGUAGES = {"", "bash", "sh", "shell", "console"}
SEPARATORS = {"&&", "||", "|", ";", "&", ">", ">>", "2>", "<"}
FLAG = re.compile(r"(?<![\w-])--[A-Za-z0-9][\w-]*")
FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
INLINE = re.compile(r"`([^`]+)`")
HEADING = re.compile(r"^#{1,6} (.*)$", re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


# --- the command tree -----------------------------------------------------------------------------

@dataclass
class Command:
    path: str
    options: set[str]
    commands: dict[str, "Command"] = field(default_factory=dict)

    def subtree_options(self) -> set[str]:
        out = set(self.options)
        for sub in self.commands.values():
            out |= sub.subtree_options()
        return out


def _from_click(cmd, path: str) -> Command:
    options = {"--help"}
    for param in cmd.params:
        if param.param_type_name == "option":
            options.update(o for o in [*param.opts, *param.secondary_opts] if o.startswith("--"))
    node = Command(path, options)
    for name, sub in (getattr(cmd, "commands", None) or {}).items():
        node.commands[name] = _from_click(sub, f"{path} {name}")
    return node


# The research scripts users run as ``python -m benchmarks.NAME`` (argparse, not Typer).
SCRIPTS = ("chaos", "methods", "prunebench", "v4search")


def _script_command(name: str) -> Command:
    """``python -m benchmarks.NAME`` is argparse; read its add_argument calls without importing it."""
    tree = ast.parse((ROOT / "benchmarks" / f"{name}.py").read_text())
    options = {"--help"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            options.update(a.value for a in node.args
                           if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"))
    return Command(f"python -m benchmarks.{name}", options)


def cli_tree() -> dict[str, Command]:
    import typer

    from ocean.cli import app as ocean_app
    from tuning.cli import app as tune_app

    return {
        "ocean": _from_click(typer.main.get_command(ocean_app), "ocean"),
        "tune": _from_click(typer.main.get_command(tune_app), "tune"),
        **{f"python -m benchmarks.{name}": _script_command(name) for name in SCRIPTS},
    }


@pytest.fixture(scope="module")
def tree() -> dict[str, Command]:
    return cli_tree()


# --- reading the docs -------------------------------------------------------------------------------

def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _tokens(text: str, comments: bool) -> list[str]:
    try:
        return shlex.split(text, comments=comments)
    except ValueError:  # unbalanced quotes in a synopsis: fall back to words
        if comments:
            text = re.sub(r"(^|\s)#.*$", "", text, flags=re.M)
        return text.split()


def _program_at(tokens: list[str], i: int) -> tuple[str, int] | None:
    if tokens[i] in ("ocean", "tune"):
        return tokens[i], i + 1
    if tokens[i] == "python" and len(tokens) > i + 2 and tokens[i + 1] == "-m" \
            and tokens[i + 2] in {f"benchmarks.{name}" for name in SCRIPTS}:
        return f"python -m {tokens[i + 2]}", i + 3
    return None


def _has_command(text: str) -> bool:
    return bool(re.search(r"(^|\s)(ocean|tune)\s|python -m benchmarks\.(" + "|".join(SCRIPTS) + r")\b", text))


def commands_in(tokens: list[str]) -> list[tuple[str, list[str]]]:
    """(program, its argument tokens) for every command in a token list, nested ones included."""
    found = []
    i = 0
    while i < len(tokens):
        hit = _program_at(tokens, i)
        if hit is None:
            if " " in tokens[i] and _has_command(tokens[i]):
                found += commands_in(_tokens(tokens[i], comments=False))
            i += 1
            continue
        program, j = hit
        args, depth = [], 0
        while j < len(tokens):
            tok = tokens[j]
            if depth <= 0 and tok in SEPARATORS:
                break
            depth += tok.count("[") - tok.count("]")
            if " " in tok:  # a quoted argument: maybe a command of its own (--p0 "ocean bot ...")
                if _has_command(tok):
                    found += commands_in(_tokens(tok, comments=False))
            elif tok.endswith(";") and depth <= 0:
                args.append(tok[:-1])
                j += 1
                break
            else:
                args.append(tok)
            j += 1
        found.append((program, args))
        i = j
    return found


def check_command(tree: dict[str, Command], program: str, args: list[str]) -> tuple[list[Command], list[str]]:
    """The commands a shown command names (its node) and what is wrong with it."""
    node = tree[program]
    rest = list(args)
    while node.commands and rest:
        word = rest[0].strip("[]")
        if word.startswith("-"):
            break
        if word not in node.commands:
            return [], [f"`{node.path} {word}`: no such command (known: {', '.join(sorted(node.commands))})"]
        node = node.commands[word]
        rest.pop(0)
    problems = []
    for arg in rest:
        for flag in FLAG.findall(arg):
            if flag not in node.options and not _pending(node.path, flag):
                problems.append(f"`{node.path}` has no option {flag} (it has: {', '.join(sorted(node.options))})")
    return [node], problems


def _pending(path: str, flag: str) -> bool:
    """Is ``flag`` pending on the command ``path`` or on a command under it?"""
    return any(f == flag and (p + " ").startswith(path + " ") for p, f in PENDING_FLAGS)


@dataclass
class Snippet:
    line: int
    text: str
    block: bool           # a shell code block (comments are stripped) or inline code
    heading: str          # the heading it sits under ("" before the first)


def snippets(markdown: str) -> list[Snippet]:
    """Shell code blocks and inline code spans (outside code blocks), with their heading."""
    found = []  # (offset, text, block)
    blanked = list(markdown)
    for m in FENCE.finditer(markdown):
        if m.group(1).lower() in SHELL_LANGUAGES:
            found.append((m.start(2), m.group(2), True))
        for k in range(m.start(), m.end()):
            if blanked[k] != "\n":
                blanked[k] = " "
    prose = "".join(blanked)
    found += [(m.start(), m.group(1).replace("\n", " "), False) for m in INLINE.finditer(prose)]
    headings = [(m.start(), m.group(1)) for m in HEADING.finditer(prose)]
    out = []
    for offset, text, block in sorted(found):
        above = [h for o, h in headings if o <= offset]
        out.append(Snippet(markdown.count("\n", 0, offset) + 1, text, block, above[-1] if above else ""))
    return out


def check_markdown(markdown: str, tree: dict[str, Command], name: str = "<text>") -> tuple[list[str], int]:
    """Problems with the commands and flags a Markdown text shows, and how many it checked."""
    problems, checked = [], 0
    heading_nodes: dict[str, list[Command]] = {}
    for s in snippets(markdown):
        if s.heading not in heading_nodes:
            nodes = []
            for span in INLINE.findall(s.heading):
                for program, args in commands_in(_tokens(span, comments=False)):
                    nodes += check_command(tree, program, args)[0]
            heading_nodes[s.heading] = nodes
        if s.block:  # one command line per line, backslash continuations joined
            lines: list[tuple[int, str]] = []
            for k, line in enumerate(s.text.split("\n")):
                if lines and lines[-1][1].endswith("\\"):
                    lines[-1] = (lines[-1][0], lines[-1][1][:-1] + " " + line)
                else:
                    lines.append((s.line + k, line))
        else:
            lines = [(s.line, s.text)]
        shown = []
        for line_number, line in lines:
            for program, args in commands_in(_tokens(line, comments=s.block)):
                shown.append(program)
                checked += 1
                problems += [f"{name}:{line_number}: {p}" for p in check_command(tree, program, args)[1]]
        if not shown and not s.block and s.text.lstrip("[").startswith("--"):
            # a flag on its own: it belongs to the heading's commands, or to some command
            nodes = heading_nodes[s.heading] or list(tree.values())
            allowed = set().union(*(n.subtree_options() for n in nodes))
            for flag in FLAG.findall(s.text):
                checked += 1
                if flag not in allowed and not any(_pending(n.path, flag) for n in nodes):
                    where = " or ".join(f"`{n.path}`" for n in nodes) if heading_nodes[s.heading] else "any command"
                    problems.append(f"{name}:{s.line}: {flag} is not an option of {where}")
    return problems, checked


def _blank(text: str, pattern: re.Pattern) -> str:
    """``text`` with every match of ``pattern`` blanked out, line breaks kept (line numbers hold)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def broken_links(markdown: str, path: Path) -> list[str]:
    prose = _blank(_blank(markdown, FENCE), INLINE)
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    problems = []
    for m in LINK.finditer(prose):
        target = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue  # a URL, mail address or an anchor on the same page
        resolved = (path.parent / target.split("#", 1)[0]).resolve()
        if resolved.exists():
            continue
        if resolved.is_relative_to(ROOT) and resolved.relative_to(ROOT).as_posix() in PENDING_LINKS:
            continue
        problems.append(f"{name}:{prose.count(chr(10), 0, m.start()) + 1}: link to {target}: no such file")
    return problems


# --- the checks on the real docs --------------------------------------------------------------------

def test_docs_exist():
    names = {p.relative_to(ROOT).as_posix() for p in doc_files()}
    assert "README.md" in names and "docs/README.md" in names


def test_every_command_and_flag_in_the_docs_exists(tree):
    problems, checked = [], 0
    for path in doc_files():
        found, n = check_markdown(path.read_text(), tree, path.relative_to(ROOT).as_posix())
        problems += found
        checked += n
    assert not problems, "the docs show commands or flags the CLI does not have:\n" + "\n".join(problems)
    assert checked > 100, f"only {checked} commands and flags found: is the extraction broken?"
    for path, flag in sorted(PENDING_FLAGS):
        program, *words = path.split()
        node = tree[program]
        for word in words:
            node = node.commands.get(word, node)
        if flag in node.options:
            warnings.warn(f"{path} {flag} exists now: remove it from PENDING_FLAGS in tests/test_docs.py")


def test_every_relative_link_leads_to_a_file():
    problems = []
    for path in doc_files():
        problems += broken_links(path.read_text(), path)
    assert not problems, "\n".join(problems)


def test_the_readme_reads_in_five_minutes():
    assert len((ROOT / "README.md").read_text()) <= 10_500


# --- the checker can fail ------------------------------------------------------------------------

def test_a_made_up_flag_in_a_code_block_is_reported(tree):
    problems, _ = check_markdown("Text.\n\n```bash\ntune status quick\ntune launch --no-such-flag\n```\n", tree)
    assert problems == ["<text>:5: `tune launch` has no option --no-such-flag (it has: --games, --help, "
                        "--or-resume, --ray-address, --storage, --trials)"]


def test_made_up_flags_and_commands_in_inline_code_are_reported(tree):
    text = ("Run `tune lunch quick`, then `ocean referee --seed 1 --p0 \"ocean bot --bogus\" --p1 x`,\n"
            "`ocean panel ad NAME` and `python -m benchmarks.chaos --driver-kills 2 --nope`.\n")
    problems, _ = check_markdown(text, tree)
    assert len(problems) == 4, problems
    assert "tune lunch" in problems[0]
    assert "`ocean bot` has no option --bogus" in problems[1]
    assert "ocean panel ad" in problems[2]
    assert "--nope" in problems[3]


def test_a_flag_alone_must_belong_to_its_headings_command(tree):
    text = "## `tune status [NAME] [--json]`\n\nWith `--json` it prints JSON; `--top 3` is not its.\n"
    problems, _ = check_markdown(text, tree)
    assert len(problems) == 1 and "--top" in problems[0] and "tune status" in problems[0]
    assert check_markdown("## Anything\n\n`--top` and `--ray-address`\n", tree)[0] == []
    assert check_markdown("## Anything\n\n`--no-such-option`\n", tree)[0] != []


def test_true_commands_pass_and_comments_and_other_languages_are_not_read(tree):
    text = ("```bash\nocean referee --seed 3 --p0 \"ocean bot --params best.toml\" --p1 \"ocean bot --name stealth\""
            " --replay game.json\ntune launch x.toml   # add --not-a-flag here\n"
            "pip install -e . && ocean warmup && tune export quick --out best.toml\n```\n"
            "```toml\n# tune launch --whatever\n```\n"
            "`ocean bench [--json] [--tracking | --bots]` and `tune export NAME [--format toml|json|cpp]`\n")
    problems, checked = check_markdown(text, tree)
    assert problems == [] and checked == 8


def test_a_pending_flag_is_excused_only_where_it_is_pending(tree):
    assert check_markdown('`ocean panel add NAME --command "CMD" --cwd DIR`\n', tree)[0] == []
    assert check_markdown('## Programs\n\nWith `--cwd DIR` it runs there.\n', tree)[0] == []
    assert check_markdown('`ocean arena --command "CMD"`\n', tree)[0] != []
    assert check_markdown('## `tune export NAME`\n\nWith `--cwd DIR`.\n', tree)[0] != []


def test_a_broken_link_is_reported(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("x")
    text = ("[ok](there.md) [also ok](there.md#part) [web](https://example.org/x.md) [anchor](#top)\n"
            "[broken](missing.md) ![picture](img/missing.png)\n```\n[in code](nowhere.md)\n```\n")
    problems = broken_links(text, page)
    assert problems == ["page.md:2: link to missing.md: no such file",
                        "page.md:2: link to img/missing.png: no such file"]


def test_the_readmes_two_commands_install_the_tested_versions_and_ci_runs_the_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    main, tests = blocks[0], blocks[1]
    assert readme.index(main) < readme.index("## ")  # both at the top, before the first section
    for command in (main, tests):
        assert "pip install -c .ci/constraints.txt -e " in command
    assert (ROOT / ".ci" / "constraints.txt").exists()
    test_command = tests.split(" && ")[-1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert f"OCEAN_NO_SKIPS=1 {test_command} -x\n" in ci  # CI runs what the README promises...
    assert f"OCEAN_NO_SKIPS=1 {test_command} -x -m drill\n" in ci  # ...and the drills it leaves out
    assert "-c .ci/constraints.txt" in ci


# A figure in prose: a decimal, a number with thousands separators, a duration, or a count with
# its unit. IP addresses, inline code and link targets are not prose.
_FIGURE = re.compile(r"[+-]?\d+\.\d+|\d{1,3}(?:,\d{3})+|\d+ min(?: \d+ s)?(?!utes)"
                     r"|\d+(?:\.\d+)? (?:s|ms|games|tests|trials|maps|runs|minutes|Elo|seconds)\b")


def readme_figures(text: str) -> list[str]:
    """The figures the README's prose states, in order."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"\d+\.\d+\.\d+\.\d+", "", text)
    return _FIGURE.findall(text)


def test_readme_figures_are_read_the_same_way_in_docs():
    assert readme_figures("took 2 min 23 s (`--games 1000`) on 127.0.0.1: 0.832 [0.820, 0.843], 16,560 games, "
                          "10 minutes, [x](a.md#run-2026-11-28)") == \
        ["2 min 23 s", "0.832", "0.820", "0.843", "16,560", "10 minutes"]


def test_every_readme_figure_comes_from_a_recorded_run():
    # issue 35: README figures a run did not show. Each is in the table of recorded runs (its
    # command, date and machine load), and each of the table's quotes is still in the README.
    readme = (ROOT / "README.md").read_text()
    bench = (ROOT / "docs" / "benchmarks.md").read_text()
    section = bench.split("## The README's figures", 1)[1].split("\n## ", 1)[0]
    quoted = [row.split("|")[1] for row in section.splitlines() if row.startswith("|") and "---" not in row][1:]
    in_table = [f for q in quoted for f in readme_figures(q)]
    missing = [f for f in readme_figures(readme) if f not in in_table]
    assert not missing, f"README figures with no recorded run in docs/benchmarks.md: {missing}"
    stale = [q.strip() for q in quoted if any(f not in readme_figures(readme) for f in readme_figures(q))]
    assert not stale, f"rows of docs/benchmarks.md's README figures the README no longer quotes: {stale}"
