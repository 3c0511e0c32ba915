"""``python -m ocean``: the same as the ``ocean`` command."""
from ocean.cli import app

app(prog_name="ocean")
