"""The web stepper in headless Chromium: keys, buttons, slider, #event=N, passes, quiz, and no network.

At every event probed, the queue and in-degree panes must show exactly ``mg.trace.replay``'s state
(the DOM contract of docs/web.md gives the test its handles).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import minigrad as mg
from minigrad.tracing.replay import Replay
from minigrad.viz import stepper
from minigrad.viz.graph import display_status
from stepper_pages import SHOWN, agree_with_replay, event_shown, statuses

DEMO = Path(__file__).parent.parent / "tui" / "fixtures" / "demo.jsonl"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The TUI's demo recording (a loss.backward() pass, then a grad() pass) as a page on disk."""
    events = mg.trace.load(DEMO).events
    path = tmp_path_factory.mktemp("web") / "demo.html"
    stepper(events, title="demo").save(path)
    return Replay(events), path


def open_page(page, path: Path, hash_: str = "") -> None:
    """Open a stepper page and wait until its panes are drawn - at the hash's event, when it names one: the same
    page with another hash is not loaded again (its ``hashchange`` handler redraws it), so the panes of the
    previous event are on screen until then (a loaded CI machine read them once)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    same_page = page.url.split("#")[0] == path.as_uri() and hash_
    if same_page:
        # the same page: set the hash in the page itself, which fires its ``hashchange`` handler (a ``goto`` to
        # the same document with another hash once left the handler unrun on a loaded machine)
        page.evaluate("h => { location.hash = h; }", hash_)
    else:
        page.goto(path.as_uri() + hash_)
    page.wait_for_selector("#queue .body > *")
    if hash_.startswith("#event="):
        at_event = "n => document.querySelector('#minigrad-stepper').dataset.event === n"
        try:
            page.wait_for_function(at_event, arg=hash_[len("#event="):], timeout=10_000)
        except PlaywrightTimeoutError:
            if not same_page:
                raise
            # the handler still left unrun once on a loaded CI machine: load the page afresh at that hash, which
            # draws it from the hash as a first visit does (what is checked after is unchanged)
            page.goto("about:blank")
            page.goto(path.as_uri() + hash_)
            page.wait_for_selector("#queue .body > *")
            page.wait_for_function(at_event, arg=hash_[len("#event="):])


def test_keys_step_and_panes_agree_with_replay(page, demo):
    rp, path = demo
    open_page(page, path)
    begin, end, _ = rp.backward_passes()[0]
    assert event_shown(page) == begin
    seen = [agree_with_replay(page, rp, 0)]
    for key, times in (("ArrowRight", 3), ("n", 4), ("ArrowLeft", 2), ("n", 3), ("b", 1), ("l", 2), ("h", 1)):
        for _ in range(times):
            page.keyboard.press(key)
        seen.append(agree_with_replay(page, rp, 0))
    page.keyboard.press("End")
    assert event_shown(page) == end
    seen.append(agree_with_replay(page, rp, 0))
    page.keyboard.press("ArrowLeft")
    seen.append(agree_with_replay(page, rp, 0))
    page.keyboard.press("Home")
    assert event_shown(page) == begin
    assert len(set(seen)) >= 8, seen
    # The graph pane colours every node with the status the replay gives it.
    page.keyboard.press("n")
    page.keyboard.press("n")
    i = event_shown(page)
    st = rp[i]
    bw = st.passes[0]
    assert statuses(page) == {n: display_status(st, n, bw) for n in statuses(page)}
    assert "running" in statuses(page).values()


def test_node_runs_match_the_log(page, demo):
    rp, path = demo
    open_page(page, path)
    runs = [i for i in rp.indices_of("node.begin") if i <= rp.backward_passes()[0][1]]
    for want in runs[:5]:
        page.keyboard.press("n")
        assert event_shown(page) == want
        assert page.text_content("#log .ev.cur").strip().startswith(str(want))
        assert "why:" in page.text_content("#why")
    # The node's formula events sit indented under its node.begin; node.run closes the node.
    begin = runs[1]
    end = next(i for i in range(begin, len(rp.events)) if rp.events[i].kind == "node.run")
    open_page(page, path, f"#event={begin + 3}")
    inside = page.eval_on_selector_all("#log .ev", "els => els.map(e => [+e.dataset.event, e.classList.contains('in')])")
    assert inside and all(flag == (begin < i < end) for i, flag in inside)
    assert any(flag for _, flag in inside)
    x_node = page.eval_on_selector(f'#log .ev[data-event="{begin}"] .kind', "e => e.getBoundingClientRect().left")
    x_call = page.eval_on_selector(f'#log .ev[data-event="{begin + 2}"] .kind', "e => e.getBoundingClientRect().left")
    assert x_call > x_node + 5, "a formula event is drawn indented"


def test_hash_opens_event_n(page, demo):
    rp, path = demo
    target = rp.indices_of("in_degree.update")[3]
    open_page(page, path, f"#event={target}")
    assert event_shown(page) == target
    agree_with_replay(page, rp, 0)
    assert page.get_attribute("#in-degree tr.changed", "data-node") == str(rp[target].event.node)
    # An event of the second pass opens that pass.
    second = rp.backward_passes()[1][0] + 5
    page.evaluate(f"location.hash = '#event={second}'")
    page.wait_for_function(f"document.querySelector('{SHOWN}').dataset.event === '{second}'")
    assert page.get_attribute(SHOWN, "data-pass") == "1"
    agree_with_replay(page, rp, 1)
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"location.hash === '#event={second + 1}'")


def test_buttons_slider_and_pass_chooser(page, demo):
    rp, path = demo
    open_page(page, path)
    begin0, end0, _ = rp.backward_passes()[0]
    page.click("#next")
    page.click("#next")
    assert event_shown(page) == begin0 + 2
    page.click("#next-run")
    assert rp.events[event_shown(page)].kind == "node.begin"
    agree_with_replay(page, rp, 0)
    page.click("#last")
    assert event_shown(page) == end0
    page.click("#first")
    assert event_shown(page) == begin0
    page.fill("#slider", "40")
    assert event_shown(page) == begin0 + 40
    agree_with_replay(page, rp, 0)
    page.select_option("#pass", "1")
    begin1, end1, mode1 = rp.backward_passes()[1]
    assert mode1 == "grad" and event_shown(page) == begin1
    page.keyboard.press("End")
    assert agree_with_replay(page, rp, 1) == end1
    page.keyboard.press("3")
    assert "startup" in page.text_content("#general")
    assert "w1 = " in page.text_content("#general")  # at the end of the pass: grad()'s result
    page.keyboard.press("Home")
    assert "w1 = " not in page.text_content("#general")  # before GeneralGrad decided anything
    page.keyboard.press("2")
    assert page.is_visible("#forward") and page.locator("#forward .call").count() > 0
    page.keyboard.press("1")
    assert page.is_visible("#graph")


def test_play_moves_forward_and_space_pauses(page, demo):
    _, path = demo
    open_page(page, path)
    start = event_shown(page)
    for _ in range(4):
        page.keyboard.press("+")
    page.keyboard.press(" ")
    page.wait_for_function(f"+document.querySelector('{SHOWN}').dataset.event >= {start + 5}")
    page.keyboard.press(" ")
    stopped = event_shown(page)
    page.wait_for_timeout(300)
    assert event_shown(page) == stopped


def test_clicking_a_node_pins_it_in_the_detail_panes(page, demo):
    rp, path = demo
    open_page(page, path)
    leaf = next(n for n, info in rp.final.nodes.items() if info.is_accumulation and n in statuses(page))
    page.click(f'#graph g[data-node="{leaf}"]')
    assert rp.final.nodes[leaf].name in page.text_content("#node")
    assert "AccumulateGrad of" in page.text_content("#node")
    page.keyboard.press("Escape")
    assert "pinned" not in page.text_content("#node h2")


def test_quiz_asks_before_a_node_runs(page, demo):
    rp, path = demo
    open_page(page, path)
    page.keyboard.press("t")
    page.keyboard.press("n")
    assert page.is_visible("#quiz")
    first_run = rp.indices_of("node.begin")[0]
    node = rp.events[first_run].node
    page.fill("#quiz-node", rp.final.nodes[node].name)
    page.keyboard.press("Enter")
    assert "✔ right" in page.text_content("#quiz-feedback")
    assert "why:" in page.text_content("#quiz-feedback")
    if page.is_visible("#quiz-degrees"):
        page.fill("#quiz-degrees", "99")
        page.keyboard.press("Enter")
        assert "✘ in-degrees" in page.text_content("#quiz-feedback")
    page.keyboard.press("Enter")
    assert not page.is_visible("#quiz")
    assert event_shown(page) >= first_run
    assert "quiz node 1/1" in page.text_content("#counter")


def test_opens_from_disk_with_no_network(page, demo):
    _, path = demo
    asked: list[str] = []
    page.route("**/*", lambda route: (asked.append(route.request.url), route.continue_()))
    open_page(page, path)
    page.keyboard.press("n")
    assert asked == [path.as_uri()]


def test_a_recording_with_modules_shows_provenance(page, tmp_path):
    with mg.trace() as tr:
        model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1))
        model(mg.randn(2, 3)).sum().backward()
    path = stepper(tr).save(tmp_path / "mlp.html")
    rp = Replay(tr.events)
    open_page(page, path)
    for _ in range(6):
        page.keyboard.press("n")
        agree_with_replay(page, rp, 0)
    assert "made at test_web_stepper_browser.py:" in page.text_content("#node")
    assert "in module Sequential" in page.text_content("#node")


def test_space_after_a_click_plays_once(page, demo):
    _, path = demo
    open_page(page, path)
    page.click("#next")
    at = event_shown(page)
    page.keyboard.press(" ")
    assert "pause" in page.text_content("#play")
    page.keyboard.press(" ")
    assert "play" in page.text_content("#play")
    assert event_shown(page) <= at + 1  # the button was not pressed again by the space key


def test_a_pass_too_large_to_draw_is_listed_and_says_so(page, tmp_path):
    events = mg.trace.load(DEMO).events
    rp = Replay(events)
    path = stepper(events, max_graph_nodes=5).save(tmp_path / "listed.html")
    open_page(page, path)
    assert "shows the nodes as a list" in page.text_content("#notes")
    assert page.locator("#graph svg").count() == 0
    for _ in range(4):
        page.keyboard.press("n")
        i = agree_with_replay(page, rp, 0)
        st = rp[i]
        assert statuses(page) == {n: display_status(st, n, st.passes[0]) for n in statuses(page)}


def test_a_page_without_a_pass_says_why(page, tmp_path):
    with mg.trace() as tr:
        _ = mg.ones(2) + 1
    open_path = stepper(tr).save(tmp_path / "none.html")
    page.goto(open_path.as_uri())
    page.wait_for_selector("#graph .note")
    assert "no backward pass" in page.text_content("#notes")
    assert event_shown(page) == -1


def test_jump_to_a_node_goes_to_its_run_and_pins_it(page, demo):
    rp, path = demo
    open_page(page, path)
    runs = {rp.events[i].node: i for i in rp.indices_of("node.begin") if i <= rp.backward_passes()[0][1]}
    node, at = next((n, i) for n, i in runs.items() if rp.final.nodes[n].name.startswith("Mm"))
    page.keyboard.press("j")
    page.keyboard.type(f"#{node}")
    page.keyboard.press("Enter")
    assert event_shown(page) == at
    assert "pinned" in page.text_content("#node h2") and rp.final.nodes[node].name in page.text_content("#node h2")
    assert f"runs at event {at}" in page.text_content("#notes")
    agree_with_replay(page, rp, 0)
    page.keyboard.press("ArrowRight")  # keys work again once the box has done its job
    assert event_shown(page) == at + 1


def test_node_detail_shows_a_leafs_grad_over_passes(page, tmp_path):
    """Pass 1 of two backward() calls: the AccumulationNode's detail says pass 0 assigned, pass 1 added."""
    w = mg.tensor([1.0, 2.0], requires_grad=True, name="w")
    with mg.trace() as tr:
        (w * w).sum().backward()
        (w * w).sum().backward()
    rp = Replay(tr.events)
    path = stepper(tr, title="acc").save(tmp_path / "acc.html")
    begin1 = rp.backward_passes()[1][0]
    acc_begin = next(i for i in range(begin1, len(rp)) if rp.events[i].kind == "node.begin"
                     and rp.final.nodes[rp.events[i].node].is_accumulation)
    open_page(page, path, f"#event={acc_begin}")
    assert page.text_content("#node .grads") == "w.grad by pass 0: [2, 4] assigned"
    acc_run = next(i for i in range(acc_begin, len(rp)) if rp.events[i].kind == "node.run")
    open_page(page, path, f"#event={acc_run}")
    assert page.text_content("#node .grads") == "w.grad by pass 0: [2, 4] assigned · 1: [4, 8] added"
    why = next(i for i in range(acc_begin, acc_run) if rp.events[i].kind == "grad.accumulate")
    open_page(page, path, f"#event={why}")
    assert "added to the .grad of pass 0" in page.text_content("#why")


def test_buffers_pane_sends_nothing_out_before_the_node_finished(page, demo):
    """At node.begin the buffer is taken and nothing went out yet; at node.run the gradients out are shown."""
    rp, path = demo
    begin = next(i for i in rp.indices_of("node.begin") if not rp.final.nodes[rp.events[i].node].is_accumulation
                 and rp.events[i].node in rp.final.nodes and rp.final.nodes[rp.events[i].node].edges)
    end = next(i for i in range(begin, len(rp)) if rp.events[i].kind == "node.run")
    open_page(page, path, f"#event={begin}")
    text = page.text_content("#buffers .body")
    assert "buffer taken: the node runs on grads in:" in text and "grads out" not in text
    open_page(page, path, f"#event={end}")
    text = page.text_content("#buffers .body")
    assert "buffer consumed by the run" in text and "grads out:" in text
