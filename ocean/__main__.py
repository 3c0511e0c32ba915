"""``python -m ocean``: the same as the ``ocean`` command."""
from ocean._entry import main

main()
