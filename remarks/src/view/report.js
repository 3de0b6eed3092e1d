// The script of `rld remarks view`'s report. It reads the data that remarks/src/view/mod.rs
// embeds in <script id="rld-data">, as JSON:
//
//   kinds       kind names, by kind code (Passed, Missed, Analysis, ...)
//   strings     the string table: every other string is an index into it
//   locs        argument locations, flat [file, line, column] triples
//   args        distinct arguments, flat [key, value, loc] triples (loc -1: none)
//   remarkArgs  indices into args: each remark's `nargs` arguments in turn
//   shown       flat [symbol, demangled] pairs: the Rust symbols among the strings (functions,
//               argument values) and the paths people read (`remarks_rs::compute`)
//   remarks     one array per field: kind, pass, name, function, file (-1: no DebugLoc),
//               line, column, nargs
//   hotness     flat [remark, hotness] pairs (hotness a string above 2^53)
//   files       every file a location names: {name, path, text} or {name, path, missing}
//
// A report can hold a million remarks, so the script keeps them in typed arrays, renders only
// the active view, tables a page at a time and source as a virtual list of fixed-height rows.
// It builds the DOM from text nodes only (it never parses a string as HTML), so no remark
// string or source line can become markup. The state (view, filters, file, line, open remark)
// lives in the URL's fragment, so links within the report are plain anchors and a view can be
// bookmarked.
'use strict';
(function () {
  const doc = document;
  const byId = (id) => doc.getElementById(id);

  /** An element with attributes and children; strings always become text nodes. */
  function h(tag, attrs, ...children) {
    const e = doc.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      // Links only ever point within the report.
      if (k === 'href' && !String(v).startsWith('#')) continue;
      e.setAttribute(k, String(v));
    }
    add(e, children);
    return e;
  }
  function add(parent, child) {
    if (child == null || child === false) return;
    if (Array.isArray(child)) child.forEach((c) => add(parent, c));
    else parent.append(child instanceof Node ? child : String(child));
  }
  const fmt = (n) => Number(n).toLocaleString('en-US');

  // ---- Data ----

  const dataElement = byId('rld-data');
  const data = JSON.parse(dataElement.textContent);
  // The page needs only the parsed form; dropping the text frees as much memory again.
  dataElement.textContent = '';
  const S = data.strings;
  const KINDS = data.kinds;
  const N = data.remarks.kind.length;
  const rKind = Uint8Array.from(data.remarks.kind);
  const rPass = Int32Array.from(data.remarks.pass);
  const rName = Int32Array.from(data.remarks.name);
  const rFunc = Int32Array.from(data.remarks.function);
  const rFile = Int32Array.from(data.remarks.file);
  const rLine = Float64Array.from(data.remarks.line);
  const rCol = Float64Array.from(data.remarks.column);
  const argStart = new Float64Array(N + 1);
  data.remarks.nargs.forEach((n, i) => { argStart[i + 1] = argStart[i] + n; });
  const remarkArgs = Int32Array.from(data.remarkArgs);
  const argKey = [], argVal = [], argLoc = [];
  for (let j = 0; j + 2 < data.args.length; j += 3) {
    argKey.push(data.args[j]); argVal.push(data.args[j + 1]); argLoc.push(data.args[j + 2]);
  }
  const locs = data.locs;
  /** A string as people read it: a Rust symbol's demangled path, anything else as it is. */
  const shownOf = new Map();
  for (let j = 0; j + 1 < data.shown.length; j += 2) shownOf.set(data.shown[j], data.shown[j + 1]);
  const label = (id) => { const d = shownOf.get(id); return S[d === undefined ? id : d]; };
  /** A tooltip naming the symbol behind a demangled string. */
  const symbolTitle = (id, what) => (shownOf.has(id) ? `${what ? what + ' ' : ''}(${S[id]})` : what || null);
  const hot = new Float64Array(N).fill(NaN);
  const hotText = new Map();
  for (let j = 0; j + 1 < data.hotness.length; j += 2) {
    const i = data.hotness[j], v = data.hotness[j + 1];
    hot[i] = Number(v);
    if (typeof v === 'string') hotText.set(i, v);
  }
  const hasHotness = data.hotness.length > 0;
  /** Source files by string index: {name, path, text} or {name, path, missing}. */
  const files = new Map(data.files.map((f) => [f.name, f]));
  const fileIdByName = new Map(data.files.map((f) => [S[f.name], f.name]));
  delete data.remarks;

  const kindTotal = new Array(KINDS.length).fill(0);
  for (let i = 0; i < N; i++) kindTotal[rKind[i]]++;
  /** The kinds that occur: only they get filter boxes and table columns. */
  const presentKinds = KINDS.map((_, k) => k).filter((k) => kindTotal[k] > 0);

  function message(i) {
    let s = '';
    for (let j = argStart[i]; j < argStart[i + 1]; j++) s += label(argVal[remarkArgs[j]]);
    return s;
  }
  const hotness = (i) => (hotText.has(i) ? hotText.get(i) : Number.isNaN(hot[i]) ? '' : fmt(hot[i]));

  /** Sort ranks of the strings that name passes, functions, files (computed when first sorted by). */
  let rankCache = null;
  function rank() {
    if (rankCache) return rankCache;
    const seen = new Uint8Array(S.length);
    const ids = [];
    for (const column of [rPass, rName, rFunc, rFile]) {
      for (let i = 0; i < N; i++) {
        const id = column[i];
        if (id >= 0 && !seen[id]) { seen[id] = 1; ids.push(id); }
      }
    }
    ids.sort((a, b) => { const x = label(a), y = label(b); return x < y ? -1 : x > y ? 1 : 0; });
    rankCache = new Int32Array(S.length);
    ids.forEach((id, r) => { rankCache[id] = r; });
    return rankCache;
  }
  const fileRank = (id) => (id < 0 ? -1 : rank()[id]);
  /** Sort keys of a remark's location: file, line, column. */
  const locationKeys = [(i) => fileRank(rFile[i]), (i) => rLine[i], (i) => rCol[i]];
  /** Remarks without hotness sort as the coldest. */
  const hotnessKey = (i) => (Number.isNaN(hot[i]) ? -Infinity : hot[i]);

  // ---- State, kept in the URL fragment ----

  const VIEWS = [['summary', 'Summary'], ['remarks', 'Remarks'], ['functions', 'Functions'], ['files', 'Files'], ['source', 'Source']];
  const state = { tab: 'summary', kinds: null, pass: '', name: '', func: '', file: '', q: '', src: '', line: 0, remark: -1 };

  function params(s) {
    const p = new URLSearchParams();
    if (s.tab !== 'summary') p.set('tab', s.tab);
    if (s.kinds) p.set('kind', [...s.kinds].sort().map((k) => KINDS[k]).join(','));
    for (const k of ['pass', 'name', 'func', 'file', 'q', 'src']) if (s[k]) p.set(k, s[k]);
    if (s.line > 0) p.set('line', String(s.line));
    if (s.remark >= 0) p.set('remark', String(s.remark));
    return '#' + p.toString();
  }
  /** A link target: the current view and filters changed by `patch`; line and open remark only if given. */
  const hashFor = (patch) => params(Object.assign({}, state, { line: 0, remark: -1 }, patch));

  function parseHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const tab = p.get('tab');
    const kinds = p.get('kind');
    const remark = parseInt(p.get('remark'), 10);
    return {
      tab: VIEWS.some(([v]) => v === tab) ? tab : 'summary',
      kinds: kinds == null ? null : new Set(kinds.split(',').map((n) => KINDS.indexOf(n)).filter((k) => k >= 0)),
      pass: p.get('pass') || '',
      name: p.get('name') || '',
      func: p.get('func') || '',
      file: p.get('file') || '',
      q: p.get('q') || '',
      src: p.get('src') || '',
      line: Math.max(0, parseInt(p.get('line'), 10) || 0),
      remark: remark >= 0 && remark < N ? remark : -1,
    };
  }

  /** Changes the state from the page's own controls; `push` makes a history entry. */
  function setState(patch, push) {
    Object.assign(state, patch);
    const hash = params(state);
    if (location.hash !== hash) {
      try {
        history[push ? 'pushState' : 'replaceState'](null, '', hash);
      } catch (e) {
        // Some browsers refuse history changes on file: URLs; the state still applies.
      }
    }
    update();
  }

  // ---- Filtering ----

  /**
   * Matches string indices against a filter: a case-insensitive substring, or `=exact`; a Rust
   * symbol matches as written or demangled.
   */
  function stringMatcher(query, allowExact) {
    if (!query) return null;
    if (allowExact && query.startsWith('=')) {
      const want = query.slice(1);
      return (id) => id >= 0 && (S[id] === want || label(id) === want);
    }
    const needle = query.toLowerCase();
    const memo = new Int8Array(S.length);
    return (id) => {
      if (id < 0) return false;
      if (memo[id] === 0) {
        memo[id] = S[id].toLowerCase().includes(needle) || label(id).toLowerCase().includes(needle) ? 1 : -1;
      }
      return memo[id] > 0;
    };
  }

  const distinct = (column) => {
    const counts = new Map();
    for (let i = 0; i < N; i++) counts.set(column[i], (counts.get(column[i]) || 0) + 1);
    return [...counts].sort((a, b) => (S[a[0]] < S[b[0]] ? -1 : S[a[0]] > S[b[0]] ? 1 : 0));
  };
  const passes = distinct(rPass);
  const names = distinct(rName);
  const idIn = (list, s) => { const e = list.find(([id]) => S[id] === s); return e ? e[0] : -2; };

  function computeMatching() {
    const kindOk = KINDS.map((_, k) => !state.kinds || state.kinds.has(k));
    const pass = state.pass ? idIn(passes, state.pass) : -1;
    const name = state.name ? idIn(names, state.name) : -1;
    const func = stringMatcher(state.func, true);
    const file = stringMatcher(state.file, true);
    const text = stringMatcher(state.q, false);
    const needle = state.q.toLowerCase();
    const out = new Uint32Array(N);
    let n = 0;
    for (let i = 0; i < N; i++) {
      if (!kindOk[rKind[i]]) continue;
      if (pass !== -1 && rPass[i] !== pass) continue;
      if (name !== -1 && rName[i] !== name) continue;
      if (func && !func(rFunc[i])) continue;
      if (file && !file(rFile[i])) continue;
      if (text && !(text(rFunc[i]) || text(rPass[i]) || text(rName[i]) || text(rFile[i]) ||
          message(i).toLowerCase().includes(needle))) continue;
      out[n++] = i;
    }
    return out.slice(0, n);
  }

  /** Counts of the matching remarks per group: [total, by kind...] for each group. */
  function groupCounts(keyOf) {
    const K1 = KINDS.length + 1;
    const index = new Map();
    const keys = [], first = [];
    let counts = new Uint32Array(64 * K1);
    for (const i of matching) {
      const key = keyOf(i);
      let g = index.get(key);
      if (g === undefined) {
        g = keys.length;
        index.set(key, g);
        keys.push(key);
        first.push(i);
        if ((g + 1) * K1 > counts.length) {
          const grown = new Uint32Array(counts.length * 2);
          grown.set(counts);
          counts = grown;
        }
      }
      counts[g * K1]++;
      counts[g * K1 + 1 + rKind[i]]++;
    }
    return { keys, first, counts, total: (g) => counts[g * K1], kind: (g, k) => counts[g * K1 + 1 + k], rows: keys.map((_, g) => g) };
  }

  // ---- Pieces of views ----

  const kindBadge = (k) => h('span', { class: 'kind kind-' + KINDS[k] }, KINDS[k]);
  function locationLink(file, line, column) {
    if (file < 0) return h('span', { class: 'empty' }, 'no location');
    return h('a', { href: hashFor({ tab: 'source', src: S[file], line }) }, S[file] + ':' + line + ':' + column);
  }
  const functionLink = (id) => h('a', { href: hashFor({ tab: 'remarks', func: '=' + S[id] }), title: symbolTitle(id, 'Remarks in this function') }, label(id));
  const clip = (s, n) => (s.length > n ? s.slice(0, n) + '\u2026' : s);

  /** Count columns for a grouped table: total, then one per kind that occurs. */
  function countColumns(groups) {
    return [{ title: 'Total', num: true, keys: [groups.total], cell: (g) => fmt(groups.total(g)) }]
      .concat(presentKinds.map((k) => ({ title: KINDS[k], num: true, keys: [(g) => groups.kind(g, k)], cell: (g) => fmt(groups.kind(g, k)) })));
  }

  /**
   * Each value's rank among the distinct values (0 for the smallest), and how many there are.
   * Integers in a small range are their own ranks; other values are ranked by a native sort
   * of a typed array (an unsigned one when they fit, several times faster than doubles).
   */
  function denseRanks(values) {
    const n = values.length;
    let min = Infinity, max = -Infinity, integers = true;
    for (let p = 0; p < n; p++) {
      const v = values[p];
      if (v < min) min = v;
      if (v > max) max = v;
      if (integers && !Number.isInteger(v)) integers = false;
    }
    const ranks = new Uint32Array(n);
    if (n === 0) return { ranks, count: 0 };
    if (integers && max - min <= 4 * n + 1024) {
      for (let p = 0; p < n; p++) ranks[p] = values[p] - min;
      return { ranks, count: max - min + 1 };
    }
    const unsigned = integers && min >= 0 && max < 4294967296;
    const distinct = (unsigned ? Uint32Array : Float64Array).from(values).sort();
    let count = 0;
    for (let p = 0; p < n; p++) if (count === 0 || distinct[p] !== distinct[count - 1]) distinct[count++] = distinct[p];
    for (let p = 0; p < n; p++) {
      let lo = 0, hi = count - 1;
      const v = values[p];
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (distinct[mid] < v) lo = mid + 1; else hi = mid;
      }
      ranks[p] = lo;
    }
    return { ranks, count };
  }

  /**
   * The order of `rows` by `keys` (functions giving each row a number, most significant
   * first), equal rows keeping their order: a stable counting sort per key, least significant
   * first. Comparator sorts take seconds on a million rows; this takes a fraction of one.
   */
  function sortRows(rows, keys, descending) {
    const n = rows.length;
    let order = new Uint32Array(n), next = new Uint32Array(n);
    for (let p = 0; p < n; p++) order[p] = p;
    const values = new Float64Array(n);
    for (let k = keys.length - 1; k >= 0; k--) {
      for (let p = 0; p < n; p++) values[p] = keys[k](rows[p]);
      const { ranks, count } = denseRanks(values);
      if (descending) for (let p = 0; p < n; p++) ranks[p] = count - 1 - ranks[p];
      const start = new Uint32Array(count + 1);
      for (let p = 0; p < n; p++) start[ranks[p] + 1]++;
      for (let r = 0; r < count; r++) start[r + 1] += start[r];
      for (let p = 0; p < n; p++) next[start[ranks[order[p]]]++] = order[p];
      [order, next] = [next, order];
    }
    for (let p = 0; p < n; p++) order[p] = rows[order[p]];
    return order;
  }

  /**
   * A table of row ids, a page at a time. Columns with `keys` (functions giving a row a
   * number, most significant first; never NaN) can sort the table.
   */
  class Table {
    constructor(columns, options) {
      this.columns = columns;
      this.options = options || {};
      this.sort = this.options.sort == null ? -1 : this.options.sort;
      this.desc = !!this.options.desc;
      this.pageSize = this.options.pageSize || 100;
      this.page = 0;
      this.rows = [];
      this.sorted = null;
      this.el = h('div', { class: 'table' });
    }
    setRows(rows) {
      this.rows = rows;
      this.sorted = null;
      this.page = 0;
      this.render();
      return this.el;
    }
    order() {
      if (!this.sorted) {
        const column = this.columns[this.sort];
        this.sorted = column && column.keys ? sortRows(this.rows, column.keys, this.desc) : this.rows;
      }
      return this.sorted;
    }
    sortBy(k) {
      if (this.sort === k) this.desc = !this.desc;
      else { this.sort = k; this.desc = !!this.columns[k].num; }
      this.sorted = null;
      this.page = 0;
      this.render();
    }
    render() {
      const rows = this.order();
      const pages = Math.max(1, Math.ceil(rows.length / this.pageSize));
      this.page = Math.min(Math.max(0, this.page), pages - 1);
      const start = this.page * this.pageSize, end = Math.min(rows.length, start + this.pageSize);
      const head = h('tr', null, this.columns.map((c, k) => {
        const th = h('th', { scope: 'col', class: [c.num ? 'num' : '', c.keys ? 'sortable' : ''].join(' ').trim() || null }, c.title);
        if (c.keys) {
          th.setAttribute('aria-sort', k === this.sort ? (this.desc ? 'descending' : 'ascending') : 'none');
          th.tabIndex = 0;
          th.title = 'Sort by ' + c.title;
          th.addEventListener('click', () => this.sortBy(k));
          th.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.sortBy(k); });
        }
        return th;
      }));
      const body = h('tbody');
      for (let p = start; p < end; p++) {
        const row = rows[p];
        const tr = h('tr', { class: this.options.onRow ? 'clickable' : null },
          this.columns.map((c) => h('td', { class: c.num ? 'num' : c.cls }, c.cell(row))));
        if (this.options.onRow) {
          tr.addEventListener('click', (e) => { if (!e.target.closest('a')) this.options.onRow(row); });
        }
        body.append(tr);
      }
      const table = rows.length ? h('table', { class: 'grid' }, h('thead', null, head), body)
        : h('p', { class: 'empty' }, this.options.empty || 'Nothing matches the filters.');
      this.el.replaceChildren(table, this.pager(rows.length, start, end, pages));
    }
    pager(count, start, end, pages) {
      const go = (page) => { this.page = page; this.render(); };
      const button = (label, page, title) => {
        const b = h('button', { type: 'button', title }, label);
        b.disabled = page === this.page || page < 0 || page >= pages;
        b.addEventListener('click', () => go(page));
        return b;
      };
      const what = this.options.what || 'rows';
      return h('div', { class: 'pager' },
        pages > 1 ? [button('\u00ab', 0, 'First page'), button('\u2039', this.page - 1, 'Previous page'),
          button('\u203a', this.page + 1, 'Next page'), button('\u00bb', pages - 1, 'Last page')] : null,
        count ? `${fmt(start + 1)}\u2013${fmt(end)} of ${fmt(count)} ${what}` : '');
    }
  }

  /**
   * A scrolling list of `count` fixed-height rows of which only those on screen exist. Browsers
   * cap an element's height (~17M px in Firefox), so beyond MAX_PX the scroll position maps to
   * a row proportionally instead of one pixel per pixel.
   */
  class VirtualList {
    constructor(renderRow) {
      this.renderRow = renderRow;
      this.count = 0;
      this.rowHeight = 20;
      this.spacer = h('div', { class: 'spacer' });
      this.rows = h('div', { class: 'rows' });
      this.el = h('div', { class: 'viewport', tabindex: 0 }, this.spacer, this.rows);
      this.pending = false;
      this.el.addEventListener('scroll', () => {
        if (this.pending) return;
        this.pending = true;
        requestAnimationFrame(() => { this.pending = false; this.render(); });
      });
      // The viewport's height follows the window's.
      new ResizeObserver(() => { if (this.count) this.render(); }).observe(this.el);
    }
    static get MAX_PX() { return 8e6; }
    setCount(count) {
      this.count = count;
      this.spacer.style.height = Math.min(count * this.rowHeight, VirtualList.MAX_PX) + 'px';
    }
    visibleRows() { return Math.max(1, Math.ceil(this.el.clientHeight / this.rowHeight)); }
    scaled() { return this.count * this.rowHeight > VirtualList.MAX_PX; }
    firstRow() {
      const top = this.el.scrollTop;
      // Where scrollToRow left it, exactly (the scaled mapping back could round down).
      if (this.anchor && this.anchor.top === top) return this.anchor.row;
      if (!this.scaled()) return Math.floor(top / this.rowHeight);
      const range = Math.max(1, VirtualList.MAX_PX - this.el.clientHeight);
      return Math.floor(Math.min(1, top / range) * Math.max(0, this.count - this.visibleRows()));
    }
    scrollToRow(row) {
      row = Math.max(0, Math.min(row, this.count - 1));
      if (!this.scaled()) this.el.scrollTop = row * this.rowHeight;
      else {
        const range = Math.max(1, VirtualList.MAX_PX - this.el.clientHeight);
        this.el.scrollTop = (row / Math.max(1, this.count - this.visibleRows())) * range;
      }
      this.anchor = { top: this.el.scrollTop, row };
      this.render();
    }
    render() {
      const first = Math.max(0, Math.min(this.firstRow(), this.count - 1));
      const last = Math.min(this.count, first + this.visibleRows() + 2);
      const offset = this.scaled() ? this.el.scrollTop : first * this.rowHeight;
      this.rows.style.transform = `translateY(${offset}px)`;
      const nodes = [];
      for (let r = first; r < last; r++) nodes.push(this.renderRow(r));
      this.rows.replaceChildren(...nodes);
    }
  }

  // ---- Views ----

  let matching = new Uint32Array(0);
  let matchingKey = null;
  const rendered = {};

  const views = {
    summary(root) {
      const all = presentKinds.map((k) => {
        let n = 0;
        for (const i of matching) if (rKind[i] === k) n++;
        const off = state.kinds && !state.kinds.has(k);
        return h('a', { class: 'card' + (off ? ' off' : ''), href: hashFor({ tab: 'remarks', kinds: new Set([k]) }), 'data-kind': KINDS[k] },
          kindBadge(k), h('span', { class: 'n' }, fmt(n)), n === kindTotal[k] ? 'remarks' : `of ${fmt(kindTotal[k])}`);
      });
      const byPass = groupCounts((i) => rPass[i]);
      const passTable = new Table([
        { title: 'Pass', keys: [(g) => rank()[byPass.keys[g]]],
          cell: (g) => h('a', { href: hashFor({ tab: 'remarks', pass: S[byPass.keys[g]] }) }, S[byPass.keys[g]]) },
      ].concat(countColumns(byPass)), { sort: 1, desc: true, what: 'passes' });
      const width = S.length + 1;
      const byName = groupCounts((i) => rPass[i] * width + rName[i]);
      const passOf = (g) => Math.floor(byName.keys[g] / width), nameOf = (g) => byName.keys[g] % width;
      const nameTable = new Table([
        { title: 'Pass', keys: [(g) => rank()[passOf(g)]], cell: (g) => S[passOf(g)] },
        { title: 'Name', keys: [(g) => rank()[nameOf(g)]],
          cell: (g) => h('a', { href: hashFor({ tab: 'remarks', pass: S[passOf(g)], name: S[nameOf(g)] }) }, S[nameOf(g)]) },
      ].concat(countColumns(byName)), { sort: 2, desc: true, what: 'names' });
      const nFiles = new Set(), nFuncs = new Set();
      for (const i of matching) { nFiles.add(rFile[i]); nFuncs.add(rFunc[i]); }
      nFiles.delete(-1);
      root.replaceChildren(
        h('h2', null, 'Remarks by kind'),
        h('p', { id: 'summary-total' }, `${fmt(matching.length)} remarks in ${fmt(nFuncs.size)} functions and ${fmt(nFiles.size)} files`
          + (matching.length < N ? ` (of ${fmt(N)} in all)` : '') + '.'),
        h('div', { class: 'cards' }, all),
        h('h2', null, 'By pass'), passTable.setRows(byPass.rows),
        h('h2', null, 'By pass and remark name'), nameTable.setRows(byName.rows));
    },

    remarks(root) {
      const columns = [
        { title: 'Kind', keys: [(i) => rKind[i]], cell: (i) => kindBadge(rKind[i]) },
        { title: 'Location', cls: 'loc', keys: locationKeys, cell: (i) => locationLink(rFile[i], rLine[i], rCol[i]) },
        { title: 'Function', cls: 'fn', keys: [(i) => rank()[rFunc[i]]], cell: (i) => functionLink(rFunc[i]) },
        { title: 'Pass', keys: [(i) => rank()[rPass[i]]], cell: (i) => S[rPass[i]] },
        { title: 'Name', keys: [(i) => rank()[rName[i]]], cell: (i) => S[rName[i]] },
        { title: 'Message', cls: 'msg', cell: (i) => clip(message(i), 400) },
      ];
      if (hasHotness) columns.push({ title: 'Hotness', num: true, keys: [hotnessKey], cell: hotness });
      // With a profile, hottest first, as opt-viewer does; otherwise the remark files' order.
      const table = rendered.remarksTable || new Table(columns, {
        sort: hasHotness ? columns.length - 1 : -1, desc: true, what: 'remarks',
        onRow: (i) => setState({ remark: i }, true),
      });
      rendered.remarksTable = table;
      root.replaceChildren(table.setRows(matching));
    },

    functions(root) {
      const groups = groupCounts((i) => rFunc[i]);
      const table = new Table([
        { title: 'Function', cls: 'fn', keys: [(g) => rank()[groups.keys[g]]], cell: (g) => functionLink(groups.keys[g]) },
        { title: 'First remark at', cls: 'loc', keys: locationKeys.map((key) => (g) => key(groups.first[g])),
          cell: (g) => { const i = groups.first[g]; return locationLink(rFile[i], rLine[i], rCol[i]); } },
      ].concat(countColumns(groups)), { sort: 2, desc: true, what: 'functions' });
      root.replaceChildren(table.setRows(groups.rows));
    },

    files(root) {
      const groups = groupCounts((i) => rFile[i]);
      const table = new Table([
        { title: 'File', cls: 'loc', keys: [(g) => fileRank(groups.keys[g])],
          cell: (g) => {
            const id = groups.keys[g];
            return id < 0 ? h('span', { class: 'empty' }, 'no location') : h('a', { href: hashFor({ tab: 'source', src: S[id] }) }, S[id]);
          } },
        { title: 'Source', cell: (g) => {
          const f = files.get(groups.keys[g]);
          return !f ? '' : f.text != null ? 'embedded' : h('span', { class: 'note', title: f.path }, f.missing);
        } },
      ].concat(countColumns(groups)), { sort: 2, desc: true, what: 'files' });
      root.replaceChildren(table.setRows(groups.rows));
    },

    source(root) { renderSource(root); },
  };

  // ---- Source view ----

  /** The selected file's rows: line numbers, and for remark rows the remark (-1 for source lines). */
  const source = { file: -2, key: null, lines: null, rowLine: new Float64Array(0), rowRemark: new Int32Array(0), list: null };

  function sourceRows(fileId) {
    const info = files.get(fileId);
    let lines = null;
    if (info && info.text != null) {
      lines = info.text.split(/\r?\n/);
      if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    }
    const list = [];
    for (const i of matching) if (rFile[i] === fileId) list.push(i);
    list.sort((a, b) => rLine[a] - rLine[b] || rCol[a] - rCol[b] || a - b);
    const rowLine = [], rowRemark = [];
    let p = 0;
    const emit = (line) => {
      rowLine.push(line); rowRemark.push(-1);
      for (; p < list.length && rLine[list[p]] === line; p++) { rowLine.push(line); rowRemark.push(list[p]); }
    };
    // Line 0 (LLVM's "unknown line") first; lines past the end (a stale source) after it.
    while (p < list.length && rLine[list[p]] < 1) emit(rLine[list[p]]);
    if (lines) for (let line = 1; line <= lines.length; line++) emit(line);
    while (p < list.length) emit(rLine[list[p]]);
    Object.assign(source, { file: fileId, lines, list, rowLine: Float64Array.from(rowLine), rowRemark: Int32Array.from(rowRemark) });
  }

  function renderSourceRow(r) {
    const line = source.rowLine[r], i = source.rowRemark[r];
    if (i < 0) {
      const text = source.lines && line >= 1 && line <= source.lines.length ? source.lines[line - 1] : null;
      const cls = 'row src' + (text == null ? ' nosrc' : '') + (state.line > 0 && line === state.line ? ' target' : '');
      return h('div', { class: cls, 'data-line': line }, h('span', { class: 'ln' }, line),
        h('span', { class: 'code' }, text != null ? text : line < 1 ? '(no line)' : source.lines ? '(past the end of the file)' : '(source not embedded)'));
    }
    const msg = message(i);
    const text = h('span', { class: 'text' }, kindBadge(rKind[i]), ' ', S[rPass[i]] + '/' + S[rName[i]] + ': ', clip(msg, 1000),
      h('span', { class: 'where' }, ` \u2014 in ${label(rFunc[i])}` + (Number.isNaN(hot[i]) ? '' : `, hotness ${hotness(i)}`)));
    text.style.paddingLeft = `calc(8px + ${Math.min(Math.max(0, rCol[i] - 1), 80)}ch)`;
    const row = h('div', { class: 'row remark', 'data-line': line, 'data-remark': i, title: msg }, h('span', { class: 'ln' }), text);
    row.addEventListener('click', () => setState({ remark: i }, true));
    return row;
  }

  const sourceList = new VirtualList(renderSourceRow);

  function renderSource(root) {
    // The file: the chosen one, else the one with the most matching remarks.
    let fileId = fileIdByName.has(state.src) ? fileIdByName.get(state.src) : -1;
    const counts = groupCounts((i) => rFile[i]);
    if (fileId < 0) {
      let best = -1;
      counts.rows.forEach((g) => { if (counts.keys[g] >= 0 && (best < 0 || counts.total(g) > counts.total(best))) best = g; });
      fileId = best >= 0 ? counts.keys[best] : data.files.length ? data.files[0].name : -1;
    }
    if (fileId < 0) {
      root.replaceChildren(h('p', { class: 'empty' }, 'No remark has a source location.'));
      return;
    }
    const countOf = new Map(counts.keys.map((k, g) => [k, counts.total(g)]));
    const select = h('select', { id: 'source-file', 'aria-label': 'File' },
      [...files.values()].sort((a, b) => (S[a.name] < S[b.name] ? -1 : 1)).map((f) =>
        h('option', { value: S[f.name] }, `${S[f.name]} (${fmt(countOf.get(f.name) || 0)})`)));
    select.value = S[fileId];
    select.addEventListener('change', () => setState({ src: select.value, line: 0 }, true));
    const lineInput = h('input', { type: 'number', min: 1, placeholder: 'line', 'aria-label': 'Go to line' });
    const go = () => { const n = parseInt(lineInput.value, 10); if (n > 0) setState({ line: n }, true); };
    lineInput.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
    const goButton = h('button', { type: 'button' }, 'Go');
    goButton.addEventListener('click', go);
    const previous = h('button', { type: 'button', title: 'Previous line with remarks' }, '\u2191 Previous remark');
    previous.addEventListener('click', () => jumpToRemark(-1));
    const next = h('button', { type: 'button', title: 'Next line with remarks' }, 'Next remark \u2193');
    next.addEventListener('click', () => jumpToRemark(1));

    const key = fileId + '|' + matchingKey;
    if (source.key !== key) { sourceRows(fileId); source.key = key; }
    const info = files.get(fileId);
    const note = info && info.text == null
      ? `Source not embedded (${info.path}: ${info.missing}); remarks are listed by line.` : '';
    root.replaceChildren(
      h('div', { class: 'source-bar' }, h('label', null, 'File ', select), h('span', null, lineInput, ' ', goButton), h('span', null, previous, ' ', next),
        h('span', { id: 'source-count' }, `${fmt(source.list.length)} matching remarks in this file`),
        note ? h('span', { class: 'note', id: 'source-note' }, note) : null),
      sourceList.el);
    sourceList.setCount(source.rowLine.length);
    // Scroll so that the chosen line (or the first remark) is near the top.
    const want = state.line > 0 ? state.line : source.list.length ? rLine[source.list[0]] : 0;
    showLine(want);
  }

  /** Scrolls the source so that `line` is the fourth row. */
  function showLine(line) {
    let lo = 0, hi = source.rowLine.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (source.rowLine[mid] < line) lo = mid + 1; else hi = mid; }
    sourceList.scrollToRow(Math.max(0, lo - 3));
  }

  /** Scrolls to the next (`step` 1) or previous (-1) line with remarks. */
  function jumpToRemark(step) {
    const lines = source.rowLine, remarks = source.rowRemark;
    if (!lines.length) return;
    const current = lines[Math.min(lines.length - 1, sourceList.firstRow() + 3)];
    for (let r = sourceList.firstRow() + 3; r >= 0 && r < lines.length; r += step) {
      if (remarks[r] >= 0 && (step > 0 ? lines[r] > current : lines[r] < current)) {
        showLine(lines[r]);
        return;
      }
    }
  }

  // ---- Details of one remark ----

  function renderDetails() {
    const panel = byId('details');
    const i = state.remark;
    if (i < 0 || i >= N) { panel.hidden = true; panel.replaceChildren(); return; }
    const close = h('button', { type: 'button', class: 'close', title: 'Close (Esc)' }, 'Close');
    close.addEventListener('click', () => setState({ remark: -1 }, true));
    const args = [];
    for (let j = argStart[i]; j < argStart[i + 1]; j++) {
      const a = remarkArgs[j], loc = argLoc[a];
      args.push(h('tr', null, h('td', null, S[argKey[a]]), h('td', { class: 'msg', title: symbolTitle(argVal[a]) }, label(argVal[a])),
        h('td', { class: 'loc' }, loc >= 0 ? locationLink(locs[3 * loc], locs[3 * loc + 1], locs[3 * loc + 2]) : '')));
    }
    panel.replaceChildren(close,
      h('div', null, kindBadge(rKind[i]), ' ', h('strong', null, S[rPass[i]] + '/' + S[rName[i]])),
      h('p', { class: 'message' }, message(i)),
      h('dl', null,
        h('dt', null, 'Function'), h('dd', null, functionLink(rFunc[i])),
        shownOf.has(rFunc[i]) ? [h('dt', null, 'Symbol'), h('dd', { class: 'symbol' }, S[rFunc[i]])] : null,
        h('dt', null, 'Location'), h('dd', null, locationLink(rFile[i], rLine[i], rCol[i])),
        hasHotness ? [h('dt', null, 'Hotness'), h('dd', null, hotness(i) || 'none')] : null),
      args.length ? h('table', { class: 'grid' }, h('thead', null, h('tr', null, h('th', null, 'Argument'), h('th', null, 'Value'), h('th', null, 'Location'))),
        h('tbody', null, args)) : null);
    panel.hidden = false;
  }

  // ---- Controls ----

  const kindBoxes = presentKinds.map((k) => {
    const box = h('input', { type: 'checkbox', value: KINDS[k] });
    box.addEventListener('change', () => {
      const on = new Set(kindBoxes.filter(([, b]) => b.checked).map(([kk]) => kk));
      setState({ kinds: on.size === presentKinds.length ? null : on });
    });
    byId('kind-filter').append(h('label', { title: `${fmt(kindTotal[k])} remarks` }, box, kindBadge(k)));
    return [k, box];
  });
  const passSelect = byId('pass-filter'), nameSelect = byId('name-filter');
  for (const [id, n] of passes) passSelect.append(h('option', { value: S[id] }, `${S[id]} (${fmt(n)})`));
  for (const [id, n] of names) nameSelect.append(h('option', { value: S[id] }, `${S[id]} (${fmt(n)})`));
  passSelect.addEventListener('change', () => setState({ pass: passSelect.value }));
  nameSelect.addEventListener('change', () => setState({ name: nameSelect.value }));
  const textInputs = [['function-filter', 'func'], ['file-filter', 'file'], ['text-filter', 'q']].map(([id, key]) => {
    const input = byId(id);
    let timer = 0;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => setState({ [key]: input.value }), 250);
    });
    return [input, key];
  });
  byId('reset-filters').addEventListener('click', () =>
    setState({ kinds: null, pass: '', name: '', func: '', file: '', q: '' }, true));
  doc.addEventListener('keydown', (e) => { if (e.key === 'Escape' && state.remark >= 0) setState({ remark: -1 }, true); });
  window.addEventListener('hashchange', () => { Object.assign(state, parseHash()); update(); });

  function syncControls() {
    for (const [k, box] of kindBoxes) box.checked = !state.kinds || state.kinds.has(k);
    // A value the data lacks still shows, so that the empty result is explained.
    for (const [select, value] of [[passSelect, state.pass], [nameSelect, state.name]]) {
      if (value && ![...select.options].some((o) => o.value === value)) select.append(h('option', { value }, value + ' (0)'));
      select.value = value;
    }
    for (const [input, key] of textInputs) if (input.value !== state[key] && doc.activeElement !== input) input.value = state[key];
  }

  // ---- Rendering ----

  const tabs = byId('tabs');
  let shown = { tab: null, src: null, line: null };

  function update() {
    const key = JSON.stringify([state.kinds && [...state.kinds].sort(), state.pass, state.name, state.func, state.file, state.q]);
    const filtersChanged = key !== matchingKey;
    if (filtersChanged) {
      matching = computeMatching();
      matchingKey = key;
    }
    syncControls();
    tabs.replaceChildren(...VIEWS.map(([v, title]) =>
      h('a', { href: hashFor({ tab: v }), 'aria-current': state.tab === v ? 'page' : null, 'data-view': v }, title)));
    byId('match-count').textContent = `${fmt(matching.length)} of ${fmt(N)} remarks match`;
    const tab = state.tab;
    const stale = filtersChanged || shown.tab !== tab || (tab === 'source' && (shown.src !== state.src || shown.line !== state.line));
    for (const [v] of VIEWS) byId('view-' + v).hidden = v !== tab;
    if (stale) {
      views[tab](byId('view-' + tab));
      shown = { tab, src: state.src, line: state.line };
    }
    renderDetails();
  }

  Object.assign(state, parseHash());
  byId('loading').hidden = true;
  update();
  // For tests and measurements: the number of remarks, and the time to first render.
  doc.documentElement.setAttribute('data-ready', String(N));
  doc.documentElement.setAttribute('data-ready-ms', String(Math.round(performance.now())));
})();
