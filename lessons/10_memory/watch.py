"""Record a training step with the middle block checkpointed, for the TUI's Memory tab (key 4).

    python watch.py && minigrad-tui memory.jsonl
"""

import minigrad as mg
from memory_lesson import checkpoint_middle

mg.manual_seed(0)
model = mg.nn.Sequential(mg.nn.Sequential(mg.nn.Linear(32, 64), mg.nn.Tanh()),
                         mg.nn.Sequential(mg.nn.Linear(64, 64), mg.nn.Tanh(), mg.nn.Dropout(0.1), mg.nn.Linear(64, 64)),
                         mg.nn.Linear(64, 10))
x, y = mg.randn(16, 32), mg.randint(0, 10, (16,))
with mg.trace(values=False) as tr:
    mg.nn.functional.cross_entropy(checkpoint_middle(model, x), y).backward()
tr.save("memory.jsonl")
print("saved memory.jsonl; minigrad memory memory.jsonl --top 5 prints what backward kept")
