"""In-process bots, by name."""
from ocean.bots._baselines import BOT_CHASER, BOT_RANDOM

__all__ = ["BASELINE_BOTS", "bot_kind"]

BASELINE_BOTS = {
    "random": BOT_RANDOM,  # a random legal line every turn
    "chaser": BOT_CHASER,  # moves towards the opponent's likely cells and fires at them
}


def bot_kind(name: str) -> int:
    """Kernel id of an in-process bot, with a one-line error naming the choices."""
    try:
        return BASELINE_BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose one of: {', '.join(BASELINE_BOTS)}") from None
