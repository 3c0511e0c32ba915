"""``python -m tuning`` runs the ``tune`` command line."""
from tuning.cli import app

app(prog_name="tune")
