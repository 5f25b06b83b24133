"""The web table in a real headless browser: Chromium and its driver from Debian's
packages (scripts/setup.sh --test installs them), driven through Selenium, against the
real server (uvicorn) on loopback. The screenshots in docs/images/ come from here."""

import asyncio
import shutil
import threading
import time
from pathlib import Path

import pytest
import shuangkou as sk
from shuangkou.play.server import Room, make_app
from shuangkou.play.table import Table

CHROMEDRIVER = "/usr/bin/chromedriver"
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "images"
pytestmark = pytest.mark.skipif(
    not (Path(CHROMEDRIVER).exists() and (shutil.which("chromium") or shutil.which("chromium-browser"))),
    reason="needs chromium and chromium-driver (Debian packages; scripts/setup.sh --test installs them)",
)


class Server:
    """uvicorn serving one table on 127.0.0.1 in a thread."""

    def __init__(self, table):
        import uvicorn

        room = Room()
        room.add("t1", table)
        self.table = table
        self.server = uvicorn.Server(uvicorn.Config(make_app(room), host="127.0.0.1", port=0, log_level="warning"))
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
    raise AssertionError(f"timed out; status: {text(driver, 'status')!r}, message: {text(driver, 'message')!r}")


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
