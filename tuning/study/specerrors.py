"""A study file's validation errors as one line each: the key as the user wrote it, and what is allowed there."""
from __future__ import annotations

import difflib
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = ["first_error"]


def first_error(exc: ValidationError, root: type[BaseModel]) -> str:
    """One line for the first validation error of ``root`` (a study file's model): the key, and what is allowed there."""
    errors = exc.errors(include_url=False)
    err = errors[0]
    if err["type"] == "missing":
        # A mistyped key is both a missing key and an unknown one: name the one the user wrote.
        err = next((e for e in errors if e["type"] == "extra_forbidden"), err)
    loc = _loc(err["loc"])
    kind, msg = err["type"], err["msg"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(root, err["loc"][:-1])
        close = difflib.get_close_matches(str(err["loc"][-1]), allowed, n=1, cutoff=0.6)
        if close:
            table = _loc(err["loc"][:-1])
            return f"unknown key '{loc}'; did you mean '{table + '.' if table else ''}{close[0]}'?"
        return f"unknown key '{loc}'" + (f"; allowed here: {', '.join(allowed)}" if allowed else "")
    if kind == "missing":
        return f"missing key '{loc}'"
    if kind in ("value_error", "assertion_error"):
        msg = msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        return f"{loc}: {msg}" if loc else msg
    shown = repr(err.get("input"))
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"{loc}: {msg[0].lower()}{msg[1:]} (got {shown})"


# pydantic names the branch of a union in an error's location; users never wrote those.
_UNION_TAGS = {"SearchRange", "int", "float", "str", "list[str]", "none"}


def _loc(parts: tuple) -> str:
    out = ""
    for part in parts:
        if part in _UNION_TAGS:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _allowed_keys(root: type[BaseModel], parts: tuple) -> list[str]:
    """Field names of the table at ``parts`` (for 'unknown key' messages)."""
    annotation: Any = root
    skip_key = False  # the part after a dict field is a user's key (a coefficient name)
    for part in parts:
        if part in _UNION_TAGS:
            continue
        if skip_key:
            skip_key = False
            continue
        model = _model_in(annotation)
        field = model.model_fields.get(str(part)) if model is not None else None
        if field is None:
            return []
        annotation = field.annotation
        skip_key = typing.get_origin(annotation) is dict
    model = _model_in(annotation)
    return [] if model is None or skip_key else list(model.model_fields)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel inside an annotation (``X``, ``X | None``, ``dict[str, X | float]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None
