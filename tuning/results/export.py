"""``tune export``: a trial's full coefficient set with its provenance, as TOML (what
``ocean bot --params`` reads), JSON or a C++ header; for a study of a program, also as the
program's command line (``args``) or its environment (``env``)."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from optuna.trial import TrialState

from ocean.bots import coefficients as registry
from ocean.bots.external import format_value, render_params_file
from tuning.errors import TuningError
from tuning.results.verdict import (
    GAIN, NO_GAIN, PART_NAMES, parts_text, reference_name, time_from_key, verdict_line, verdict_of,
)
from tuning.storage.handle import StudyHandle
from tuning.storage.provenance import code_digest, package_version
from tuning.study.space import REFERENCE_TRIAL

__all__ = ["FORMATS", "choose_trial", "check_gain", "provenance", "render", "git_commit"]

FORMATS = ("toml", "json", "cpp", "args", "env")
PROGRAM_ONLY = ("args", "env")


def git_commit() -> str:
    """The commit of the code that runs (the package's own checkout), with ``+dirty`` when
    tracked files differ from it (the commit alone would then not reproduce the bot), or
    "unknown"."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                                 capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    commit = out.stdout.strip()
    if out.returncode != 0 or not commit:
        return "unknown"
    return commit + ("+dirty" if changed.returncode == 0 and changed.stdout.strip() else "")


def choose_trial(handle: StudyHandle, trial: int | None) -> tuple[int, dict, dict | None]:
    """(trial number, full params, validation or None): the given trial, else the best
    validated one. Without validation there is no trustworthy best: the user must validate
    or name a trial."""
    records = handle.games.validations()
    validations = {v.trial: v for v in records}
    # a validation with the three parts gives them to its chosen trial alone: another trial of it
    # has no verdict of its own (``verdict_of``)
    has_parts = any(v.verdict for v in records)
    if trial is None:
        if not validations:
            raise TuningError(f"study {handle.name!r} has no validated trial yet: run 'tune validate "
                              f"{handle.name}' first (or export a given trial with --trial N)")
        best = records[0]
        return best.trial, dict(best.params), _validation_dict(best, has_parts)
    frozen = {t.number: t for t in handle.trials()}.get(trial)
    v = validations.get(trial)
    if frozen is None and v is not None:  # an SPSA study's point, validated (no trial of its own)
        return trial, dict(v.params), _validation_dict(v, has_parts)
    if frozen is None or frozen.state not in (TrialState.COMPLETE, TrialState.PRUNED):
        raise TuningError(f"study {handle.name!r} has no finished trial {trial}")
    return trial, handle.space.full_params(frozen.params), None if v is None else _validation_dict(v, has_parts)


def _validation_dict(v, has_parts: bool = False) -> dict:
    return {"score": v.score, "low": v.low, "high": v.high, "games": v.games, "seeds": v.seeds,
            "heldout_score": v.heldout_score, "heldout_low": v.heldout_low, "heldout_high": v.heldout_high,
            "diff": v.diff, "diff_low": v.diff_low, "diff_high": v.diff_high, "time_control": v.time_control,
            "code_digest": v.code_digest, "parts": v.verdict, "chosen": bool(v.chosen), "has_parts": has_parts}


def _not_chosen(validation: dict) -> bool:
    """A trial validated beside the chosen one of a validation with parts: no evidence of its own."""
    return not validation["parts"] and validation.get("has_parts", False) and not validation.get("chosen", False)


def code_provenance(handle: StudyHandle, validation: dict | None) -> dict:
    """The code behind an export: the digest(s) its training games and its validation were
    played under, and the digest of the code exporting (scalars: digests joined by commas)."""
    out = {"code_digest": code_digest(),
           "games_code_digests": ",".join(r["digest"] for r in handle.code) or "not recorded"}
    if validation is not None:
        out["validation_code_digest"] = validation.get("code_digest") or "not recorded"
    return out


def check_gain(handle: StudyHandle, trial: int, validation: dict | None, *, allow_no_gain: bool,
               asked: bool) -> None:
    """Refuse (one line) to export a validated trial whose paired interval against the defaults
    reaches 0 (or the defaults themselves, validated best), unless ``allow_no_gain`` (the
    provenance then says so). A trial never validated is exported as such (its provenance says
    "not validated"); the defaults asked for by number (``asked``) as what they are."""
    if validation is None or allow_no_gain or (asked and trial == REFERENCE_TRIAL) \
            or verdict_of(validation["parts"], validation["diff_low"], has_parts=validation.get("has_parts", False)) \
            == GAIN:
        return
    reference = reference_name(handle.spec.start)
    parts = validation["parts"]
    if _not_chosen(validation):
        raise TuningError(f"trial {trial} of {handle.name}: not the trial its validation chose, so no verdict of its "
                          f"own (the head to head and the not-worse parts were played by the chosen one only); "
                          f"nothing exported: export the chosen one (tune export {handle.name}), or this one anyway "
                          "with --allow-no-gain")
    if parts:
        failed = ", ".join(PART_NAMES[p] for p in parts.get("failed") or []) or "the verdict"
        line = f"{failed} failed; {parts_text(parts, reference)}"
    else:
        line = verdict_line(validation["diff"], validation["diff_low"], validation["diff_high"], reference)
    raise TuningError(f"trial {trial} of {handle.name}: {line} (validated on {validation['games']} games per "
                      "opponent); nothing exported: validate with more games, tune longer, or export anyway "
                      "with --allow-no-gain")


def provenance(handle: StudyHandle, trial: int, validation: dict | None, *, allowed_no_gain: bool = False) -> dict:
    """Where a coefficient set comes from (scalars only, as params files keep them): the study,
    the time control it was tuned at and the one it was validated at, the validated score and
    the verdict against the defaults with the paired difference (``allowed_no_gain``: exported
    with --allow-no-gain, said when the verdict is "no gain shown")."""
    frozen = {t.number: t for t in handle.trials()}.get(trial)  # None: an SPSA study's point (theta)
    spec = handle.spec
    tuned = spec.time_control
    out = {
        "study": handle.name,
        "trial": trial,
        **({"point": f"theta after {trial} head-to-head SPSA iterations" if trial >= 0
            else f"theta after {-trial} SPSA iterations"} if frozen is None else {}),
        **({"command": spec.bot.command} if spec.bot is not None else {}),
        "training_score": round(float(frozen.value), 6) if frozen is not None and frozen.value is not None
        else "none",
        "training_games_per_opponent": 2 * len(spec.training_seeds()),
        "panel": [b.name for b in handle.panel],
        "seed_bank": spec.seed_bank.describe(),
        "sampler": spec.sampler.kind + (" head-to-head" if spec.sampler.head_to_head else ""),
        "tuned_turn_ms": tuned.turn_ms, "tuned_first_turn_ms": tuned.first_turn_ms, "tuned_time_scale": tuned.scale,
        # the limits were widened by this on the tuning machine; what programs were told was not
        "tuned_machine_scale": tuned.machine,
        "package_version": package_version(),
        "git_commit": git_commit(),
        **code_provenance(handle, validation),
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if validation is not None:
        out.update({"validated_score": round(validation["score"], 6),
                    "validated_low": round(validation["low"], 6), "validated_high": round(validation["high"], 6),
                    "validated_games_per_opponent": validation["games"], "validation_seeds": validation["seeds"]})
        at = time_from_key(validation["time_control"], tuned)
        out.update({"validated_turn_ms": at.turn_ms, "validated_first_turn_ms": at.first_turn_ms,
                    "validated_time_scale": at.scale})
        reference = reference_name(spec.start)
        out["verdict"] = verdict_of(validation["parts"], validation["diff_low"],
                                    has_parts=validation.get("has_parts", False))
        if _not_chosen(validation):
            out["not_chosen"] = "validated beside the chosen trial, not chosen: no verdict of its own"
        out["reference"] = reference
        if validation["diff"] is not None:
            # a warm study's trial 0 played its start file: the difference is to that file
            key = "diff_vs_start_file" if spec.start else "diff_vs_defaults"
            out.update({key: round(validation["diff"], 6), "diff_low": round(validation["diff_low"], 6),
                        "diff_high": round(validation["diff_high"], 6)})
        out.update(_parts_provenance(validation["parts"]))
        if out["verdict"] == NO_GAIN and allowed_no_gain:
            out["exported_despite"] = f"no gain over {reference} shown (--allow-no-gain)"
        if validation.get("heldout_score") is not None:
            out.update({"held_out_panel": [b.name for b in handle.held_out or []],
                        "held_out_score": round(validation["heldout_score"], 6),
                        "held_out_low": round(validation["heldout_low"], 6),
                        "held_out_high": round(validation["heldout_high"], 6)})
    else:
        out["validated_score"] = "not validated"
    return out


def _parts_provenance(parts: dict | None) -> dict:
    """The verdict's parts as scalars (``head_to_head_diff``, ``..._low``, ``..._high``,
    ``..._games``; held out also ``held_out_defaults_score``), and the parts that failed."""
    if not parts:
        return {}
    out = {}
    for key in ("head_to_head", "training_panel", "held_out"):
        part = parts.get(key)
        if part is None or part.get("diff") is None:
            continue
        for field in ("diff", "low", "high"):
            out[f"{key}_{field}"] = round(part[field], 6)
        out[f"{key}_games"] = part["games"]
        if key == "held_out":
            out["held_out_defaults_score"] = round(part["defaults_score"], 6)
    if parts.get("failed"):
        out["verdict_failed"] = ", ".join(PART_NAMES[p] for p in parts["failed"])
    return out


def render(values: dict, prov: dict, fmt: str, bot=None) -> str:
    """The coefficient file's text in ``fmt`` (one of ``FORMATS``). ``bot``: the study's bot when
    it is a program (its parameters are its own, and ``args``/``env`` render its command), or the
    in-process bot it tunes (whose registry the file follows; default the v1 bot)."""
    if fmt not in FORMATS:
        raise TuningError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    if bot is not None and bot.is_program:
        return _program(values, prov, fmt, bot.program)
    if fmt in PROGRAM_ONLY:
        raise TuningError(f"--format {fmt} is for a study that tunes a program (a [bot] table); this study "
                          "tunes the in-process bot: use toml, json or cpp")
    policy = bot.policy if bot is not None else registry.V1
    values = registry.validate(values, policy=policy)
    if fmt == "toml":
        return registry.params_toml(values, prov, policy)
    if fmt == "json":
        coefs = {c.name: int(values[c.name]) if c.integer else values[c.name] for c in registry.registry(policy)}
        return json.dumps({"bot": policy, "coefficients": coefs, "provenance": prov}, indent=2) + "\n"
    if fmt == "cpp":
        return _cpp(values, prov, policy)
    raise TuningError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def _comments(prov: dict) -> list[str]:
    """The provenance as ``// key: value`` lines of a C++ header. A value that could end its
    comment early (a newline, a carriage return) or splice the next line into it (a backslash
    before the line's end) is written as a JSON string, escapes and quotes included."""
    lines = []
    for key, value in prov.items():
        text = str(value)
        if any(c in text for c in "\n\r\\\v\f") or not text.isprintable():
            text = json.dumps(text)
        lines.append(f"// {key}: {text}")
    return lines


def _cpp(values: dict, prov: dict, policy: str) -> str:
    lines = ["// Ocean of Code bot coefficients, exported by tune export.", f"// bot: {policy}", "//"]
    lines += _comments(prov)
    lines += ["#pragma once", "", "namespace ocean_params {", ""]
    for c in registry.registry(policy):
        lines.append(f"// {c.meaning}; {c.describe_range()}")
        if c.integer:
            lines.append(f"constexpr int {c.name} = {int(values[c.name])};")
        else:
            lines.append(f"constexpr double {c.name} = {float(values[c.name])!r};")
    lines += ["", "}  // namespace ocean_params", ""]
    return "\n".join(lines)


def _program(values: dict, prov: dict, fmt: str, program) -> str:
    if fmt == "args":
        return program.display(values) + "\n"
    if fmt == "env":
        if program.env:
            # {game_seed} and {params_file} are per game: they stay placeholders.
            return "".join(f"{name}={template.format_map(_KeepSeed(values))}\n" for name, template in program.env)
        return "".join(f"{name}={format_value(value)}\n" for name, value in values.items())
    if fmt == "toml":
        lines = [f"# {prov.get('study')}: the program's parameters, exported by tune export", "", "[provenance]"]
        lines += [f"{key} = {registry.toml_value(value)}" for key, value in prov.items()]
        lines += ["", "[parameters]", render_params_file(values, "toml").rstrip("\n")]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        return json.dumps({"parameters": values, "provenance": prov}, indent=2) + "\n"
    lines = ["// The program's parameters, exported by tune export.", "//"]
    lines += _comments(prov)
    lines += ["#pragma once", "", "namespace ocean_params {", ""]
    for name, value in values.items():
        kind = "int" if isinstance(value, int) else "double"
        lines.append(f"constexpr {kind} {name} = {format_value(value)};")
    lines += ["", "}  // namespace ocean_params", ""]
    return "\n".join(lines)


class _KeepSeed(dict):
    def __init__(self, values: dict) -> None:
        super().__init__({k: format_value(v) for k, v in values.items()})

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
