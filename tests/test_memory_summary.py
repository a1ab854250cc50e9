"""``minigrad memory`` as a student reads it: what checkpointing saved shows in the first lines, modules are named
as ``print(model)`` names them, the peak names its node, ``--json`` alone is JSON, a closed pipe ends quietly."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import minigrad as mg
from minigrad.cli import main
from minigrad.tracing.memory import Memory


def _mlp():
    nn = mg.nn
    mg.manual_seed(0)
    return nn.Sequential(nn.Sequential(nn.Linear(32, 64), nn.Tanh()),
                         nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64), nn.Tanh()),
                         nn.Linear(64, 10))


def _run(tmp_path, checkpointed: bool):
    """The same MLP and batch, with its middle block checkpointed or not; the recording's path and events."""
    model = _mlp()
    mg.manual_seed(1)
    x, y = mg.randn(64, 32), mg.randint(0, 10, (64,))
    with mg.trace(values=False) as tr:
        if checkpointed:
            h = model[0](x)
            h = mg.utils.checkpoint.checkpoint(model[1], h, use_reentrant=False)
            out = model[2](h)
        else:
            out = model(x)
        mg.nn.functional.cross_entropy(out, y).backward()
    path = tmp_path / ("ckpt.jsonl" if checkpointed else "plain.jsonl")
    tr.save(str(path))
    return model, path, tr.events


def _first_line_bytes(text: str) -> int:
    first = text.splitlines()[0]
    m = re.match(r"when backward begins \(event (\d+)\): .* saved for backward \((\d+) bytes\)", first)
    assert m, first
    return int(m.group(2))


def test_the_summary_shows_what_checkpointing_saved(tmp_path, capsys):
    _, plain, plain_events = _run(tmp_path, False)
    _, ckpt, ckpt_events = _run(tmp_path, True)
    assert main(["memory", str(plain)]) == 0
    plain_text = capsys.readouterr().out
    assert main(["memory", str(ckpt)]) == 0
    ckpt_text = capsys.readouterr().out
    saved = {}
    for name, events, text in (("plain", plain_events, plain_text), ("ckpt", ckpt_events, ckpt_text)):
        begin = [e.kind for e in events].index("backward.begin")
        saved[name] = _first_line_bytes(text)
        assert saved[name] == Memory(events).at(begin).saved > 0
        assert text.splitlines()[1].startswith("peak during backward: ")
    assert saved["ckpt"] < saved["plain"]  # the checkpointed block's activations are not kept
    # The whole run's saved bytes rise with checkpointing (the recomputation saves again): not the first line.
    assert Memory(ckpt_events).saved_bytes_total > Memory(plain_events).saved_bytes_total


def test_the_peak_line_names_the_node_running(tmp_path, capsys):
    _, path, events = _run(tmp_path, False)
    assert main(["memory", str(path)]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    m = re.search(r"at event (\d+) while (\S+) runs", line)
    assert m, line
    index, name = int(m.group(1)), m.group(2)
    names = {e.node: e.name for e in events if e.kind == "node.create"}
    begun = [e.node for e in events[:index + 1] if e.kind == "node.begin"]
    assert name == names[begun[-1]] and re.fullmatch(r"\w+#\d+", name)
    assert "node#" not in line


def test_module_names_are_those_of_print_model_and_unique(tmp_path):
    model, _, events = _run(tmp_path, True)
    by_module = Memory(events).by_module()
    spelled = {name for name, _ in model.named_modules()}
    assert set(by_module) - {"(no module)"} <= spelled
    assert by_module["0.1"]["type"] == "Tanh" and by_module["1.1"]["type"] == "GELU"
    assert by_module["1.0"]["type"] == "Linear" and by_module["0.0"]["type"] == "Linear"
    assert len({g["path"] for g in by_module.values()}) == len(by_module)


class _Net(mg.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = mg.nn.Linear(8, 16)
        self.blocks = mg.nn.ModuleList([mg.nn.Sequential(mg.nn.Linear(16, 16), mg.nn.GELU()) for _ in range(3)])
        self.head = mg.nn.Linear(16, 2)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def test_what_if_takes_the_print_model_spelling(tmp_path, capsys):
    mg.manual_seed(0)
    net = _Net()
    with mg.trace(values=False) as tr:
        net(mg.randn(4, 8)).sum().backward()
    mem = Memory(tr.events)
    # print(net) folds the three like blocks as PyTorch does, "(0-2): 3 x Sequential(", and names each as blocks.i
    assert "blocks.1.1" in mem.by_module() and "(blocks): ModuleList(" in str(net)
    assert mem.what_if_checkpoint("blocks.1") == {**mem.what_if_checkpoint("_Net.blocks.1"), "module": "blocks.1"}
    assert mem.what_if_checkpoint("blocks.1")["saved_bytes_freed"] > 0
    with pytest.raises(ValueError, match=r"no module named 'block.1'.*did you mean .*blocks\.1"):
        mem.what_if_checkpoint("block.1")
    path = tmp_path / "net.jsonl"
    tr.save(str(path))
    assert main(["memory", str(path), "--what-if", "blocks.1"]) == 0
    assert "if blocks.1 were checkpointed" in capsys.readouterr().out
    assert main(["memory", str(path), "--what-if", "blocks.9"]) == 1
    err = capsys.readouterr().err
    assert "no module named 'blocks.9'" in err and "blocks.1" in err and "Broken" not in err


def test_json_alone_writes_json_to_standard_output(tmp_path, capsys):
    _, path, events = _run(tmp_path, False)
    assert main(["memory", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    mem = Memory(events)
    assert data["backward_begin"]["saved"] == mem.backward_begin()["saved"] and data["peak_bytes"] == mem.peak_bytes


@pytest.mark.parametrize("command", [["memory"], ["log"], ["memory", "--json"]])
def test_a_closed_pipe_ends_quietly(tmp_path, command):
    _, path, _ = _run(tmp_path, True)
    proc = subprocess.Popen([sys.executable, "-m", "minigrad.cli", command[0], str(path), *command[1:]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader went away before a line was written, as `| head -0` does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 1 and err == ""
