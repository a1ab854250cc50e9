"""minigrad.tui: the Textual app ``minigrad-tui`` (docs/architecture.md, The viewers). Draws replayed states."""
