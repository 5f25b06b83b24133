// The card table of `shuangkou play` (docs/play.md). It only shows the `state` the server
// sends and sends back what the player chooses: no game logic, no legality checks here.
'use strict';

// Every label of the page, per language.
const I18N = {
  zh: {
    title: '双扣', langSwitch: 'English', play: '出牌', pass: '不出', hint: '提示', sort: '排序',
    auto: '托管', autoCancel: '取消托管', start: '开始', leave: '离开', rejoin: '回到游戏',
    ok: '确定', cancel: '取消', close: '关闭', info: '牌局信息', history: '出牌记录',
    cardsLeft: '剩余 {n} 张', you: '你', partner: '对家', passed: '不出', placeN: '第 {n} 名',
    seatName: '座位 {n}', yourTurn: '轮到你了', mustPlay: '（首出，必须出牌）',
    waiting: '等待 {name} 出牌', over: '本局结束', autoOn: '托管中', seconds: '{n} 秒',
    strike: '超时警告 {n} 次（第 3 次将自动托管）', playedBy: '{name} 出牌', bigJoker: '大王', smallJoker: '小王',
    deal: '局数', variant: '玩法', revealed: '翻牌', revealedText: '{card}（{name}）', swapped: '换座',
    bombs: '炸弹', stars: '{n} 星', multiplier: '倍数', totals: '总分', none: '无',
    settlement: '本局结算', outcome: '结果', base: '底分', contribution: '炸弹分', score: '得分',
    place: '名次', remaining: '剩余手牌', player: '玩家', titles: '称号',
    leaveAsk: '您正在游戏中，是否要暂时离开游戏？', left: '你已离开牌桌（托管中）。',
    connecting: '正在连接…', reconnecting: '连接已断开，2 秒后重连…', offline: '尚未连接到服务器',
    chooseTitle: '这组牌有几种出法，请选择：', selectFirst: '请先选择要出的牌', noHint: '没有可以出的牌',
    hintNothing: '没有管得上的牌：不出', hintPartner: '对家的牌最大：不出',
    hintOf: '提示 {i}/{n}', sortGroups: '按牌型排列', sortRank: '按大小排列',
    outcomes: { double: '双扣', single: '单扣', draw: '平扣' },
    advise: '建议', adviceFrom: '{name} 的建议', adviceNone: '没有建议', playCol: '出法', kindCol: '牌型', qCol: 'Q 值',
    waitingOthers: '等待其他玩家…', pressStart: '按「开始」进入下一局', matchOver: '全部牌局已结束',
    sitOut: '你没有按时按「开始」，电脑正代你出牌；按「开始」回到牌局。',
    replayTitle: '双扣 · 回放', replayDeal: '选择牌局', first: '第一步', last: '最后一步', prevTrick: '上一轮',
    prev: '上一步', next: '下一步', nextTrick: '下一轮', replayPos: '跳到任意一步', stepOf: '第 {i} / {n} 步',
    dealOption: '#{n} · {variant} · {actions} 步', seatLabel: '座位 {n} · {name}', toAct: '轮到 {name} 出牌',
    waitingBadge: '暂离', multUs: '我方胜 ×{a} · 对方胜 ×{b}', multTeams: '1、3 号胜 ×{a} · 2、4 号胜 ×{b}', file: '文件', trick: '轮次', trickN: '第 {n} 轮', loadFailed: '无法载入回放：{why}',
    kinds: {
      single: '单张', pair: '对子', triple: '三张', straight: '顺子', pair_chain: '连对',
      triple_chain: '连三张', bomb: '炸弹', chain_bomb: '连炸', uneven_chain_bomb: '不等连炸',
      three_kings: '三王炸', heavenly_kings: '天王炸', pass: '不出',
    },
  },
  en: {
    title: 'Shuangkou', langSwitch: '中文', play: 'Play', pass: 'Pass', hint: 'Hint', sort: 'Sort',
    auto: 'Auto', autoCancel: 'Auto off', start: 'Start', leave: 'Leave', rejoin: 'Rejoin',
    ok: 'OK', cancel: 'Cancel', close: 'Close', info: 'Game', history: 'History',
    cardsLeft: '{n} cards left', you: 'you', partner: 'partner', passed: 'Pass', placeN: 'place {n}',
    seatName: 'Seat {n}', yourTurn: 'Your turn', mustPlay: ' (you lead: play something)',
    waiting: 'Waiting for {name}', over: 'Deal over', autoOn: 'Auto-play on', seconds: '{n}s',
    strike: 'Timeout warning {n} (the 3rd puts you on auto-play)', playedBy: 'played by {name}',
    bigJoker: 'BJ', smallJoker: 'SJ',
    deal: 'Deal', variant: 'Variant', revealed: 'Revealed card', revealedText: '{card} ({name})', swapped: 'Seat swap',
    bombs: 'Bombs', stars: '{n}★', multiplier: 'Multiplier', totals: 'Totals', none: 'none',
    settlement: 'Settlement', outcome: 'Outcome', base: 'Base', contribution: 'Bombs', score: 'Score',
    place: 'Place', remaining: 'Cards left', player: 'Player', titles: 'Titles',
    leaveAsk: 'You are in a game. Leave for now? (auto-play takes over)', left: 'You left the table (auto-play is on).',
    connecting: 'Connecting…', reconnecting: 'Connection lost, retrying in 2 s…', offline: 'Not connected to the server',
    chooseTitle: 'These cards can be played in several ways:', selectFirst: 'Select the cards to play first',
    noHint: 'Nothing can be played', hintNothing: 'Nothing beats it: pass (不出)',
    hintPartner: 'Your partner holds the trick: pass (不出)', hintOf: 'hint {i}/{n}', sortGroups: 'sorted by pattern', sortRank: 'sorted by rank',
    outcomes: { double: 'Double (双扣)', single: 'Single (单扣)', draw: 'Draw (平扣)' },
    advise: 'Advice', adviceFrom: 'Advice from {name}', adviceNone: 'no advice', playCol: 'Play', kindCol: 'Kind', qCol: 'Q',
    waitingOthers: 'Waiting for the other players…', pressStart: 'Press Start for the next deal', matchOver: 'All deals played',
    sitOut: 'You did not press Start in time: a bot plays your seat. Press Start to come back.',
    replayTitle: 'Shuangkou · replay', replayDeal: 'Choose a deal', first: 'First step', last: 'Last step',
    prevTrick: 'Prev trick', prev: 'Back', next: 'Next', nextTrick: 'Next trick', replayPos: 'Jump to any step',
    stepOf: 'step {i} / {n}', dealOption: 'deal #{n} · {variant} · {actions} steps', seatLabel: 'seat {n} · {name}',
    toAct: '{name} to play', waitingBadge: 'sitting out', multUs: '×{a} if we win · ×{b} if they win',
    multTeams: '×{a} if #1/#3 win · ×{b} if #2/#4 win', file: 'File', trick: 'Trick', trickN: 'trick {n}', loadFailed: 'Cannot load the replay: {why}',
    kinds: {
      single: 'single', pair: 'pair', triple: 'triple', straight: 'straight', pair_chain: 'pair chain',
      triple_chain: 'triple chain', bomb: 'bomb', chain_bomb: 'chain bomb', uneven_chain_bomb: 'uneven chain bomb',
      three_kings: 'three kings', heavenly_kings: 'heavenly kings', pass: 'pass',
    },
  },
};

const $ = (id) => document.getElementById(id);
const POS = ['bottom', 'right', 'top', 'left']; // by (seat - own seat) mod 4
const PARAMS = new URLSearchParams(location.search);
const REPLAY = PARAMS.get('mode') === 'replay'; // the replay viewer: frames over HTTP, no WebSocket
let lang = PARAMS.get('lang') === 'en' ? 'en' : 'zh';
let ws = null;
let seq = 1; // the next message's seq; it only grows, also across reconnects
let state = null;
let stateAt = 0; // Date.now() when `state` arrived (for the countdown)
let leaving = false; // the player left on purpose: no reconnect
let retryTimer = null;
let selected = new Set(); // indices into state.hand of the selected cards
let handKey = '';
let sortMode = 'rank'; // 'rank' (state.hand) or 'groups' (state.groups)
let passHinted = null; // why the last hint said 不出 ('nothing', 'partner'), until the turn passes
let lastPlay = null; // the cards of the last play sent (resent with a reading)
let settleKey = null; // the deal whose settlement is due
let settleAt = 0; // when the settlement panel may show
let settleClosed = false;
let msgTimer = null;
let msgSrc = null; // what #message shows: a label key, or a server error {message, message_zh}
let drag = null; // {on, seen}: a drag across the hand selecting (on) or unselecting cards
let advice = null; // the advisor's answer for the turn in progress
let turnKey = ''; // deal, move count and seat to act: the advice belongs to one turn
// The replay viewer: the file's deals (GET /replay/index), the deal shown, its frame.
const replay = { index: null, deal: null, step: 0 };

function t(key, vars) {
  const s = I18N[lang][key] ?? I18N.zh[key] ?? key;
  return typeof s === 'string' && vars ? s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] ?? m)) : s;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = String(text);
  return e;
}

// Card tokens from a list or a space-separated string; [] for anything else.
function toks(x) {
  if (Array.isArray(x)) return x.map(String);
  return typeof x === 'string' ? x.split(/\s+/).filter(Boolean) : [];
}

const isPass = (a) => !a || a.kind === 'pass' || toks(a.cards).length === 0;
const rankLabel = (tok) => (tok === 'BJ' ? t('bigJoker') : tok === 'SJ' ? t('smallJoker') : tok === 'T' ? '10' : tok);
const cardsText = (cards) => toks(cards).map(rankLabel).join(' ');
const kindName = (k) => (k == null ? '' : (t('kinds') || {})[k] || String(k));
const fmt = (x) => (x == null ? '—' : typeof x === 'object' ? JSON.stringify(x) : String(x));
const signed = (x) => (typeof x === 'number' && x > 0 ? '+' + x : fmt(x));
const mySeat = () => (state && Number.isInteger(state.seat) ? state.seat : 0);
// A per-seat flag of the state (`auto`, `ready`, `waiting`: lists of four booleans).
const flag = (key, s) => !!(state && Array.isArray(state[key]) && state[key][s]);
const autoOf = (s) => flag('auto', s);

function nameOf(s) {
  if (s == null || s < 0) return '—';
  const name = state && Array.isArray(state.names) && state.names[s];
  // The seat, numbered 0-3 as in the records, the API and the command line, beside
  // the name (agents' names repeat; a person is 玩家 1-4): "座位 0 · 玩家 1".
  const n = name ? t('seatLabel', { n: s, name }) : t('seatName', { n: s });
  if (REPLAY) return n;
  return s === mySeat() ? (lang === 'zh' ? `${n}（${t('you')}）` : `${n} (${t('you')})`) : n;
}

// Whether another deal follows this one (older servers: from `deal`/`deals` or `match`).
function moreDeals() {
  const S = state || {};
  if (S.more_deals != null) return !!S.more_deals;
  return S.deals != null && S.deal != null ? S.deal < S.deals : !!S.match;
}

// A card: `card` (in the hand, with data-card) or `pcard` (played, smaller, data-token).
function cardEl(tok, cls) {
  const c = el('div', cls);
  c.setAttribute(cls === 'card' ? 'data-card' : 'data-token', tok);
  if (tok === 'BJ' || tok === 'SJ') c.classList.add('joker', tok === 'BJ' ? 'big-joker' : 'small-joker');
  const label = rankLabel(tok);
  // Jokers: SJ and BJ, as every text output writes them (中文: 小王 and 大王 on the face, the token in the tooltip).
  c.title = tok === 'BJ' ? (lang === 'zh' ? '大王（BJ）' : 'Big joker (BJ)')
    : tok === 'SJ' ? (lang === 'zh' ? '小王（SJ）' : 'Small joker (SJ)') : label;
  // A joker's label stands in a column, one character under the other (as on the cards).
  const rank = (extra) => {
    if (!c.classList.contains('joker')) return el('span', 'rank' + extra, label);
    const r = el('span', 'rank' + extra);
    for (const ch of label) r.appendChild(el('span', null, ch));
    return r;
  };
  c.appendChild(rank(''));
  if (cls === 'card') c.appendChild(rank(' rank-br'));
  return c;
}

function cardsRow(cards, cls = 'pcard') {
  const row = el('div', 'cards-row');
  for (const tok of toks(cards)) row.appendChild(cardEl(tok, cls));
  return row;
}

// ---------------------------------------------------------------- connection

function wsUrl() {
  const q = new URLSearchParams(location.search);
  q.delete('lang'); // (the page's own setting; seat, token, table go to the server)
  const qs = q.toString();
  return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws' + (qs ? '?' + qs : '');
}

function banner(text, rejoin = false) {
  $('banner').hidden = !text;
  $('banner-text').textContent = text || '';
  $('btn-rejoin').hidden = !rejoin;
}

function connect() {
  clearTimeout(retryTimer);
  if (!state) banner(t('connecting'));
  let sock;
  try {
    sock = new WebSocket(wsUrl());
  } catch (e) {
    banner(t('reconnecting'));
    retryTimer = setTimeout(connect, 2000);
    return;
  }
  ws = sock;
  sock.onopen = () => { banner(''); renderButtons(); };
  sock.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    onMessage(m);
  };
  sock.onclose = (ev) => {
    if (ws !== sock) return;
    ws = null;
    if (leaving) banner(t('left'), true);
    else {
      banner(t('reconnecting') + (ev && ev.reason ? ` (${ev.reason})` : ''));
      retryTimer = setTimeout(connect, 2000);
    }
    renderButtons();
  };
  sock.onerror = () => {}; // a close event follows
}

function send(type, extra) {
  if (!ws || ws.readyState !== WebSocket.OPEN) { flash('offline'); return false; }
  ws.send(JSON.stringify({ type, seq: seq++, ...extra }));
  return true;
}

function onMessage(m) {
  if (!m || typeof m !== 'object') return;
  if (m.type === 'state') setState(m.state && typeof m.state === 'object' ? m.state : m);
  else if (m.type === 'choose') showChoose(Array.isArray(m.readings) ? m.readings : []);
  else if (m.type === 'hint') applyHint(m);
  else if (m.type === 'advice') applyAdvice(m);
  else if (m.type === 'error') flash(m);
  else if (m.type === 'notice') flash(m, 12000); // something failed and the table went on (an agent, the record file)
}

// Shows a message for a few seconds (`ms`): `src` is a label key, or a server error or notice, which names
// its reason in English (`message`) and in Chinese (`message_zh`).
function flash(src, ms = 4000) {
  msgSrc = src;
  showMessage();
  $('message').hidden = false;
  clearTimeout(msgTimer);
  msgTimer = setTimeout(() => { $('message').hidden = true; }, ms);
}

function showMessage() {
  const m = msgSrc;
  let text = '';
  if (typeof m === 'string') text = t(m);
  else if (m && typeof m === 'object') text = (lang === 'zh' ? m.message_zh || m.message : m.message || m.message_zh) || 'error';
  $('message').textContent = text;
}

function setState(s) {
  state = s;
  stateAt = Date.now();
  const key = JSON.stringify(toks(s.hand));
  if (key !== handKey) { handKey = key; selected.clear(); } // a new hand, or our play went through
  if (!s.your_turn) $('choose-dialog').hidden = true;
  const turn = [s.deal, Array.isArray(s.history) ? s.history.length : 0, s.to_act, s.phase].join(':');
  if (turn !== turnKey || !s.your_turn) { turnKey = turn; advice = null; } // the advice was for a turn now gone
  if (s.settlement) {
    const k = String(s.deal);
    if (settleKey !== k) {
      settleKey = k;
      settleClosed = false;
      settleAt = Date.now() + 3000; // the last trick stays in view for a moment
      setTimeout(renderSettlement, 3050);
    }
  } else settleKey = null;
  render();
}

// ---------------------------------------------------------------- rendering

function render() {
  if (!state) return;
  const trick = currentTrick();
  renderSeats(trick);
  renderCenter(trick);
  renderHand();
  renderButtons();
  renderStatus();
  renderInfo();
  renderHistory();
  renderAdvice();
  renderSettlement();
}

// The actions of the trick in progress (for display only): it starts at the latest play that
// follows only passes after the previous play, made by the same seat or by a seat among those
// passes (a seat that passed on a play and then plays again must be leading a new trick).
function currentTrick() {
  const h = Array.isArray(state.history) ? state.history : [];
  if (state.phase === 'playing' && !state.table) return []; // a new trick is to be led
  let start = 0;
  for (let i = h.length - 1; i > 0; i--) {
    if (isPass(h[i])) continue;
    const passers = new Set();
    let j = i - 1;
    while (j >= 0 && isPass(h[j])) passers.add(h[j--].seat);
    if (j < 0 || h[j].seat === h[i].seat || passers.has(h[i].seat)) { start = i; break; }
  }
  return h.slice(start);
}

function renderSeats(trick) {
  const me = mySeat();
  const last = {};
  for (const a of trick) if (a && a.seat != null) last[a.seat] = a;
  const left = Array.isArray(state.cards_left) ? state.cards_left : [];
  const order = Array.isArray(state.finish_order) ? state.finish_order : [];
  for (let s = 0; s < 4; s++) {
    const box = $('seat-' + s);
    box.dataset.seat = s;
    box.className = `seat pos-${POS[(s - me + 4) % 4]}`;
    box.classList.toggle('to-act', state.phase === 'playing' && state.to_act === s);
    box.classList.toggle('last-actor', REPLAY && !!state.last && state.last.seat === s);
    box.textContent = '';
    const head = el('div', 'seat-head');
    head.appendChild(el('span', 'seat-name', nameOf(s)));
    if (s === (me + 2) % 4 && !REPLAY) head.appendChild(el('span', 'badge partner-badge', t('partner')));
    if (autoOf(s)) head.appendChild(el('span', 'badge auto-badge', t('auto')));
    if (flag('waiting', s) && !REPLAY) head.appendChild(el('span', 'badge auto-badge', t('waitingBadge')));
    if (order.includes(s)) head.appendChild(el('span', 'badge place-badge', t('placeN', { n: order.indexOf(s) + 1 })));
    box.appendChild(head);
    box.appendChild(el('div', 'seat-left', t('cardsLeft', { n: left[s] ?? '?' })));
    const act = el('div', 'seat-action');
    const a = last[s];
    if (a) act.appendChild(isPass(a) ? el('span', 'pass-label', t('passed')) : cardsRow(a.cards));
    box.appendChild(act);
    if (REPLAY && Array.isArray(state.hands)) {
      const sh = el('div', 'seat-hand'); // everything shows in a replay
      sh.appendChild(cardsRow(state.hands[s]));
      box.appendChild(sh);
    } else if (s === (me + 2) % 4 && Array.isArray(state.partner_hand) && state.partner_hand.length) {
      const ph = el('div', 'partner-hand');
      ph.appendChild(cardsRow(state.partner_hand));
      box.appendChild(ph);
    }
  }
}

function renderCenter(trick) {
  const box = $('table-cards');
  const by = $('table-by');
  box.textContent = '';
  by.textContent = '';
  let top = state.table;
  if (!top && state.phase === 'over') {
    const plays = trick.filter((a) => !isPass(a));
    const p = plays[plays.length - 1];
    if (p) top = { cards: p.cards, kind: p.kind, by: p.seat };
  }
  if (!top || !toks(top.cards).length) return;
  for (const tok of toks(top.cards)) box.appendChild(cardEl(tok, 'pcard'));
  const who = top.by ?? top.seat;
  by.textContent = [who != null ? t('playedBy', { name: nameOf(who) }) : '', kindName(top.kind)].filter(Boolean).join(' · ');
}

// The hand in display order: [{tok, k (index into state.hand), gap (starts a group)}].
function handView() {
  const hand = toks(state && state.hand);
  if (sortMode !== 'groups' || !Array.isArray(state.groups)) return hand.map((tok, k) => ({ tok, k, gap: false }));
  const pool = {};
  hand.forEach((tok, k) => (pool[tok] = pool[tok] || []).push(k));
  const out = [];
  for (const g of state.groups) {
    let first = true;
    for (const tok of toks(g)) {
      const ks = pool[tok];
      if (!ks || !ks.length) continue;
      out.push({ tok, k: ks.shift(), gap: first && out.length > 0 });
      first = false;
    }
  }
  const rest = Object.values(pool).flat().sort((a, b) => a - b); // cards no group holds
  rest.forEach((k, i) => out.push({ tok: hand[k], k, gap: i === 0 && out.length > 0 }));
  return out;
}

function renderHand() {
  const box = $('hand');
  box.textContent = '';
  for (const it of handView()) {
    const c = cardEl(it.tok, 'card');
    c.dataset.k = it.k;
    if (it.gap) c.classList.add('gap');
    if (selected.has(it.k)) c.classList.add('selected');
    box.appendChild(c);
  }
}

function renderButtons() {
  if (REPLAY) { renderReplayBar(); return; }
  const S = state || {};
  const me = mySeat();
  const auto = autoOf(me);
  const live = !!ws && ws.readyState === WebSocket.OPEN;
  const canAct = !!state && live && !auto && S.phase === 'playing' && !!S.your_turn;
  $('btn-play').disabled = !canAct;
  $('btn-hint').disabled = !canAct;
  $('btn-advise').hidden = S.advisor == null;
  $('btn-advise').disabled = !canAct;
  $('btn-pass').hidden = !(S.can_pass && S.your_turn);
  if (!S.your_turn) { passHinted = null; $('btn-pass').classList.remove('suggested'); }
  $('btn-pass').disabled = !canAct;
  $('btn-sort').disabled = auto || !state;
  $('btn-sort').classList.toggle('active', sortMode === 'groups');
  $('btn-sort').title = sortMode === 'groups' ? t('sortGroups') : t('sortRank');
  // 开始: after a deal while another follows, until pressed; and for a seat sitting out.
  const waiting = flag('waiting', me);
  const between = S.phase === 'over' && moreDeals();
  $('btn-start').hidden = !((between && !flag('ready', me)) || waiting);
  $('btn-start').disabled = !live;
  $('ready-note').hidden = !(between && flag('ready', me) && !waiting);
  $('ready-note').textContent = t('waitingOthers');
  $('btn-leave').disabled = auto || leaving;
  const a = $('btn-auto');
  a.textContent = auto ? t('autoCancel') : t('auto');
  a.classList.toggle('active', auto);
  a.disabled = !state || !live;
}

function renderStatus() {
  if (!state) return;
  const S = state;
  const me = mySeat();
  let text = '';
  if (REPLAY) text = S.phase === 'over' ? t('over') : S.to_act >= 0 ? t('toAct', { name: nameOf(S.to_act) }) : '';
  else if (S.phase === 'over') text = t('over') + overNote();
  else if (S.your_turn) text = t('yourTurn') + (S.can_pass === false ? t('mustPlay') : '');
  else if (S.to_act != null && S.to_act >= 0) text = t('waiting', { name: nameOf(S.to_act) });
  if (autoOf(me) && S.phase !== 'over' && !REPLAY) text = `${t('autoOn')} · ${text}`;
  $('status-text').textContent = text;
  $('status').classList.toggle('your-turn', S.phase === 'playing' && !!S.your_turn && !autoOf(me));
  // The countdown: the seat's turn time, or between deals the time left to press 开始.
  let secs = null;
  if (S.phase === 'playing' && typeof S.deadline === 'number') secs = S.deadline;
  else if (S.phase === 'over' && typeof S.ready_deadline === 'number' && !flag('ready', me)) secs = S.ready_deadline;
  const cd = $('countdown');
  if (secs != null && !REPLAY) {
    const left = Math.max(0, Math.ceil(secs - (Date.now() - stateAt) / 1000));
    cd.textContent = t('seconds', { n: left });
    cd.classList.toggle('urgent', left <= 5);
  } else cd.textContent = '';
  const strikes = (Array.isArray(S.strikes) && S.strikes[me]) || 0;
  let warn = '';
  if (flag('waiting', me) && !REPLAY) warn = t('sitOut');
  else if (strikes > 0 && S.phase === 'playing' && !autoOf(me)) warn = t('strike', { n: strikes });
  $('warning').textContent = warn;
}

// After a deal: what comes next for this seat (press 开始, wait for the others, or nothing).
function overNote() {
  if (!moreDeals()) return state.more_deals === false && (state.deals > 1 || state.match) ? ' · ' + t('matchOver') : '';
  if (flag('waiting', mySeat())) return '';
  return ' · ' + (flag('ready', mySeat()) ? t('waitingOthers') : t('pressStart'));
}

function infoRow(dl, label, value) {
  dl.appendChild(el('dt', null, label));
  const dd = el('dd');
  if (value instanceof Node) dd.appendChild(value);
  else dd.textContent = value == null || value === '' ? '—' : String(value);
  dl.appendChild(dd);
}

function renderInfo() {
  const S = state;
  const dl = $('info');
  dl.textContent = '';
  const R = replay.deal;
  if (REPLAY && R) {
    if (R.file) infoRow(dl, t('file'), R.file);
    infoRow(dl, t('deal'), `#${R.index} (0–${R.deals - 1})`); // (the index --deal takes)
    if (Number.isInteger(S.trick)) infoRow(dl, t('trick'), t('trickN', { n: S.trick + 1 }));
  } else if (S.deal != null) infoRow(dl, t('deal'), S.deals != null ? `${fmt(S.deal)} / ${fmt(S.deals)}` : fmt(S.deal));
  const v = S.variant;
  infoRow(dl, t('variant'), v && typeof v === 'object' ? v.name || JSON.stringify(v) : v);
  const r = S.revealed;
  if (r && typeof r === 'object') {
    infoRow(dl, t('revealed'), t('revealedText', { card: rankLabel(String(r.card ?? r.rank ?? '?')), name: nameOf(r.holder) }));
  }
  if (Array.isArray(S.swapped) && S.swapped.length === 2) {
    infoRow(dl, t('swapped'), `${nameOf(S.swapped[0])} ↔ ${nameOf(S.swapped[1])}`);
  }
  const bombs = Array.isArray(S.bombs) ? S.bombs : [];
  let list = t('none');
  if (bombs.length) {
    list = el('ul', 'bomb-list');
    for (const b of bombs) {
      const li = el('li', null, `${nameOf(b.seat)}: ${cardsText(b.cards)}`);
      if (b.stars != null) li.appendChild(el('span', 'stars', ' ' + t('stars', { n: b.stars })));
      list.appendChild(li);
    }
  }
  infoRow(dl, t('bombs'), list);
  const mult = S.multiplier ?? (S.settlement && S.settlement.multiplier);
  if (mult != null) infoRow(dl, t('multiplier'), '×' + fmt(mult));
  else if (Array.isArray(S.multipliers) && S.multipliers.length === 2) infoRow(dl, t('multiplier'), multipliersText(S.multipliers));
  if (Array.isArray(S.totals)) infoRow(dl, t('totals'), S.totals.map(signed).join(' / ')); // (by player, as the server sends)
}

// The multiplier the bombs so far make, by which team wins ([seats 0 and 2, seats 1 and 3]).
function multipliersText(m) {
  if (m[0] === m[1]) return '×' + fmt(m[0]);
  if (REPLAY) return t('multTeams', { a: m[0], b: m[1] });
  const us = mySeat() % 2;
  return t('multUs', { a: m[us], b: m[1 - us] });
}

function renderHistory() {
  const ol = $('history');
  const atEnd = REPLAY || ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 4;
  ol.textContent = '';
  const h = Array.isArray(state.history) ? state.history : [];
  for (const [i, a] of h.entries()) {
    const li = el('li', isPass(a) ? 'h-pass' : 'h-play');
    if (REPLAY) {
      li.dataset.step = i + 1; // (a click goes to the frame after this action)
      if (i === h.length - 1) li.classList.add('current');
    }
    li.appendChild(el('span', 'h-name', nameOf(a && a.seat) + ': '));
    if (isPass(a)) li.appendChild(el('span', 'h-cards', t('passed')));
    else {
      li.appendChild(el('span', 'h-cards', cardsText(a.cards)));
      li.appendChild(el('span', 'h-kind', ' ' + kindName(a.kind)));
    }
    ol.appendChild(li);
  }
  if (atEnd) ol.scrollTop = ol.scrollHeight;
}

function outcomeText(o) {
  if (o == null) return '—';
  if (typeof o === 'object') {
    const k = o.key ?? o.name ?? o.outcome ?? o.kind ?? o.type;
    const rest = Object.entries(o).filter(([, v]) => v !== k).map(([a, v]) => `${a}: ${fmt(v)}`).join(', ');
    return k != null ? outcomeText(k) + (rest ? ` (${rest})` : '') : JSON.stringify(o);
  }
  const s = String(o);
  const key = ['double', 'single', 'draw'].find((x) => s.toLowerCase().includes(x)) ||
    { 双扣: 'double', 单扣: 'single', 平扣: 'draw' }[s];
  if (!key) return s;
  const name = t('outcomes')[key];
  return lang === 'zh' && name !== s ? `${name}（${s}）` : name;
}

// The place (1-4) of a seat: `places` lists the seats in finishing order.
function placeOf(st, s) {
  const p = Array.isArray(st.places) ? st.places : Array.isArray(state.finish_order) ? state.finish_order : [];
  const i = p.indexOf(s);
  return i >= 0 ? t('placeN', { n: i + 1 }) : '—';
}

function perSeat(v, s) {
  if (Array.isArray(v)) return v[s];
  if (v && typeof v === 'object') return v[s] ?? v[String(s)];
  return v;
}

function renderSettlement() {
  const box = $('settlement');
  const st = state && state.settlement;
  if (!st || typeof st !== 'object' || settleClosed || Date.now() < settleAt - 100) { box.hidden = true; return; }
  box.hidden = false;
  box.textContent = '';
  box.appendChild(el('h2', null, t('settlement')));
  box.appendChild(el('div', 'outcome', `${t('outcome')}: ${outcomeText(st.outcome)}`));
  const mult = st.multiplier ?? state.multiplier;
  const baseScalar = st.base != null && typeof st.base !== 'object';
  const facts = [];
  if (baseScalar) facts.push(`${t('base')}: ${fmt(st.base)}`);
  if (mult != null) facts.push(`${t('multiplier')}: ×${fmt(mult)}`);
  if (facts.length) box.appendChild(el('div', 'facts', facts.join(' · ')));
  const tbl = el('table', 'settle-table');
  const cols = [t('player'), t('place'), t('remaining')];
  if (!baseScalar && st.base != null) cols.push(t('base'));
  cols.push(t('contribution'), t('score'));
  const hr = el('tr');
  for (const c of cols) hr.appendChild(el('th', null, c));
  tbl.appendChild(hr);
  for (let s = 0; s < 4; s++) {
    const tr = el('tr');
    if (s === mySeat() && !REPLAY) tr.className = 'me';
    tr.appendChild(el('td', null, nameOf(s)));
    tr.appendChild(el('td', null, placeOf(st, s)));
    const hand = toks(perSeat(st.hands, s));
    const td = el('td', 'settle-hand');
    td.appendChild(hand.length ? cardsRow(hand) : el('span', null, '—'));
    tr.appendChild(td);
    if (!baseScalar && st.base != null) tr.appendChild(el('td', 'num', signed(perSeat(st.base, s))));
    tr.appendChild(el('td', 'num', signed(perSeat(st.contributions, s))));
    tr.appendChild(el('td', 'num score', signed(perSeat(st.scores, s))));
    tbl.appendChild(tr);
  }
  box.appendChild(tbl);
  if (Array.isArray(state.totals)) {
    box.appendChild(el('div', 'facts', `${t('totals')}: ` + state.totals.map(signed).join(' / ')));
  }
  if (Array.isArray(state.titles) && state.titles.length) {
    box.appendChild(el('div', 'facts', `${t('titles')}: ` + state.titles.map((x) => (Array.isArray(x) ? x[x.length - 1] : fmt(x))).join(' / ')));
  }
  if (!REPLAY && moreDeals()) {
    const next = flag('ready', mySeat()) ? t('waitingOthers') : t('pressStart');
    box.appendChild(el('div', 'facts next-deal', next));
  }
  const close = el('button', null, t('close'));
  close.id = 'settlement-close';
  close.type = 'button';
  close.onclick = () => { settleClosed = true; box.hidden = true; };
  box.appendChild(close);
}

// A reading of the selection in the game's words: its kind and the cards it stands for
// (`reading`, or what follows the kind in `text`, "pair_chain 5 5 6 6 7 7").
function readingText(r) {
  const text = typeof r.text === 'string' ? r.text : '';
  const cards = r.reading ?? (r.kind && text.startsWith(r.kind + ' ') ? text.slice(r.kind.length + 1) : null);
  if (cards == null) return text || kindName(r.kind);
  return kindName(r.kind) + (lang === 'zh' ? '：' : ': ') + cardsText(cards);
}

function showChoose(readings) {
  const list = $('choose-list');
  list.textContent = '';
  readings.forEach((r, i) => {
    const b = el('button', 'choose-btn', (r && readingText(r)) || `#${i + 1}`);
    b.id = `choose-${i}`;
    b.type = 'button';
    b.onclick = () => {
      $('choose-dialog').hidden = true;
      if (lastPlay) send('play', { cards: lastPlay, reading: i });
    };
    list.appendChild(b);
  });
  $('choose-dialog').hidden = readings.length === 0;
}

// Selects exactly the given cards: as many cards of each token as the list holds.
function selectCards(cards) {
  const need = {};
  for (const tok of toks(cards)) need[tok] = (need[tok] || 0) + 1;
  selected.clear();
  for (const it of handView()) {
    if (need[it.tok] > 0) { need[it.tok]--; selected.add(it.k); }
  }
  renderHand();
}

// The hint's cards selected; a hint to pass (nothing beats the trick, or the
// partner holds it) clears the selection and marks 不出 instead.
function applyHint(m) {
  $('btn-pass').classList.toggle('suggested', Boolean(m.pass));
  passHinted = m.pass ? m.why : null;
  if (m.pass) {
    selectCards('');
    flash(m.why === 'partner' ? 'hintPartner' : 'hintNothing');
  } else if (!toks(m.cards).length) { flash('noHint'); return; } else selectCards(m.cards);
  if (Number.isInteger(m.index) && Number.isInteger(m.count)) $('btn-hint').title = t('hintOf', { i: m.index + 1, n: m.count });
}

// The advisor's answer: shown in #advice until the turn passes, its cards selected (none: a pass).
function applyAdvice(m) {
  if (!state || !state.your_turn) return;
  advice = m;
  selectCards(m.cards);
  renderAdvice();
}

function adviceRow(v, best) {
  const tr = el('tr', best ? 'best' : null);
  tr.appendChild(el('td', 'a-cards', isPass(v) ? t('passed') : cardsText(v.cards)));
  tr.appendChild(el('td', 'a-kind', isPass(v) ? '' : kindName(v.kind)));
  tr.appendChild(el('td', 'num', typeof v.q === 'number' ? v.q.toFixed(3) : fmt(v.q)));
  return tr;
}

function renderAdvice() {
  const box = $('advice');
  box.hidden = !advice;
  if (!advice) return;
  box.textContent = '';
  box.appendChild(el('h3', null, t('adviceFrom', { name: advice.agent || state.advisor || '?' })));
  const play = el('div', 'advice-play');
  if (isPass(advice)) play.appendChild(el('span', 'pass-label', t('passed')));
  else {
    play.appendChild(cardsRow(advice.cards));
    play.appendChild(el('span', 'advice-kind', kindName(advice.kind)));
  }
  box.appendChild(play);
  if (!Array.isArray(advice.values) || !advice.values.length) return;
  const tbl = el('table', 'advice-table');
  const hr = el('tr');
  for (const c of [t('playCol'), t('kindCol'), t('qCol')]) hr.appendChild(el('th', null, c));
  tbl.appendChild(hr);
  const key = (a) => `${a.kind}|${toks(a.cards).join(' ')}`;
  for (const v of advice.values) tbl.appendChild(adviceRow(v, key(v) === key(advice)));
  box.appendChild(tbl);
}

function applyStatic() {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  document.title = t(REPLAY ? 'replayTitle' : 'title');
  for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = t(e.dataset.i18n);
  for (const e of document.querySelectorAll('[data-i18n-title]')) {
    e.title = t(e.dataset.i18nTitle);
    e.setAttribute('aria-label', e.title);
  }
  if (REPLAY) $('topbar').querySelector('.title').textContent = t('replayTitle');
  $('btn-lang').textContent = t('langSwitch');
  showMessage();
}

// ---------------------------------------------------------------- the replay viewer

// `?mode=replay&deal=K`: the deals of one file, served as frames (`GET /replay/deal/K`), one
// per action; the viewer only steps through them. The play controls give way to #replay-bar.
async function fetchJSON(url) {
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) throw new Error((await r.text()).trim() || `HTTP ${r.status}`);
  return r.json();
}

async function startReplay() {
  document.body.classList.add('replay');
  $('controls').hidden = true;
  $('hand').hidden = true;
  $('btn-leave').hidden = true;
  $('replay-bar').hidden = false;
  renderReplayBar(); // (disabled until a deal is loaded)
  const k = Number.parseInt(PARAMS.get('deal') ?? '0', 10);
  try {
    replay.index = await fetchJSON('/replay/index');
  } catch (e) {
    banner(t('loadFailed', { why: e.message }));
  }
  fillDealList();
  await loadDeal(Number.isInteger(k) ? k : 0);
}

function fillDealList() {
  const sel = $('replay-deal');
  const deals = (replay.index && Array.isArray(replay.index.deals)) ? replay.index.deals : [];
  sel.textContent = '';
  for (const d of deals) {
    const o = el('option', null, t('dealOption', { n: d.index, variant: d.variant ?? '', actions: d.actions ?? '?' }));
    o.value = d.index;
    sel.appendChild(o);
  }
  if (replay.deal) sel.value = String(replay.deal.index);
  sel.disabled = deals.length < 2;
}

async function loadDeal(k, step = 0) {
  let d;
  try {
    d = await fetchJSON(`/replay/deal/${encodeURIComponent(k)}`);
  } catch (e) {
    banner(t('loadFailed', { why: e.message }));
    return;
  }
  if (!d || !Array.isArray(d.frames) || !d.frames.length) { banner(t('loadFailed', { why: 'no frames' })); return; }
  banner('');
  replay.deal = d;
  const q = new URLSearchParams(location.search); // (the link names the deal shown)
  q.set('deal', String(d.index));
  history.replaceState(null, '', location.pathname + '?' + q + location.hash);
  $('replay-deal').value = String(d.index);
  $('replay-pos').max = String(d.frames.length - 1);
  showFrame(step);
}

// Shows frame i (the position after i actions) through the same rendering as the live table.
function showFrame(i) {
  const d = replay.deal;
  if (!d) return;
  replay.step = Math.max(0, Math.min(d.frames.length - 1, i));
  const f = d.frames[replay.step];
  state = { ...f, names: d.names || f.names, variant: d.variant || f.variant, seat: 0, your_turn: false };
  settleClosed = false;
  settleAt = 0; // (no pause before the settlement here)
  render();
}

const lastStep = () => (replay.deal ? replay.deal.frames.length - 1 : 0);
const startsTrick = (j) => !!replay.deal.frames[j].trick_start;

// The frame where the next trick starts, or the last frame.
function nextTrickStep() {
  for (let j = replay.step + 1; j <= lastStep(); j++) if (startsTrick(j)) return j;
  return lastStep();
}

// The start of the current trick, or of the previous one when already at a trick's start.
function prevTrickStep() {
  for (let j = replay.step - 1; j > 0; j--) if (startsTrick(j)) return j;
  return 0;
}

function renderReplayBar() {
  const d = replay.deal;
  const i = replay.step;
  const n = lastStep();
  for (const id of ['btn-first', 'btn-prev', 'btn-prev-trick']) $(id).disabled = !d || i <= 0;
  for (const id of ['btn-last', 'btn-next', 'btn-next-trick']) $(id).disabled = !d || i >= n;
  $('replay-pos').value = String(i);
  $('replay-pos').disabled = !d;
  $('replay-step').textContent = d ? t('stepOf', { i, n }) : '';
}

// Keys: ←/→ a step, Shift+←/→ or PageUp/PageDown a trick, Home/End the ends.
function replayKey(e) {
  if (!replay.deal || e.target.tagName === 'SELECT' || e.altKey || e.ctrlKey || e.metaKey) return;
  const go = {
    ArrowLeft: () => (e.shiftKey ? prevTrickStep() : replay.step - 1),
    ArrowRight: () => (e.shiftKey ? nextTrickStep() : replay.step + 1),
    PageUp: prevTrickStep,
    PageDown: nextTrickStep,
    Home: () => 0,
    End: lastStep,
  }[e.key];
  if (!go) return;
  e.preventDefault(); // (also the slider's own arrow keys: one step per press)
  showFrame(go());
}

$('btn-first').onclick = () => showFrame(0);
$('btn-prev-trick').onclick = () => showFrame(prevTrickStep());
$('btn-prev').onclick = () => showFrame(replay.step - 1);
$('btn-next').onclick = () => showFrame(replay.step + 1);
$('btn-next-trick').onclick = () => showFrame(nextTrickStep());
$('btn-last').onclick = () => showFrame(lastStep());
$('replay-pos').addEventListener('input', (e) => showFrame(Number(e.target.value)));
$('replay-deal').addEventListener('change', (e) => loadDeal(Number(e.target.value)));
$('history').addEventListener('click', (e) => {
  const li = REPLAY && e.target.closest('li[data-step]');
  if (li) showFrame(Number(li.dataset.step));
});

// ---------------------------------------------------------------- input

function setSel(card, on) {
  const k = Number(card.dataset.k);
  if (on) selected.add(k);
  else selected.delete(k);
  card.classList.toggle('selected', on);
}

// A press toggles a card; dragging on across the hand gives the other cards the same state.
$('hand').addEventListener('pointerdown', (e) => {
  const c = e.target.closest('.card');
  if (!c || e.button > 0) return;
  e.preventDefault();
  drag = { on: !c.classList.contains('selected'), seen: new Set([c.dataset.k]) };
  setSel(c, drag.on);
});
document.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const hit = document.elementFromPoint(e.clientX, e.clientY);
  const c = hit && hit.closest('#hand .card');
  if (c && !drag.seen.has(c.dataset.k)) { drag.seen.add(c.dataset.k); setSel(c, drag.on); }
});
for (const ev of ['pointerup', 'pointercancel']) document.addEventListener(ev, () => { drag = null; });

$('btn-play').onclick = () => {
  if (!state) return;
  const hand = toks(state.hand);
  const cards = [...selected].sort((a, b) => a - b).map((k) => hand[k]).filter(Boolean);
  if (!cards.length) { flash(passHinted === 'partner' ? 'hintPartner' : passHinted ? 'hintNothing' : 'selectFirst'); return; }
  lastPlay = cards;
  send('play', { cards });
};
$('btn-pass').onclick = () => send('pass');
$('btn-hint').onclick = () => send('hint');
$('btn-advise').onclick = () => send('advise');
$('btn-sort').onclick = () => {
  sortMode = sortMode === 'rank' ? 'groups' : 'rank';
  renderHand();
  renderButtons();
};
$('btn-auto').onclick = () => { if (state) send('auto', { on: !autoOf(mySeat()) }); };
$('btn-start').onclick = () => send('start');
$('btn-lang').onclick = () => {
  lang = lang === 'zh' ? 'en' : 'zh';
  const q = new URLSearchParams(location.search);
  if (lang === 'en') q.set('lang', 'en');
  else q.delete('lang');
  history.replaceState(null, '', location.pathname + (q.toString() ? '?' + q : '') + location.hash);
  applyStatic();
  if (REPLAY) fillDealList();
  render();
  renderButtons();
};
$('choose-cancel').onclick = () => { $('choose-dialog').hidden = true; };
$('btn-leave').onclick = () => { $('leave-dialog').hidden = false; };
$('leave-cancel').onclick = () => { $('leave-dialog').hidden = true; };
// 确定 leaves: `leave` puts the seat under 托管 as away (the link takes it back), then the socket closes.
$('leave-ok').onclick = () => {
  $('leave-dialog').hidden = true;
  leaving = true;
  if (ws && ws.readyState === WebSocket.OPEN) send('leave');
  if (ws) ws.close(1000, 'left'); // (queued messages go out before the close frame)
  else banner(t('left'), true);
  renderButtons();
};
$('btn-rejoin').onclick = () => { leaving = false; connect(); };
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') { $('choose-dialog').hidden = true; $('leave-dialog').hidden = true; }
  if (REPLAY) replayKey(e);
});

// A page put away in the back/forward cache would keep its socket open, and the seat would
// seem taken: close it (托管 plays the seat meanwhile), and connect again when it shows.
window.addEventListener('pagehide', () => {
  clearTimeout(retryTimer);
  const sock = ws;
  ws = null; // (its close event is then not a connection lost)
  if (sock) sock.close(1000, 'page hidden');
});
window.addEventListener('pageshow', (e) => {
  if (e.persisted && !REPLAY && !leaving) connect();
});

window.onbeforeunload = (e) => {
  if (!REPLAY && state && state.phase === 'playing' && !leaving) {
    e.preventDefault();
    e.returnValue = '';
    return '';
  }
  return undefined;
};

setInterval(renderStatus, 250); // the turn countdown
applyStatic();
if (REPLAY) startReplay();
else {
  renderButtons();
  connect();
}
