"""The web table in a real headless browser: Chromium and its driver from Debian's
packages (scripts/setup.sh --test installs them), driven through Selenium, against the
real server (uvicorn) on loopback. The screenshots in docs/images/ come from here, written
only when asked: SHUANGKOU_SCREENSHOTS=docs/images pytest tests/python/test_play_browser.py
(otherwise they go to a temporary folder, so a test run changes no tracked file)."""

import asyncio
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import shuangkou as sk
from shuangkou.play.server import Room, make_app, make_replay_app
from shuangkou.play.table import Table
from shuangkou.util.records import read_replays

CHROMEDRIVER = "/usr/bin/chromedriver"
DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
SHOTS = Path(os.environ.get("SHUANGKOU_SCREENSHOTS") or tempfile.mkdtemp(prefix="shuangkou-shots-")).resolve()
pytestmark = pytest.mark.skipif(
    not (Path(CHROMEDRIVER).exists() and (shutil.which("chromium") or shutil.which("chromium-browser"))),
    reason="needs chromium and chromium-driver (Debian packages; scripts/setup.sh --test installs them)",
)


class Server:
    """uvicorn serving one table (or another app: the replay viewer) on 127.0.0.1 in a thread."""

    def __init__(self, table=None, app=None):
        import uvicorn

        if app is None:
            room = Room()
            room.add("t1", table)
            app = make_app(room)
        self.table = table
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]

    def link(self, seat, lang="zh"):
        return f"http://127.0.0.1:{self.port}/?table=t1&seat={seat}&token={self.table.state[seat].token}&lang={lang}"

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,860"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def wait(driver, cond, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = cond(driver)
        if value:
            return value
        time.sleep(0.05)
    driver.save_screenshot("/tmp/play_timeout.png")
    try:
        shows = f"status: {text(driver, 'status')!r}, message: {text(driver, 'message')!r}"
    except Exception:  # noqa: BLE001 - (a page other than the table's)
        shows = f"page: {driver.current_url}"
    raise AssertionError(f"timed out; {shows}")


def text(driver, element_id):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).text


def hand(driver):
    """The hand's cards as shown, in order (read in one script: the page re-renders)."""
    return driver.execute_script("return [...document.querySelectorAll('#hand .card')].map(c => c.dataset.card)")


def selected(driver):
    return sorted(
        driver.execute_script("return [...document.querySelectorAll('#hand .card.selected')].map(c => c.dataset.card)")
    )


def button(driver, element_id):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


def click_card(driver, card):
    """Clicks a card where it shows in the fan: its left edge (the next card covers the rest)."""
    from selenium.webdriver.common.action_chains import ActionChains

    width = card.size["width"]
    ActionChains(driver).move_to_element_with_offset(card, -width // 2 + 4, 0).click().perform()


def my_turn(driver):
    return button(driver, "btn-hint").is_enabled()


def take_turn(driver, table):
    """Presses 提示 then 出牌 (不出 where nothing beats); answers a reading choice."""
    from selenium.webdriver.common.by import By

    moves, shown = len(table.game.history()), selected(driver)
    button(driver, "btn-hint").click()
    try:  # the hint's answer replaces the selection (the same one again only by chance)
        wait(driver, lambda d: selected(d) != shown, 3)
    except AssertionError:
        pass
    if selected(driver):
        button(driver, "btn-play").click()
    else:
        button(driver, "btn-pass").click()
    choose = driver.find_elements(By.ID, "choose-0")
    if choose and choose[0].is_displayed():
        choose[0].click()
    wait(driver, lambda d: len(table.game.history()) > moves or table.game.is_over(), 10)


def test_a_whole_deal_by_clicking_with_hints_sort_auto_and_a_refused_play(browser):
    table = Table(sk.Rules("baibian"), ["human", "greedy", "greedy", "greedy"], seed=7, turn_seconds=None)
    server = Server(table)
    try:
        browser.get(server.link(0))
        wait(browser, lambda d: len(hand(d)) == 27 or my_turn(d))
        wait(browser, my_turn)
        assert button(browser, "btn-play").text == "出牌"

        # 排序: the hand switches between rank order and pattern groups, same cards.
        by_rank = hand(browser)
        button(browser, "btn-sort").click()
        grouped = wait(browser, lambda d: hand(d) != by_rank and hand(d))
        assert sorted(grouped) == sorted(by_rank)
        button(browser, "btn-sort").click()
        wait(browser, lambda d: hand(d) == by_rank)

        # 提示 cycles through the legal plays.
        button(browser, "btn-hint").click()
        first = wait(browser, selected)
        button(browser, "btn-hint").click()
        second = wait(browser, lambda d: selected(d) != first and selected(d))
        assert first != second

        # An illegal selection: refused with a message, nothing changes.
        from selenium.webdriver.common.by import By

        cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
        for c in cards:
            if "selected" in (c.get_attribute("class") or ""):
                click_card(browser, c)
        assert not selected(browser)
        low, high = cards[-1], cards[0]  # the lowest and the highest card: never one play together
        click_card(browser, low)
        click_card(browser, high)
        assert len(selected(browser)) == 2
        record = table.game.to_json()
        button(browser, "btn-play").click()
        wait(browser, lambda d: text(d, "message"))
        assert table.game.to_json() == record and len(hand(browser)) == 27
        browser.save_screenshot(str(SHOTS / "play_table.png"))
        for c in browser.find_elements(By.CSS_SELECTOR, "#hand .card.selected"):
            click_card(browser, c)

        # The rest of the deal by clicking.
        for _ in range(200):
            if button(browser, "settlement").is_displayed():
                break
            if my_turn(browser) and not table.state[0].auto:
                take_turn(browser, table)
            else:
                time.sleep(0.1)
        wait(browser, lambda d: button(d, "settlement").is_displayed(), 15)
        assert table.game.is_over()
        panel = text(browser, "settlement")
        assert any(word in panel for word in ("双扣", "单扣", "平扣"))
        try:
            wait(browser, lambda d: not text(d, "message"), 8)  # (a message shown last fades first)
        except AssertionError:
            pass
        browser.save_screenshot(str(SHOTS / "play_settlement.png"))
    finally:
        server.stop()


def test_auto_play_greys_the_buttons_and_gives_the_seat_back(browser):
    # Seat 1 is a person who never acts: the deal waits there while seat 0 is under 托管.
    table = Table(sk.Rules("baibian"), ["human", "human", "greedy", "greedy"], seed=5, turn_seconds=None)
    server = Server(table)
    try:
        browser.get(server.link(0))
        wait(browser, lambda d: len(hand(d)) > 0)
        button(browser, "btn-auto").click()
        wait(browser, lambda d: table.state[0].auto and table.game.current_player() == 1)
        wait(browser, lambda d: not button(d, "btn-play").is_enabled() and not button(d, "btn-hint").is_enabled())
        assert button(browser, "btn-auto").is_enabled() and button(browser, "btn-sort").is_enabled() is False
        time.sleep(0.3)
        browser.save_screenshot(str(SHOTS / "play_auto.png"))
        button(browser, "btn-auto").click()
        wait(browser, lambda d: not table.state[0].auto)
        wait(browser, lambda d: button(d, "btn-sort").is_enabled())
    finally:
        server.stop()


def test_english_labels(browser):
    table = Table(sk.Rules("classic"), ["human", "greedy", "greedy", "greedy"], seed=3, turn_seconds=None)
    server = Server(table)
    try:
        browser.get(server.link(0, lang="en"))
        wait(browser, lambda d: len(hand(d)) == 27)
        assert button(browser, "btn-play").text == "Play" and button(browser, "btn-hint").text == "Hint"
        button(browser, "btn-lang").click()
        wait(browser, lambda d: button(d, "btn-play").text == "出牌")
    finally:
        server.stop()


def jokers(driver, where="#hand .card"):
    """(token, the face's label, the tooltip) of each joker shown at `where`."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].filter(c => c.classList.contains('joker'))"
        ".map(c => [c.dataset.card || c.dataset.token, c.querySelector('.rank').textContent, c.title,"
        " c.classList.contains('big-joker') ? 'big' : c.classList.contains('small-joker') ? 'small' : '?'])",
        where,
    )


def test_the_jokers_read_sj_and_bj_as_every_text_output_writes_them(browser):
    # qianbian, seed 3933: seat 0 holds SJ SJ BJ and leads; the three jokers are a bomb (三王炸).
    table = Table(sk.Rules("qianbian"), ["human", "greedy", "greedy", "greedy"], seed=3933, turn_seconds=None)
    assert sorted(t for t in table.game.hand(0).split() if t in ("SJ", "BJ")) == ["BJ", "SJ", "SJ"]
    server = Server(table)
    try:
        # In Chinese the faces are 小王 and 大王 (small in black, big in red); the tooltips name SJ and BJ.
        browser.get(server.link(0))
        wait(browser, lambda d: my_turn(d) and len(hand(d)) == 27)
        assert sorted(jokers(browser)) == [
            ["BJ", "大王", "大王（BJ）", "big"],
            ["SJ", "小王", "小王（SJ）", "small"],
            ["SJ", "小王", "小王（SJ）", "small"],
        ]
        # In English the faces say SJ and BJ, as the CLI, the replays and the renderer write them.
        button(browser, "btn-lang").click()
        wait(browser, lambda d: button(d, "btn-play").text == "Play")
        faces = sorted(jokers(browser))
        assert faces == [
            ["BJ", "BJ", "Big joker (BJ)", "big"],
            ["SJ", "SJ", "Small joker (SJ)", "small"],
            ["SJ", "SJ", "Small joker (SJ)", "small"],
        ], faces
        assert "JOKER" not in browser.execute_script("return document.body.textContent")
        # Played: the history writes them as the CLI does.
        select_cards(browser, ["SJ", "SJ", "BJ"])
        button(browser, "btn-play").click()
        wait(browser, lambda d: len(hand(d)) == 24)
        assert table.game.history()[0][1].kind == "three_kings"
        first = wait(browser, history_items)[0]
        assert "SJ SJ BJ" in first, first
        button(browser, "btn-lang").click()
        wait(browser, lambda d: "小王 小王 大王" in (history_items(d) or [""])[0])
    finally:
        server.stop()


# ---------------------------------------------------------------- helpers of the tests below

CJK = re.compile(r"[\u4e00-\u9fff]")


def shown(driver, element_id):
    return button(driver, element_id).is_displayed()


def history_items(driver):
    return driver.execute_script("return [...document.querySelectorAll('#history li')].map(li => li.textContent)")


def select_cards(driver, tokens):
    """Selects exactly `tokens` in the hand by clicking the cards (as many of each as listed)."""
    from selenium.webdriver.common.by import By

    for c in driver.find_elements(By.CSS_SELECTOR, "#hand .card.selected"):
        click_card(driver, c)
    for tok, n in Counter(tokens).items():
        for c in driver.find_elements(By.CSS_SELECTOR, f'#hand .card[data-card="{tok}"]')[:n]:
            click_card(driver, c)
    assert selected(driver) == sorted(tokens)


def illegal_pairs(game, count):
    """`count` two-card selections from the hand of the seat to act that are no legal play."""
    legal = {p.cards for p in game.legal_moves()}
    hand_ = game.hand(game.current_player()).split()
    out = []
    for a in sorted(set(hand_)):
        for b in sorted(set(hand_)):
            if a < b and sk.parse_cards(f"{a} {b}") not in legal and len(out) < count:
                out.append([a, b])
    return out


# ---------------------------------------------------------------- 千变 readings, leaving, errors


def test_a_selection_with_two_readings_asks_which_and_plays_the_one_chosen(browser):
    from selenium.webdriver.common.by import By

    # qianbian, seed 3933: seat 0 leads holding 9 9 9 T T T J J J SJ SJ BJ; with the jokers
    # wild that is a chain bomb (9999 TTTT JJJJ) or a triple chain (999 TTT JJJ QQQ).
    table = Table(sk.Rules("qianbian"), ["human", "greedy", "greedy", "greedy"], seed=3933, turn_seconds=None)
    cards = "9 9 9 T T T J J J SJ SJ BJ"
    readings = sorted({(p.kind, p.reading) for p in table.game.legal_moves() if p.cards == cards})
    assert table.game.current_player() == 0 and [k for k, _ in readings] == ["chain_bomb", "triple_chain"]
    server = Server(table)
    try:
        browser.get(server.link(0))
        wait(browser, lambda d: my_turn(d) and len(hand(d)) == 27)
        assert not shown(browser, "btn-advise")  # (no advisor at this table)
        select_cards(browser, cards.split())
        button(browser, "btn-play").click()
        wait(browser, lambda d: shown(d, "choose-dialog"))
        options = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#choose-list button")]
        assert len(options) == 2 and options[0].startswith("连炸") and options[1].startswith("连三张"), options
        assert options[1].endswith("9 9 9 10 10 10 J J J Q Q Q")  # (T shows as 10, as on the cards)
        assert not table.game.history()  # nothing is played before the choice
        button(browser, "choose-1").click()
        wait(browser, lambda d: len(hand(d)) == 27 - 12)
        seat, play = table.game.history()[0]
        assert seat == 0 and (play.kind, play.reading) == readings[1]
        assert not shown(browser, "choose-dialog")
        first = wait(browser, history_items)[0]
        assert "连三张" in first and "9 9 9 10 10 10 J J J" in first
    finally:
        server.stop()


def test_a_seat_that_goes_away_is_played_for_and_taken_back_with_its_link(browser):
    # Seat 0 leads (seed 0); seat 1 is a person who never acts, so the deal waits there.
    table = Table(sk.Rules("baibian"), ["human", "human", "greedy", "greedy"], seed=0, turn_seconds=None)
    assert table.game.current_player() == 0
    server = Server(table)
    try:
        browser.get(server.link(0))
        wait(browser, lambda d: my_turn(d) and len(hand(d)) == 27)

        # The tab goes away (the socket closes): 托管, and the helper leads for seat 0.
        browser.get("about:blank")
        wait(browser, lambda d: table.state[0].away and table.state[0].auto)
        wait(browser, lambda d: table.game.current_player() == 1)
        moves, left = len(table.game.history()), len(table.game.hand(0).split())
        assert moves == 1 and left < 27

        # The same link again: the seat is the person's, and the page shows the deal as it is now.
        browser.get(server.link(0))
        wait(browser, lambda d: not table.state[0].auto and not table.state[0].away)
        wait(browser, lambda d: len(hand(d)) == left and len(history_items(d)) == moves)
        assert button(browser, "btn-auto").text == "托管" and "玩家 2" in text(browser, "status")
        assert not shown(browser, "banner")

        # 离开 → 确定: the seat goes under 托管 as away; 回到游戏 takes it back.
        button(browser, "btn-leave").click()
        wait(browser, lambda d: shown(d, "leave-dialog"))
        button(browser, "leave-ok").click()
        wait(browser, lambda d: table.state[0].away and table.state[0].auto and shown(d, "btn-rejoin"))
        button(browser, "btn-rejoin").click()
        wait(browser, lambda d: not table.state[0].auto and not shown(d, "banner"))
        assert len(hand(browser)) == left
    finally:
        server.stop()


def test_a_refusal_is_told_in_chinese_and_after_the_switch_in_english(browser):
    table = Table(sk.Rules("baibian"), ["human", "greedy", "greedy", "greedy"], seed=0, turn_seconds=None)
    first, second = illegal_pairs(table.game, 2)
    server = Server(table)
    try:
        browser.get(server.link(0))
        wait(browser, lambda d: my_turn(d) and len(hand(d)) == 27)
        select_cards(browser, first)
        button(browser, "btn-play").click()
        zh = wait(browser, lambda d: text(d, "message"))
        assert CJK.search(zh) and "play:" not in zh, zh
        button(browser, "btn-lang").click()  # the message on screen switches too
        en = wait(browser, lambda d: text(d, "message") != zh and text(d, "message"))
        assert en.startswith("play: ") and not CJK.search(en), en
        assert button(browser, "btn-play").text == "Play"
        select_cards(browser, second)  # a new refusal, in English
        button(browser, "btn-play").click()
        again = wait(browser, lambda d: text(d, "message") not in (en, "") and text(d, "message"))
        assert again.startswith("play: ") and not CJK.search(again), again
        assert not table.game.history()
    finally:
        server.stop()


# ---------------------------------------------------------------- the advisor, readiness


def test_the_advisor_selects_its_play_and_shows_its_values(browser):
    from selenium.webdriver.common.by import By

    table = Table(
        sk.Rules("baibian"), ["human", "greedy", "greedy", "greedy"], seed=0, turn_seconds=None, advisor="dmc"
    )
    server = Server(table)
    try:
        browser.get(server.link(0))
        wait(browser, lambda d: my_turn(d) and len(hand(d)) == 27)
        assert shown(browser, "btn-advise") and button(browser, "btn-advise").text == "建议"
        assert not shown(browser, "advice")
        button(browser, "btn-advise").click()
        wait(browser, lambda d: shown(d, "advice"))
        advised = sorted(
            browser.execute_script(
                "return [...document.querySelectorAll('#advice .advice-play .pcard')].map(c => c.dataset.token)"
            )
        )
        assert advised and selected(browser) == advised
        assert "dmc" in text(browser, "advice")
        rows = browser.find_elements(By.CSS_SELECTOR, "#advice .advice-table tr")[1:]
        qs = [float(r.find_elements(By.TAG_NAME, "td")[-1].text) for r in rows]
        assert 1 <= len(qs) <= 5 and qs == sorted(qs, reverse=True)
        assert browser.find_elements(By.CSS_SELECTOR, "#advice .advice-table tr.best")

        # 出牌 plays the advised cards; the advice goes with the turn.
        button(browser, "btn-play").click()
        choose = browser.find_elements(By.ID, "choose-0")
        if choose and choose[0].is_displayed():
            choose[0].click()
        wait(browser, lambda d: len(hand(d)) == 27 - len(advised))
        seat, play = table.game.history()[0]
        assert seat == 0 and sorted(play.cards.split()) == advised
        wait(browser, lambda d: not shown(d, "advice"))
    finally:
        server.stop()


def test_the_next_deal_starts_once_every_person_pressed_start(browser):
    from websockets.sync.client import connect

    # Two people: seat 0 in the browser, seat 1 on a bare socket; both under 托管 to end the deal.
    table = Table(
        sk.Rules("baibian"), ["human", "human", "greedy", "greedy"], seed=0, deals=2, helper="greedy", turn_seconds=None
    )
    server = Server(table)
    url = f"ws://127.0.0.1:{server.port}/ws?table=t1&seat=1&token={table.state[1].token}"
    try:
        with connect(url) as other:
            threading.Thread(target=lambda: [None for _ in other], daemon=True).start()  # (reads what it is sent)
            browser.get(server.link(0))
            wait(browser, lambda d: len(hand(d)) == 27)
            other.send(json.dumps({"type": "auto", "seq": 1, "on": True}))
            button(browser, "btn-auto").click()
            wait(browser, lambda d: shown(d, "settlement"), 30)
            assert table.game.is_over() and table.deal_index == 0
            assert shown(browser, "btn-start") and button(browser, "btn-start").text == "开始"
            assert re.fullmatch(r"\d+ 秒", text(browser, "countdown")), text(browser, "countdown")
            button(browser, "btn-start").click()
            wait(browser, lambda d: shown(d, "ready-note"))
            assert text(browser, "ready-note") == "等待其他玩家…" and not shown(browser, "btn-start")
            assert table.deal_index == 0  # (seat 1 has not pressed 开始)

            other.send(json.dumps({"type": "start", "seq": 2}))
            wait(browser, lambda d: table.deal_index == 1 and len(hand(d)) == 27 and not shown(d, "settlement"))
            assert (
                "2 / 2" in text(browser, "info")
                and not shown(browser, "btn-start")
                and not shown(browser, "ready-note")
            )
    finally:
        server.stop()


# ---------------------------------------------------------------- the replay viewer


def write_replays(path, seeds=(21, 22)):
    """Deals played by bots, written as `play --out` writes them: {"agents", "record"} lines."""
    names = ["greedy", "heuristic", "greedy", "heuristic"]
    bots = [sk.Bot(n) for n in names]
    with open(path, "w", encoding="utf-8") as f:
        for seed in seeds:
            g = sk.Game(sk.Rules("baibian"), seed=seed)
            while not g.is_over():
                g.apply_action(bots[g.current_player()].step(g))
            f.write(json.dumps({"agents": names, "record": json.loads(g.to_json())}) + "\n")


def seat_hands(driver):
    """The four hands shown around the table, seat by seat."""
    return driver.execute_script(
        "return [0, 1, 2, 3].map(s => [...document.querySelectorAll(`#seat-${s} .seat-hand .pcard`)]"
        ".map(c => c.dataset.token))"
    )


def step_of(driver):
    """The step shown in #replay-step ("第 i / n 步"), as (i, n)."""
    m = re.fullmatch(r"第 (\d+) / (\d+) 步", text(driver, "replay-step"))
    return (int(m.group(1)), int(m.group(2))) if m else None


def test_the_replay_viewer_steps_through_a_deal(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    from shuangkou.play import viewer as replay

    path = tmp_path / "deals.jsonl"
    write_replays(path)
    deals, _ = read_replays(path)
    frames = replay.frames(deals[0])  # (what the server sends: the truth the page must show)
    n = len(frames) - 1
    server = Server(app=make_replay_app(deals, path.name))
    base = f"http://127.0.0.1:{server.port}/?mode=replay"

    def at(d, i):  # the page shows frame i: the step, the slider, every hand, the history
        return (
            step_of(d) == (i, n)
            and button(d, "replay-pos").get_attribute("value") == str(i)
            and seat_hands(d) == frames[i]["hands"]
            and len(history_items(d)) == i
        )

    try:
        browser.get(base + "&deal=0")
        wait(browser, lambda d: at(d, 0))
        assert [len(h) for h in seat_hands(browser)] == [27] * 4  # every hand face up
        for hidden_id in ("btn-play", "btn-pass", "btn-hint", "btn-auto", "btn-start", "btn-leave", "hand"):
            assert not shown(browser, hidden_id), hidden_id
        assert not button(browser, "btn-prev").is_enabled() and button(browser, "btn-next").is_enabled()

        # Forwards, back, forwards: the same frame again.
        for i in (1, 2, 3):
            button(browser, "btn-next").click()
            wait(browser, lambda d, i=i: at(d, i))
        three = (seat_hands(browser), history_items(browser), text(browser, "center"))
        assert three[0] != frames[0]["hands"]
        assert browser.find_elements(By.CSS_SELECTOR, "#history li.current")[0].text == three[1][-1]
        button(browser, "btn-prev").click()
        wait(browser, lambda d: at(d, 2))
        button(browser, "btn-next").click()
        wait(browser, lambda d: at(d, 3))
        assert (seat_hands(browser), history_items(browser), text(browser, "center")) == three

        # Next trick: the frame where the next trick starts; prev trick: back to the one before.
        nxt = next(j for j in range(4, n + 1) if frames[j]["trick_start"])
        button(browser, "btn-next-trick").click()
        wait(browser, lambda d: at(d, nxt))
        prev = max([j for j in range(1, nxt) if frames[j]["trick_start"]], default=0)
        button(browser, "btn-prev-trick").click()
        wait(browser, lambda d: at(d, prev))
        # The keys: → a step, Shift+→ a trick.
        body = browser.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.ARROW_RIGHT)
        wait(browser, lambda d: at(d, prev + 1))
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT).perform()
        wait(browser, lambda d: at(d, nxt))

        # The slider: a click at 35% of its width jumps there.
        slider = button(browser, "replay-pos")
        ActionChains(browser).move_to_element_with_offset(
            slider, -slider.size["width"] * 15 // 100, 0
        ).click().perform()
        mid = wait(browser, lambda d: step_of(d) and step_of(d)[0] not in (nxt, 0, n) and step_of(d)[0])
        assert abs(mid - 0.35 * n) <= 0.1 * n, (mid, n)
        wait(browser, lambda d: at(d, mid))
        assert not shown(browser, "settlement")
        while not frames[mid]["table"] and mid < n - 1:  # (a trick on the table for the picture)
            button(browser, "btn-next").click()
            mid += 1
            wait(browser, lambda d, m=mid: at(d, m))
        time.sleep(0.2)
        browser.save_screenshot(str(SHOTS / "replay_viewer.png"))

        # The last frame: the settlement, with the outcome and the scores.
        button(browser, "btn-last").click()
        wait(browser, lambda d: at(d, n) and shown(d, "settlement"))
        panel = text(browser, "settlement")
        outcome = {"double": "双扣", "single": "单扣", "draw": "平扣"}[frames[n]["settlement"]["outcome"]]
        assert outcome in panel
        assert not button(browser, "btn-next").is_enabled() and not button(browser, "btn-last").is_enabled()

        # Another deal of the file, from the list; then the labels in English.
        Select(button(browser, "replay-deal")).select_by_value("1")
        wait(browser, lambda d: step_of(d) and step_of(d)[0] == 0 and not shown(d, "settlement"))
        assert "deal=1" in browser.current_url
        button(browser, "btn-lang").click()
        wait(browser, lambda d: button(d, "btn-next").text == "Next")
        assert button(browser, "btn-prev").text == "Back" and button(browser, "btn-prev-trick").text == "Prev trick"
        assert button(browser, "btn-next-trick").text == "Next trick"
        assert re.fullmatch(r"step 0 / \d+", text(browser, "replay-step"))
        assert Select(button(browser, "replay-deal")).first_selected_option.text.startswith("deal #1")  # (--deal 1)
        assert text(browser, "info").count("#1 (0–") == 1  # the index --deal takes, and the range

        # A deal the file does not hold: the reason shows.
        browser.get(base + "&deal=9&lang=en")
        wait(browser, lambda d: "no deal 9" in text(d, "banner"))
    finally:
        server.stop()


def test_screenshots_go_to_docs_images_only_when_asked():
    if os.environ.get("SHUANGKOU_SCREENSHOTS"):
        pytest.skip("asked for: SHUANGKOU_SCREENSHOTS is set")
    assert SHOTS != DOCS_IMAGES.resolve() and DOCS_IMAGES.resolve() not in SHOTS.parents
