"""minigrad.tui: the Textual app ``minigrad-tui`` (DESIGN §5). Draws replayed states."""
