"""Text rendering of a deal: the table as one seat (or an onlooker) sees it, with
English or Chinese card and kind names."""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

from .._core import Game, Play

_CARD_ZH = {
    "3": "3",
    "4": "4",
    "5": "5",
    "6": "6",
    "7": "7",
    "8": "8",
    "9": "9",
    "T": "10",
    "J": "J",
    "Q": "Q",
    "K": "K",
    "A": "A",
    "2": "2",
    "SJ": "小王",
    "BJ": "大王",
}
_KIND = {
    "single": ("single", "单张"),
    "pair": ("pair", "对子"),
    "triple": ("triple", "三张"),
    "straight": ("straight", "顺子"),
    "pair_chain": ("pair chain", "连对"),
    "triple_chain": ("triple chain", "连三张"),
    "bomb": ("bomb", "炸弹"),
    "chain_bomb": ("chain bomb", "连炸"),
    "uneven_chain_bomb": ("uneven chain bomb", "不等连炸"),
    "three_kings": ("three kings", "三王炸"),
    "heavenly_kings": ("heavenly kings", "天王炸"),
}
_OUTCOME_ZH = {"double": "双扣", "single": "单扣", "draw": "平扣"}


def card_names(cards: str, lang: str = "en") -> str:
    """A card string in English, the cards' own names ('5 6 T SJ', as every other output
    writes them), or Chinese ('5 6 10 小王'); '—' for no cards."""
    if not cards:
        return "—"
    if lang == "zh":
        return " ".join(_CARD_ZH[t] for t in cards.split())
    return " ".join(cards.split())


def play_text(play: Play | None, lang: str = "en") -> str:
    if play is None:
        return "过" if lang == "zh" else "pass"
    kind = _KIND[play.kind][1 if lang == "zh" else 0]
    text = f"{kind} {card_names(play.cards, lang)}"
    if play.reading != play.cards:
        text += f" (= {card_names(play.reading, lang)})"
    if play.stars:
        text += f" {play.stars}★"
    return text


def render_game(game: Game, seat: int | None = None, lang: str = "en", last: int = 8) -> str:
    """The table as text, one line a seat and then the play to beat, the latest actions
    and how the deal stands.

    game: the deal (`shuangkou.Game`). seat: the seat whose view is drawn: its own hand,
    its partner's where the variant shows it (`partner_visible`), only the number of
    cards of the others ("?"); None (an onlooker) shows every hand. lang: "en" (cards
    as written everywhere else, "T" for ten, "SJ"/"BJ" for the jokers) or "zh" (10,
    小王/大王, kinds and outcomes in Chinese). last: how many of the latest actions to show.

    Shows, in order:
    - a line a seat: "→" at the seat to act, the seat and its team (0+2 or 1+3), its
      number of cards ("1 card", "5 cards"), and its hand, "?" where hidden or "—" once
      the seat has played out (the same for every seat);
    - "on the table:" the play to beat and whose it is (none when a seat leads);
    - "recent:" the `last` latest actions as "seat: play" (a pass as "pass");
    - "out:" the seats that have played out, in order, while the deal goes on; or
      "over:" the outcome (double, single or draw), the places and each seat's score.
    """
    zh = lang == "zh"
    lines = []
    to_act = game.current_player()
    visible_partner = game.params.get("partner_visible") == "true"
    for s in range(4):
        n = len(game.hand(s).split()) if game.hand(s) else 0
        shown = seat is None or s == seat or (visible_partner and s == seat ^ 2)
        hand = card_names(game.hand(s), lang) if shown or n == 0 else "?"
        marker = "→" if s == to_act else " "
        team = "0+2" if s % 2 == 0 else "1+3"
        label = f"座位{s}" if zh else f"seat {s}"
        count = "张" if zh else ("card" if n == 1 else "cards")
        lines.append(f"{marker} {label} [{team}] {n:>2} {count}: {hand}")
    top = game.top()
    if top is not None:
        owner = game.top_owner()
        lines.append(
            ("桌面: " if zh else "on the table: ") + f"{play_text(top, lang)} ({'座位' if zh else 'seat '}{owner})"
        )
    history = game.history()[-last:]
    if history:
        lines.append(("最近: " if zh else "recent: ") + "; ".join(f"{s}: {play_text(p, lang)}" for s, p in history))
    order = game.finish_order()
    if game.is_over():
        outcome = game.outcome()
        scores = game.scores()
        lines.append(
            ("结束: " if zh else "over: ")
            + (_OUTCOME_ZH[outcome] if zh else outcome)
            + f", {'名次' if zh else 'places'} {order}, {'得分' if zh else 'scores'} {scores}"
        )
    elif order:
        lines.append(("已出完: " if zh else "out: ") + str(order))
    return "\n".join(lines)


def text_image(text: str, font_size: int = 14) -> np.ndarray:
    """The text drawn black on white, one line under another, in a monospace font: uint8
    [height, width, 3], the frame of render_mode="rgb_array".

    Drawn with Pillow (a dependency of matplotlib, which the package requires) in
    matplotlib's DejaVu Sans Mono; characters that font lacks (Chinese) show as boxes."""
    from PIL import Image, ImageDraw

    font = _mono_font(font_size)
    lines = text.split("\n") or [""]
    left, top, _, bottom = font.getbbox("Hg→")
    line_height = bottom - min(top, 0) + font_size // 3
    margin = font_size // 2
    width = max(int(font.getlength(line)) for line in lines) + 2 * margin
    height = line_height * len(lines) + 2 * margin
    image = Image.new("RGB", (max(width, 1), max(height, 1)), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((margin, margin + i * line_height), line, fill="black", font=font)
    return np.asarray(image, dtype=np.uint8).copy()


@functools.lru_cache(maxsize=4)
def _mono_font(size: int) -> Any:
    from PIL import ImageFont

    try:
        import matplotlib

        return ImageFont.truetype(os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSansMono.ttf"), size)
    except (ImportError, OSError):  # pragma: no cover - a matplotlib without its fonts
        return ImageFont.load_default(size)
