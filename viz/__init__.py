"""minigrad.viz: the Graphviz renderer (DESIGN §5). Draws replayed states, never the engine."""
