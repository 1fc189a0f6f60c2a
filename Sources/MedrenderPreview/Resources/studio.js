// The studio's page script, served as /studio/studio.js beside the page (StudioPage.swift).
(function () {
  'use strict';
  function $(id) { return document.getElementById(id); }
  // Milliseconds after the last change before the plan is asked for: the page says, on this tag.
  var debounceMs = +document.currentScript.getAttribute('data-debounce-ms');
  var yamlEl = $('yaml'), gutter = $('gutter'), errorBox = $('yaml-error'), timelineEl = $('timeline');
  var audio = $('audio'), circle = $('circle'), label = $('label'), stage = $('stage'), clockEl = $('clock');
  var phaseIds = ['f-inhale', 'f-hold-in', 'f-exhale', 'f-hold-out'];
  var state = { data: null, point: 0, offset: 0, playing: false, take: null, takeYaml: null, seq: 0, shown: 0,
                typedAt: 0, redrawMs: null, errors: [] };

  // ---- The form from the YAML, and the YAML from the form. Both go through the server's outline
  // of the YAML (below): where each value is, and what it reads as. The form writes a value where
  // the outline says it is; the next plan's outline says whether the YAML now reads that value.
  function patternPhases(v) {
    var m = v === null ? null : /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(v.trim());
    return m ? [m[1], m[2], m[3], m[4]] : null;
  }
  // The path of the beds' list: `ambience` itself, or its `beds`.
  function bedsPath() {
    if (outline.ambience && outline.ambience.kind === 'list') { return 'ambience'; }
    return outline['ambience.beds'] && outline['ambience.beds'].kind === 'list' ? 'ambience.beds' : null;
  }
  function fillTop() {
    var phases = patternPhases(value('pattern'));
    phaseIds.forEach(function (id, i) { var el = $(id); el.disabled = !phases; put(el, phases ? phases[i] : ''); });
    $('pattern-note').hidden = !!phases || !outline.pattern && !outline.segments;
    var unit = outline.cycles ? 'cycles' : 'minutes';
    put($('f-length-unit'), unit);
    $('f-minutes-label').textContent = unit === 'cycles' ? 'Cycles' : 'Minutes';
    put($('f-minutes'), number(value(unit) || ''));
    var base = bedsPath(), count = base ? outline[base].count : 0, holder = $('beds'), sounds = [];
    for (var i = 0; i < count; i++) {
      var p = base + '[' + i + ']';
      sounds.push(value(p + '.sound') || value(p + '.generator') || value(p) || 'bed ' + (i + 1));
    }
    if (holder.getAttribute('data-sig') !== base + ':' + sounds.join(',')) {
      holder.setAttribute('data-sig', base + ':' + sounds.join(','));
      holder.innerHTML = '';
      sounds.forEach(function (sound, i) {
        var div = document.createElement('div'), id = 'f-bed-' + i;
        div.setAttribute('data-sound', sound);
        div.innerHTML = '<label for="' + id + '"></label><input id="' + id + '" data-path="' + base + '[' + i + '].level" data-empty="keep" type="number" min="-60" max="0" step="1" inputmode="decimal">';
        div.firstChild.textContent = sound;
        holder.appendChild(div);
      });
    }
    // A bed written as its sound alone has no level to change in place.
    sounds.forEach(function (s, i) { $('f-bed-' + i).disabled = !outline[base + '[' + i + '].level']; });
  }
  function number(v) { var n = String(v).trim(); return /^-?\d+(\.\d+)?$/.test(n) ? n : null; }
  // The YAML with the length in `to` (minutes or cycles), from the length in the other.
  function lengthIn(text, to) {
    var from = to === 'cycles' ? 'minutes' : 'cycles', was = number(value(from) || '');
    if (was === null) { return undefined; }
    var n = Math.max(1, Math.round(parseFloat(was) * (to === 'cycles' ? 6 : 1 / 6) * 100) / 100);
    var raw = String(to === 'cycles' ? Math.round(n) : n);
    return outline[to] ? withValue(text, to, raw) : renamed(text, from, to, raw);
  }
  // A form field's change as YAML text: undefined for no change, null when the form cannot say it.
  function fromField(target, text) {
    var v = number(target.value);
    if (target.id === 'f-length-unit') { return lengthIn(text, target.value); }
    if (target.hasAttribute('data-phase')) {
      var phases = patternPhases(value('pattern'));
      if (!phases || v === null) { return undefined; }
      phases[+target.getAttribute('data-phase')] = v;
      return withValue(text, 'pattern', phases.join('-'));
    }
    if (target.id === 'f-minutes') {
      if (v === null) { return undefined; }
      var u = $('f-length-unit').value, other = u === 'cycles' ? 'minutes' : 'cycles', raw = u === 'cycles' ? String(Math.max(1, Math.round(+v))) : v;
      return outline[other] && !outline[u] ? renamed(text, other, u, raw) : withValue(text, u, raw);
    }
    return fromListField(target, text);
  }
  function fromForm(target) {
    if (outlineStale) { if (pending.indexOf(target) < 0) { pending.push(target); } return; }
    var text = yamlEl.value;
    wrote = [];
    var next = fromField(target, text);
    if (next === null) { $('save-status').textContent = 'The form cannot write that here: edit it in the YAML.'; return; }
    if (next === undefined || next === text) { return; }
    formWrote(text, next, target);
  }

  // ---- The YAML's nodes as the server reads them (its outline): each scalar's place, so a
  // form field changes its value in place; a missing one is added under its nearest parent.
  var outline = {}, outlineStale = false, pending = [];
  function setOutline(list) {
    outline = {};
    (list || []).forEach(function (e) { outline[e.path] = e; });
    outlineStale = false;
    var queued = pending; pending = [];
    queued.forEach(function (el) { fromForm(el); });
  }
  function offsetOf(text, line, column) {
    var off = 0, at = 0;
    for (var i = 1; i < line; i++) { at = text.indexOf('\n', off); if (at < 0) { return -1; } off = at + 1; }
    return off + column - 1;
  }
  function scalarEnd(text, start, e) {
    var i;
    if (e.style === 'double') {
      for (i = start + 1; i < text.length && text[i] !== '\n'; i++) { if (text[i] === '\\') { i++; continue; } if (text[i] === '"') { return i + 1; } }
      return -1;
    }
    if (e.style === 'single') {
      for (i = start + 1; i < text.length && text[i] !== '\n'; i++) { if (text[i] === "'") { if (text[i + 1] === "'") { i++; continue; } return i + 1; } }
      return -1;
    }
    if (e.style !== 'plain') { return -1; }
    var eol = text.indexOf('\n', start); if (eol < 0) { eol = text.length; }
    var seg = text.slice(start, eol), end = seg.length, hash = seg.search(/\s#/);
    if (hash >= 0) { end = hash; }
    if (e.inFlow) { var f = seg.search(/[,\]}]/); if (f >= 0 && f < end) { end = f; } }
    return start + seg.slice(0, end).replace(/\s+$/, '').length;
  }
  function indentOf(line) { return /^ */.exec(line)[0].length; }
  // The line index after which a child of the block mapping `e` goes (its block's last line).
  function blockEnd(lines, e) {
    var keyIndent = e.column - 1, last = e.line - 1;
    for (var j = e.line; j < lines.length; j++) {
      var l = lines[j];
      if (!l.trim().length || /^\s*#/.test(l)) { continue; }
      if (indentOf(l) < keyIndent) { break; }
      last = j;
    }
    return last;
  }
  // The offset just after the `{` or `[` a flow collection starts with, and of its closing one.
  function flowSpan(text, e) {
    var start = offsetOf(text, e.line, e.column), depth = 0, quote = null;
    for (var i = start; i < text.length; i++) {
      var c = text[i];
      if (quote) { if (c === '\\' && quote === '"') { i++; } else if (c === quote) { quote = null; } continue; }
      if (c === '"' || c === "'") { quote = c; } else if (c === '{' || c === '[') { depth++; } else if (c === '}' || c === ']') { depth--; if (!depth) { return { open: start + 1, close: i }; } }
    }
    return null;
  }
  function nest(keys, raw) { return keys.length ? '{ ' + keys[0] + ': ' + nest(keys.slice(1), raw) + ' }' : raw; }
  function parentPath(path) { var m = /^(.*?)(?:\.([^.\[\]]+)|\[(\d+)\])$/.exec(path); return m ? { parent: m[1], key: m[2] } : { parent: '', key: path }; }
  // The text with `path` set to `raw` (YAML text), or null when the form cannot say it.
  function withValue(text, path, raw) {
    var e = outline[path];
    expect(path, decoded(raw));
    if (e && e.kind === 'scalar') {
      var s = offsetOf(text, e.line, e.column), end = s >= 0 ? scalarEnd(text, s, e) : -1;
      if (end < 0) { return null; }
      var delta = raw.length - (end - s);
      Object.keys(outline).forEach(function (p) { var o = outline[p]; if (o !== e && o.line === e.line && o.column > e.column) { o.column += delta; } });
      e.style = raw[0] === '"' ? 'double' : 'plain';
      e.value = decoded(raw);
      return text.slice(0, s) + raw + text.slice(end);
    }
    if (e) { return null; }
    // Missing: under its nearest parent that is there.
    var keys = [], p = path;
    while (!outline[p]) {
      var pp = parentPath(p);
      if (!pp.key) { return null; }
      keys.unshift(pp.key); p = pp.parent;
      if (p === '' && !outline['']) { break; }
    }
    var a = outline[p], lines = text.split('\n');
    outlineStale = true;
    if (!a) { return text.replace(/\n*$/, '\n') + keys[0] + ':' + (keys.length > 1 ? '\n  ' + keys[1] + ': ' + nest(keys.slice(2), raw) : ' ' + raw) + '\n'; }
    if (a.kind === 'scalar') {
      var at = offsetOf(text, a.line, a.column), stop = scalarEnd(text, at, a);
      if (stop < 0) { return null; }
      return text.slice(0, at) + nest(keys, raw) + text.slice(stop);
    }
    if (a.kind !== 'mapping') { return null; }
    if (a.style === 'flow') {
      var span = flowSpan(text, a);
      if (!span) { return null; }
      return text.slice(0, span.open) + ' ' + keys[0] + ': ' + nest(keys.slice(1), raw) + (a.count ? ',' : ' ') + text.slice(span.open);
    }
    var after = blockEnd(lines, a), pad = new Array(a.column).join(' ');
    var added = keys.length > 1 && a.path === '' ? [pad + keys[0] + ':', pad + '  ' + keys[1] + ': ' + nest(keys.slice(2), raw)]
      : [pad + keys[0] + ': ' + nest(keys.slice(1), raw)];
    lines.splice.apply(lines, [after + 1, 0].concat(added));
    return lines.join('\n');
  }
  // The text without the scalar at `path` and its key (a line of its own, or an entry of a flow mapping).
  function withoutValue(text, path) {
    var e = outline[path], key = parentPath(path).key;
    if (!e || e.kind !== 'scalar' || !key) { return null; }
    expect(path, null);
    var s = offsetOf(text, e.line, e.column), end = scalarEnd(text, s, e);
    if (end < 0) { return null; }
    var lineStart = text.lastIndexOf('\n', s - 1) + 1, before = text.slice(lineStart, s);
    var k = before.lastIndexOf(key);
    if (k < 0) { return null; }
    if (!e.inFlow) {
      if (!/^\s*$/.test(before.slice(0, k))) { return null; }
      var eol = text.indexOf('\n', end);
      outlineStale = true;
      return text.slice(0, lineStart) + (eol < 0 ? '' : text.slice(eol + 1));
    }
    var from = lineStart + k, to = end, rest = text.slice(end);
    var comma = /^\s*,\s*/.exec(rest);
    if (comma) { to = end + comma[0].length; } else { var prev = /,\s*$/.exec(text.slice(0, from)); if (prev) { from -= prev[0].length; } }
    outlineStale = true;
    return text.slice(0, from) + text.slice(to);
  }
  // The text with the key of the scalar at `path` renamed to `key`, its value `raw`.
  function renamed(text, path, key, raw) {
    var e = outline[path], up = parentPath(path), from = up.key;
    if (!e || e.kind !== 'scalar') { return null; }
    expect(path, null);
    expect((up.parent ? up.parent + '.' : '') + key, decoded(raw));
    var s = offsetOf(text, e.line, e.column), end = scalarEnd(text, s, e);
    if (end < 0) { return null; }
    var ls = text.lastIndexOf('\n', s - 1) + 1, at = text.slice(ls, s).lastIndexOf(from);
    if (at < 0) { return null; }
    outlineStale = true;
    return text.slice(0, ls + at) + key + ': ' + raw + text.slice(end);
  }
  function value(path) { var e = outline[path]; return e && e.kind === 'scalar' ? e.value : null; }

  // ---- Each edit of the form checked by the server: the plan after it reads the YAML again, and
  // its outline must hold the values the form wrote (and not those it took out). An edit that does
  // not read back so is undone, and its field says why.
  var wrote = [], unchecked = null, checking = null;
  function expect(path, v) { wrote.push([path, v]); }
  function decoded(raw) { return raw[0] === '"' ? JSON.parse(raw) : raw; }
  function formWrote(before, text, target) {
    clearRefused();
    if (!unchecked) { unchecked = { before: before, expects: {}, ids: [] }; }
    wrote.forEach(function (w) { unchecked.expects[w[0]] = w[1]; });
    if (target && target.id && unchecked.ids.indexOf(target.id) < 0) { unchecked.ids.push(target.id); }
    unchecked.after = text;
    wrote = [];
    yamlEl.value = text;
    changed();
  }
  // The form's edits not yet answered, with those made since: one check, from the text before the first.
  function merged(a, b) {
    if (!a || !b) { return a || b; }
    var m = { before: a.before, after: b.after, expects: {}, ids: a.ids.slice() };
    [a, b].forEach(function (c) { Object.keys(c.expects).forEach(function (p) { m.expects[p] = c.expects[p]; }); });
    b.ids.forEach(function (id) { if (m.ids.indexOf(id) < 0) { m.ids.push(id); } });
    return m;
  }
  // Why the answer's outline does not hold what the form wrote, or null when it does.
  function misread(check, answer) {
    if (!answer.form) { return 'the YAML would not be YAML'; }
    var read = {};
    answer.form.forEach(function (e) { read[e.path] = e; });
    var wrong = Object.keys(check.expects).filter(function (p) {
      var want = check.expects[p], e = read[p];
      return want === null ? !!e : !(e && e.kind === 'scalar' && e.value === want);
    });
    return wrong.length ? wrong.map(function (p) {
      var want = check.expects[p], e = read[p];
      if (want === null) { return p + ' would still be there'; }
      return p + ' would read ' + (!e ? 'nothing' : e.kind === 'scalar' ? JSON.stringify(e.value) : 'a ' + e.kind) + ', not ' + JSON.stringify(want);
    }).join('; ') : null;
  }
  function refuse(check, why) {
    var undo = yamlEl.value === check.after;
    state.refused = { ids: check.ids, message: 'The form cannot write that here (' + why + ')' + (undo ? '; the YAML is as it was' : '') + ': edit it in the YAML.' };
    $('save-status').textContent = state.refused.message;
    document.body.setAttribute('data-form-refused', Object.keys(check.expects).join(' '));
    if (undo) { yamlEl.value = check.before; outlineStale = true; changed(); }
  }
  function clearRefused() { state.refused = null; document.body.removeAttribute('data-form-refused'); }
  function forgetChecks() { unchecked = null; checking = null; wrote = []; clearRefused(); }
  function quoted(s) { return JSON.stringify(s); }
  function plainName(s) { return /^[A-Za-z0-9][A-Za-z0-9._\/-]*$/.test(s) ? s : null; }

  // ---- The form's lists: cues per phase, voice lines, segments.
  var toneNames = ['', 'pure', 'bell', 'bowl', 'tick', 'none'];
  function options(list, chosen, names) {
    return list.map(function (v, i) { return '<option value="' + v + '"' + (v === chosen ? ' selected' : '') + '>' + (names ? names[i] : v) + '</option>'; }).join('');
  }
  function field(id, text, input, wide) {
    return '<div' + (wide ? ' class="wide"' : '') + '><label for="' + id + '">' + text + '</label>' + input.replace('<X', '<input id="' + id + '"').replace('<S', '<select id="' + id + '"') + '</div>';
  }
  // A line's pause or rest: its seconds (the least, when elastic) or its weight, the share of the
  // spare time it takes; a weight makes it elastic (`{ min, weight }`), none fixed.
  function elastic(i, key, text, part) {
    return field('f-line-' + i + '-' + key + (part === 'weight' ? '-weight' : ''), text, '<X data-elastic="guide.lines[' + i + '].' + key + '" data-part="' + part
      + '" type="number" min="' + (part === 'weight' ? '0.001' : '0') + '" max="' + (part === 'weight' ? '1000' : '3600') + '" step="any" inputmode="decimal">');
  }
  function fromElastic(target, text) {
    var base = target.getAttribute('data-elastic'), e = outline[base], isElastic = !!(e && e.kind === 'mapping');
    var minEl = $(target.id.replace(/-weight$/, '')), weightEl = $(minEl.id + '-weight');
    var min = number(minEl.value), weight = number(weightEl.value);
    if (target === minEl) {
      if (min === null) { return minEl.value.trim() ? null : isElastic ? (outline[base + '.min'] ? withoutValue(text, base + '.min') : text) : e ? withoutValue(text, base) : text; }
      return withValue(text, isElastic ? base + '.min' : base, min);
    }
    if (weight === null) {
      // Emptied: the pause is fixed again, at its least.
      if (weightEl.value.trim()) { return null; }
      if (!isElastic) { return text; }
      var span = e.style === 'flow' ? flowSpan(text, e) : null;
      if (!span) { return null; }
      outlineStale = true;
      expect(base, min || '0');
      return text.slice(0, span.open - 1) + (min || '0') + text.slice(span.close + 1);
    }
    if (isElastic) { return withValue(text, base + '.weight', weight); }
    var next = withValue(text, base, '{ min: ' + (min || '0') + ', weight: ' + weight + ' }');
    wrote.pop();
    expect(base + '.min', min || '0');
    expect(base + '.weight', weight);
    outlineStale = true;
    return next;
  }
  function cueKinds() {
    var kinds = ['inhale', 'hold', 'exhale'];
    ['hold-in', 'top-up', 'hold-out'].forEach(function (k) { if (outline['cues.' + k]) { kinds.push(k); } });
    return kinds;
  }
  function buildLists() {
    var kinds = cueKinds(), cuesEl = $('cues'), sig = kinds.join(',');
    if (cuesEl.getAttribute('data-sig') !== sig) {
      cuesEl.setAttribute('data-sig', sig);
      cuesEl.innerHTML = kinds.map(function (k) {
        var p = 'cues.' + k;
        return '<div class="item" data-kind="' + k + '"><h3>' + k + '</h3>'
          + field('f-cue-' + k + '-tone', 'Tone', '<S data-cue="' + k + '" data-part="tone">' + options(toneNames, '', ['default', 'pure', 'bell', 'bowl', 'tick', 'none']) + '</select>')
          + field('f-cue-' + k + '-pitch', 'Pitch (Hz)', '<X data-path="' + p + '.pitch" type="number" min="50" max="4000" step="any" inputmode="decimal">')
          + field('f-cue-' + k + '-gain', 'Gain (dB)', '<X data-path="' + p + '.gain" type="number" min="-60" max="0" step="1" inputmode="decimal">')
          + '<div><button type="button" id="play-cue-' + k + '" data-play-cue="' + k + '" aria-label="Play the ' + k + ' cue">Play</button></div></div>';
      }).join('');
    }
    var lines = outline['guide.lines'] && outline['guide.lines'].kind === 'list' ? outline['guide.lines'].count : 0;
    listItems($('guide'), lines, function (i) {
      var p = 'guide.lines[' + i + ']';
      return '<div class="item" data-line="' + i + '"><h3>Line ' + (i + 1) + '</h3>'
        + field('f-line-' + i + '-kind', 'Says or plays', '<S data-line-kind="' + i + '">' + options(['say', 'clip'], 'say', ['words', 'a clip']) + '</select>')
        + field('f-line-' + i + '-text', 'Words, or the clip\'s name', '<X data-line-text="' + i + '" type="text" spellcheck="true">', true)
        + elastic(i, 'pause', 'Pause before (s)', 'min') + elastic(i, 'rest', 'Rest after (s)', 'min')
        + elastic(i, 'pause', 'Pause: share of spare time', 'weight') + elastic(i, 'rest', 'Rest: share of spare time', 'weight')
        + field('f-line-' + i + '-during', 'During', '<S data-path="' + p + '.during" data-choice="1">' + options(['', 'settle', 'breathing', 'closing'], '', ['(flows on)', 'settle', 'breathing', 'closing']) + '</select>')
        + field('f-line-' + i + '-cycle', 'On cycle', '<X data-path="' + p + '.on.cycle" type="number" min="1" step="1" inputmode="numeric">')
        + field('f-line-' + i + '-phase', 'On phase', '<S data-path="' + p + '.on.phase" data-choice="1">' + options(['', 'inhale', 'hold-in', 'top-up', 'exhale', 'hold-out'], '', ['(none)', 'inhale', 'hold-in', 'top-up', 'exhale', 'hold-out']) + '</select>')
        + '</div>';
    });
    var segs = outline.segments && outline.segments.kind === 'list' ? outline.segments.count : 0;
    listItems($('segments'), segs, function (j) {
      var q = 'segments[' + j + ']';
      return '<div class="item" data-segment="' + j + '"><h3>Segment ' + (j + 1) + '</h3>'
        + field('f-seg-' + j + '-name', 'Name', '<X data-path="' + q + '.name" data-text="text" type="text">')
        + field('f-seg-' + j + '-pattern', 'Pattern', '<X data-path="' + q + '.pattern" data-text="name" type="text" spellcheck="false" placeholder="4-0-6-0">')
        + field('f-seg-' + j + '-unit', 'Length in', '<S data-seg-unit="' + j + '">' + options(['minutes', 'cycles'], 'minutes') + '</select>')
        + field('f-seg-' + j + '-length', 'Length', '<X data-seg-length="' + j + '" type="number" min="0" step="any" inputmode="decimal">')
        + '</div>';
    });
  }
  // A list's items, made anew (`item(i)` gives item i's HTML) only when their count has changed.
  function listItems(el, count, item) {
    if (+el.getAttribute('data-count') === count) { return; }
    el.setAttribute('data-count', String(count));
    var html = '';
    for (var i = 0; i < count; i++) { html += item(i); }
    el.innerHTML = html;
  }
  function put(el, v) { if (el && el !== document.activeElement) { el.value = v === null || v === undefined ? '' : v; } }
  function fillOutline(list) {
    setOutline(list);
    buildLists();
    fillTop();
    cueKinds().forEach(function (k) {
      var p = 'cues.' + k, e = outline[p], tone = value(p + '.tone');
      put($('f-cue-' + k + '-tone'), e && e.kind === 'scalar' && e.value === 'none' ? 'none' : tone && toneNames.indexOf(tone) >= 0 ? tone : '');
      put($('f-cue-' + k + '-pitch'), value(p + '.pitch'));
      put($('f-cue-' + k + '-gain'), value(p + '.gain'));
    });
    document.querySelectorAll('#form [data-path]').forEach(function (el) { put(el, value(el.getAttribute('data-path'))); });
    document.querySelectorAll('[data-line-kind]').forEach(function (el) {
      var i = el.getAttribute('data-line-kind'), clip = value('guide.lines[' + i + '].clip') !== null;
      put(el, clip ? 'clip' : 'say');
      put($('f-line-' + i + '-text'), value('guide.lines[' + i + '].' + (clip ? 'clip' : 'say')));
    });
    document.querySelectorAll('[data-elastic]').forEach(function (el) {
      var base = el.getAttribute('data-elastic');
      put(el, el.getAttribute('data-part') === 'weight' ? value(base + '.weight') : value(base) !== null ? value(base) : value(base + '.min'));
    });
    document.querySelectorAll('[data-seg-unit]').forEach(function (el) {
      var j = el.getAttribute('data-seg-unit'), cycles = value('segments[' + j + '].cycles');
      put(el, cycles !== null ? 'cycles' : 'minutes');
      put($('f-seg-' + j + '-length'), cycles !== null ? cycles : value('segments[' + j + '].minutes'));
    });
    document.body.setAttribute('data-outline', String(Object.keys(outline).length));
  }
  // A list field's change as YAML text; null when the form cannot say it.
  function fromListField(target, text) {
    var v = target.value, path, raw;
    if (target.hasAttribute('data-cue')) {
      var k = target.getAttribute('data-cue'), p = 'cues.' + k, e = outline[p];
      if (v === 'none') {
        if (e && e.kind === 'scalar') { return withValue(text, p, 'none'); }
        if (e && e.kind === 'mapping' && e.style === 'flow') {
          var span = flowSpan(text, e);
          outlineStale = true;
          expect(p, 'none');
          return span ? text.slice(0, span.open - 1) + 'none' + text.slice(span.close + 1) : null;
        }
        return e ? null : withValue(text, p, 'none');
      }
      if (!v) { return outline[p + '.tone'] ? withoutValue(text, p + '.tone') : text; }
      return withValue(text, p + '.tone', v);
    }
    if (target.hasAttribute('data-line-kind')) {
      var i = target.getAttribute('data-line-kind'), from = v === 'clip' ? 'say' : 'clip', old = outline['guide.lines[' + i + '].' + from];
      if (!old) { return text; }
      return renamed(text, 'guide.lines[' + i + '].' + from, v, v === 'clip' ? (plainName(old.value) || 'voice-intro') : quoted(old.value));
    }
    if (target.hasAttribute('data-line-text')) {
      var n = target.getAttribute('data-line-text'), clip = outline['guide.lines[' + n + '].clip'];
      raw = clip ? plainName(v.trim()) : quoted(v);
      return raw === null ? null : withValue(text, 'guide.lines[' + n + '].' + (clip ? 'clip' : 'say'), raw);
    }
    if (target.hasAttribute('data-elastic')) { return fromElastic(target, text); }
    if (target.hasAttribute('data-seg-unit') || target.hasAttribute('data-seg-length')) {
      var j = target.getAttribute('data-seg-unit') || target.getAttribute('data-seg-length');
      var unit = $('f-seg-' + j + '-unit').value, other = unit === 'cycles' ? 'minutes' : 'cycles', len = number($('f-seg-' + j + '-length').value);
      if (len === null) { return null; }
      var q = 'segments[' + j + '].';
      return outline[q + other] ? renamed(text, q + other, unit, len) : withValue(text, q + unit, len);
    }
    path = target.getAttribute('data-path');
    if (!path) { return undefined; }
    if (target.hasAttribute('data-choice')) {
      return v ? withValue(text, path, v) : outline[path] ? withoutValue(text, path) : text;
    }
    if (target.getAttribute('data-text') === 'name') { raw = v.trim() ? plainName(v.trim()) : null; if (!v.trim()) { return outline[path] ? withoutValue(text, path) : text; } }
    else if (target.getAttribute('data-text') === 'text') {
      if (!v.trim() && target.hasAttribute('data-optional')) { return outline[path] ? withoutValue(text, path) : text; }
      raw = quoted(v.trim() && target.hasAttribute('data-optional') ? v.trim() : v);
    }
    else {
      raw = number(v);
      // Emptied: the key goes, unless the field keeps it (a value the session needs, being retyped).
      if (raw === null && !String(v).trim()) { return target.getAttribute('data-empty') === 'keep' ? undefined : outline[path] ? withoutValue(text, path) : text; }
    }
    return raw === null ? null : withValue(text, path, raw);
  }
  // The index of a block list's last line (of its last item; its key's when it has none), blank
  // and comment lines passed over.
  function lastItemLine(lines, list) {
    var last = list.line - 1;
    for (var j = list.line; j < lines.length; j++) {
      var l = lines[j];
      if (!l.trim().length || /^\s*#/.test(l)) { continue; }
      if (indentOf(l) < list.column - 1 || (indentOf(l) === list.column - 1 && !/^\s*-/.test(l))) { break; }
      last = j;
    }
    return last;
  }
  function addLine() {
    var before = yamlEl.value, text = before, list = outline['guide.lines'], lines = text.split('\n');
    var n = list && list.kind === 'list' ? list.count : 0;
    var item = '- say: ' + quoted('Breathe in slowly.');
    if (list && list.kind === 'list' && list.style === 'block') {
      var pad = new Array(list.column).join(' '), last = lastItemLine(lines, list);
      lines.splice(last + 1, 0, pad + item, pad + '  pause: 2');
      text = lines.join('\n');
    } else if (list && list.kind === 'list') {
      var span = flowSpan(text, list);
      if (!span) { return; }
      text = text.slice(0, span.close) + (list.count ? ', ' : ' ') + '{ say: ' + quoted('Breathe in slowly.') + ', pause: 2 } ' + text.slice(span.close);
    } else if (outline.guide) {
      text = withValue(text, 'guide.lines', '[ { say: ' + quoted('Breathe in slowly.') + ', pause: 2 } ]');
      if (text === null) { return; }
    } else {
      text = text.replace(/\n*$/, '\n') + 'guide:\n  lines:\n    ' + item + '\n      pause: 2\n';
    }
    outlineStale = true;
    wrote = [];
    expect('guide.lines[' + n + '].say', 'Breathe in slowly.');
    formWrote(before, text, $('add-line'));
  }
  function addSegment() {
    var before = yamlEl.value, text = before, list = outline.segments, lines = text.split('\n');
    wrote = [];
    if (!list) {
      // The pattern's line becomes two segments of that pattern.
      var pattern = value('pattern'), at = outline.pattern ? outline.pattern.line - 1 : -1;
      if (pattern === null || !plainName(pattern) || !/^pattern:/.test(lines[at] || '')) { return; }
      lines[at] = 'segments:\n  - { name: First, pattern: ' + pattern + ', minutes: 2 }\n  - { name: Second, pattern: ' + pattern + ' }';
      text = lines.join('\n');
      expect('segments[0].pattern', pattern);
      expect('segments[1].pattern', pattern);
    } else if (list.kind === 'list' && list.style === 'block') {
      var n = list.count, lastItem = outline['segments[' + (n - 1) + ']'], pat = value('segments[' + (n - 1) + '].pattern') || '4-0-6-0';
      var pad = new Array(list.column).join(' '), last = lastItemLine(lines, list);
      var insert = [];
      // The segment that took the rest gets a length of its own, so the new one can follow it.
      if (lastItem && !outline['segments[' + (n - 1) + '].minutes'] && !outline['segments[' + (n - 1) + '].cycles']) {
        if (lastItem.style === 'flow') {
          var span = flowSpan(text, lastItem);
          if (!span) { return; }
          text = text.slice(0, span.open) + ' minutes: 2,' + text.slice(span.open);
          lines = text.split('\n');
        } else { insert.push(new Array(lastItem.column).join(' ') + 'minutes: 2'); }
        expect('segments[' + (n - 1) + '].minutes', '2');
      }
      insert.push(pad + '- { name: Segment ' + (n + 1) + ', pattern: ' + pat + ' }');
      lines.splice.apply(lines, [last + 1, 0].concat(insert));
      text = lines.join('\n');
      expect('segments[' + n + '].pattern', pat);
    } else { return; }
    outlineStale = true;
    formWrote(before, text, $('add-segment'));
  }
  function playCue(kind) {
    var status = $('save-status');
    return fetch('/studio/cue?kind=' + encodeURIComponent(kind), { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: yamlEl.value })
      .then(function (r) {
        if (!r.ok) { return r.text().then(function (b) { var a = null; try { a = JSON.parse(b); } catch (e) { a = null; } throw new Error(a && a.errors ? a.errors[0].message : b.trim()); }); }
        return r.blob();
      })
      .then(function (blob) {
        var cue = $('cue-audio');
        if (cue.src) { URL.revokeObjectURL(cue.src); }
        cue.src = URL.createObjectURL(blob);
        document.body.setAttribute('data-cue', kind);
        var p = cue.play();
        return p && p.catch ? p.catch(function (e) { status.textContent = 'Press play to hear the cue (' + e.message + ')'; }) : p;
      })
      .catch(function (e) { status.textContent = 'Cannot play the ' + kind + ' cue: ' + e.message; });
  }
  function downloadRender() {
    var format = $('render-format').value, text = yamlEl.value, status = $('save-status');
    var ready = state.take && state.takeYaml === text ? Promise.resolve(state.take)
      : fetch('/studio/listen', { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: text })
          .then(function (r) { return r.json().then(function (a) { if (!a.ok) { throw new Error('the preset has errors'); } state.take = a; state.takeYaml = text; return a; }); });
    return ready.then(function (take) {
      var a = document.createElement('a');
      a.href = take.url.replace('/studio/listen/', '/studio/render/') + '?format=' + format;
      a.download = presetName() + '.' + format;
      document.body.setAttribute('data-render-url', a.getAttribute('href'));
      document.body.appendChild(a); a.click(); a.remove();
      status.textContent = 'Asked for ' + a.download + ': it is saved when the server has rendered it.';
      return a.getAttribute('href');
    }).catch(function (e) { status.textContent = 'Cannot render: ' + e.message; });
  }

  // ---- Errors where they are.
  var fieldFor = [[/^(pattern|ramp|limits)/, 'err-pattern', phaseIds], [/^(minutes|cycles)/, 'err-minutes', ['f-minutes']],
                  [/^settle/, 'err-settle', ['f-settle']], [/^closing/, 'err-closing', ['f-closing']],
                  [/^master/, 'err-loudness', ['f-loudness']], [/^ambience/, 'err-beds', []], [/^cues/, 'err-cues', []],
                  [/^bells/, 'err-bells', []], [/^language/, 'err-language', ['f-language']], [/^guide\.voice/, 'err-language', ['f-voice']],
                  [/^guide/, 'err-guide', []], [/^segments/, 'err-segments', []]];
  // The form's input a field's error belongs to, when it has one.
  function inputsFor(f) {
    var m;
    if ((m = /^ambience(?:\.beds)?\[(\d+)\]/.exec(f))) { return ['f-bed-' + m[1]]; }
    if ((m = /^cues\.([a-z-]+)\.?(tone|pitch|gain)?/.exec(f))) { return ['f-cue-' + m[1] + '-' + (m[2] || 'tone')]; }
    if ((m = /^bells\.(start|end|every|gain)/.exec(f))) { return ['f-bells-' + m[1]]; }
    if ((m = /^guide\.lines\[(\d+)\]\.?([a-z]+)?/.exec(f))) {
      var part = { say: 'text', clip: 'text', text: 'text', pause: 'pause', rest: 'rest', during: 'during', on: 'cycle' }[m[2]] || 'text';
      return ['f-line-' + m[1] + '-' + part];
    }
    if ((m = /^segments\[(\d+)\]\.?([a-z]+)?/.exec(f))) {
      return ['f-seg-' + m[1] + '-' + ({ name: 'name', pattern: 'pattern', minutes: 'length', cycles: 'length' }[m[2]] || 'pattern')];
    }
    return null;
  }
  function drawGutter() {
    var n = yamlEl.value.split('\n').length, bad = {}, out = [];
    state.errors.forEach(function (e) { if (e.line) { bad[e.line] = true; } });
    for (var i = 1; i <= n; i++) { out.push(bad[i] ? '<span class="bad" data-line="' + i + '">' + i + '</span>' : String(i)); }
    gutter.innerHTML = out.join('\n');
    gutter.scrollTop = yamlEl.scrollTop;
  }
  function showErrors(errors) {
    state.errors = errors;
    fieldFor.forEach(function (f) { $(f[1]).textContent = ''; });
    document.querySelectorAll('[aria-invalid]').forEach(function (el) { el.removeAttribute('aria-invalid'); });
    errorBox.textContent = errors.map(function (e) {
      return (e.line ? 'Line ' + e.line + (e.column ? ', column ' + e.column : '') + ': ' : '') + (e.field ? e.field + ': ' : '') + e.message;
    }).join('\n');
    var lined = errors.filter(function (e) { return e.line; });
    if (lined.length) {
      yamlEl.setAttribute('data-error-line', String(lined[0].line));
      yamlEl.setAttribute('data-error-lines', lined.map(function (e) { return e.line; }).join(' '));
      yamlEl.setAttribute('aria-invalid', 'true');
    } else { yamlEl.removeAttribute('data-error-line'); yamlEl.removeAttribute('data-error-lines'); }
    errors.forEach(function (e) {
      fieldFor.some(function (f) {
        if (!e.field || !f[0].test(e.field)) { return false; }
        var box = $(f[1]);
        box.textContent = (box.textContent ? box.textContent + '\n' : '') + e.message;
        (inputsFor(e.field) || f[2]).forEach(function (id) {
          var el = $(id);
          if (el) { el.setAttribute('aria-invalid', 'true'); el.setAttribute('aria-describedby', f[1]); }
        });
        return true;
      });
    });
    // An edit of the form that did not read back, beside its field.
    if (state.refused) {
      state.refused.ids.forEach(function (id) {
        var el = $(id), box = el && (el.parentNode.querySelector('.field-error') || el.closest('fieldset').querySelector('.field-error'));
        if (!box) { return; }
        box.textContent = (box.textContent ? box.textContent + '\n' : '') + state.refused.message;
        if (el.tagName !== 'BUTTON') { el.setAttribute('aria-invalid', 'true'); el.setAttribute('aria-describedby', box.id); }
      });
    }
    drawGutter();
  }

  // ---- The plan, asked for as the preset changes.
  var timer = null;
  function changed() {
    state.typedAt = performance.now();
    drawGutter();
    clearTimeout(timer);
    timer = setTimeout(plan, debounceMs);
  }
  function plan() {
    var seq = ++state.seq, typedAt = state.typedAt, text = yamlEl.value;
    // The form's edits in this text, with those of a plan asked for before and not answered (its
    // answer is dropped for this one's).
    var check = merged(checking, unchecked);
    unchecked = null;
    checking = check && check.after === text ? check : null;
    check = checking;
    document.body.setAttribute('data-busy', '1');
    return fetch('/studio/plan', { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: text })
      .then(function (r) {
        return r.text().then(function (body) {
          if (seq !== state.seq) { return; }
          var answer = null;
          try { answer = JSON.parse(body); } catch (e) { answer = null; }
          checking = null;
          if (check && answer && typeof answer === 'object') {
            var why = misread(check, answer);
            if (why) { refuse(check, why); }
            document.body.setAttribute('data-form-checked', String(seq));
          }
          // An outline is of the text it was asked for: if the form has changed the text since,
          // its places are not this text's, and the next plan's outline is waited for.
          if (answer && answer.form) { if (text === yamlEl.value) { fillOutline(answer.form); } else { outlineStale = true; } }
          if (answer && answer.ok) {
            showErrors([]);
            draw(answer);
          } else if (answer && answer.errors) {
            showErrors(answer.errors);
          } else {
            showErrors([{ message: body.trim() || ('the server answered ' + r.status), field: '' }]);
          }
          state.shown = seq;
          state.redrawMs = performance.now() - typedAt;
          document.body.setAttribute('data-plan-seq', String(seq));
          document.body.setAttribute('data-redraw-ms', state.redrawMs.toFixed(1));
          document.body.removeAttribute('data-busy');
        });
      })
      .catch(function (e) {
        if (seq !== state.seq) { return; }
        checking = null;
        showErrors([{ message: 'the server cannot be reached (' + e.message + ')', field: '' }]);
        document.body.removeAttribute('data-busy');
      });
  }
  function draw(answer) {
    state.data = JSON.parse(answer.timeline);
    state.cues = JSON.parse(answer.cueSheet);
    timelineEl.innerHTML = answer.svg;
    timelineEl.setAttribute('data-duration', String(answer.durationSeconds));
    timelineEl.setAttribute('aria-valuemax', String(Math.round(answer.durationSeconds)));
    $('summary').textContent = answer.name + ' · ' + answer.summary + ' · ' + answer.cycles + ' cycles · ' + clock(answer.durationSeconds)
      + (answer.warnings && answer.warnings.length ? ' · ' + answer.warnings.join('; ') : '');
    $('from').max = String(answer.durationSeconds);
    state.point = Math.min(state.point, answer.durationSeconds);
    render(state.point);
  }

  // ---- The circle, as the preview page draws it.
  function ease(p) { p = Math.min(1, Math.max(0, p)); return (1 - Math.cos(Math.PI * p)) / 2; }
  function lastStartingBy(list, index, t) {
    var low = 0, high = list.length - 1, found = -1;
    while (low <= high) { var mid = (low + high) >> 1; if (list[mid][index] <= t) { found = mid; low = mid + 1; } else { high = mid - 1; } }
    return found;
  }
  function clock(seconds) {
    var s = Math.max(0, Math.floor(seconds + 1e-6)), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    var two = function (n) { return n < 10 ? '0' + n : '' + n; };
    return h > 0 ? h + ':' + two(m) + ':' + two(r) : m + ':' + two(r);
  }
  function moment(t) {
    var data = state.data, phases = data.phases;
    var i = lastStartingBy(phases, 1, t);
    if (i < 0 || t >= phases[i][2]) {
      var before = !phases.length || t < phases[0][1];
      return { label: before ? data.settleLabel : data.closingLabel, level: 0, cycle: before ? 0 : data.cycles, kind: '' };
    }
    var p = phases[i], progress = (t - p[1]) / (p[2] - p[1]);
    return { label: data.labels[p[0]], level: p[3] + (p[4] - p[3]) * ease(progress), cycle: p[5], kind: data.kinds[p[0]] };
  }
  function render(t) {
    if (!state.data) { return; }
    t = Math.min(Math.max(0, t || 0), state.data.duration);
    var m = moment(t), scale = state.data.emptyScale + (1 - state.data.emptyScale) * m.level;
    circle.style.transform = 'scale(' + scale.toFixed(5) + ')';
    circle.setAttribute('data-kind', m.kind);
    if (label.textContent !== m.label) { label.textContent = m.label; }
    clockEl.textContent = clock(t) + ' / ' + clock(state.data.duration);
    var svg = timelineEl.querySelector('svg'), playhead = svg && svg.querySelector('#playhead');
    if (playhead) {
      var x = parseFloat(svg.getAttribute('data-plot-left')) + parseFloat(svg.getAttribute('data-plot-width')) * (t / Math.max(state.data.duration, 0.001));
      playhead.setAttribute('x1', x.toFixed(1)); playhead.setAttribute('x2', x.toFixed(1));
    }
    timelineEl.setAttribute('aria-valuenow', String(Math.round(t)));
    timelineEl.setAttribute('aria-valuetext', clock(t) + ', ' + m.label);
    stage.setAttribute('data-t', t.toFixed(3));
    stage.setAttribute('data-label', m.label);
    stage.setAttribute('data-level', m.level.toFixed(5));
    return m;
  }

  // ---- Listening from a point: the server renders from there and streams it.
  function playFrom(t) {
    if (!state.data) { return Promise.resolve(); }
    t = Math.min(Math.max(0, t), state.data.duration);
    state.point = t;
    $('from').value = String(Math.round(t * 10) / 10);
    render(t);
    var text = yamlEl.value;
    var ready = state.take && state.takeYaml === text ? Promise.resolve(state.take)
      : fetch('/studio/listen', { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: text })
          .then(function (r) { return r.json().then(function (a) { if (!a.ok) { throw new Error(r.status === 422 ? 'the preset has errors' : 'no take'); } state.take = a; state.takeYaml = text; return a; }); });
    return ready.then(function (take) {
      state.offset = t;
      document.body.setAttribute('data-play-from', t.toFixed(3));
      audio.src = take.url + '?from=' + t.toFixed(3);
      var p = audio.play();
      return p && p.catch ? p.catch(function (e) { $('save-status').textContent = 'Press play to listen (' + e.message + ')'; }) : p;
    }).catch(function (e) { $('save-status').textContent = 'Cannot listen: ' + e.message; });
  }
  audio.addEventListener('playing', function () { state.playing = true; document.body.setAttribute('data-playing', '1'); });
  audio.addEventListener('pause', function () { state.playing = false; state.point = state.offset + audio.currentTime; document.body.removeAttribute('data-playing'); });
  audio.addEventListener('timeupdate', function () {
    document.body.setAttribute('data-session-time', (state.offset + audio.currentTime).toFixed(3));
  });
  function tick() {
    if (state.playing) { render(state.offset + audio.currentTime); }
    window.requestAnimationFrame(tick);
  }
  function timeAt(event) {
    var svg = timelineEl.querySelector('svg');
    if (!svg || !state.data) { return null; }
    var box = svg.getBoundingClientRect(), unit = svg.viewBox.baseVal.width / box.width;
    var x = (event.clientX - box.left) * unit;
    return (x - parseFloat(svg.getAttribute('data-plot-left'))) / parseFloat(svg.getAttribute('data-plot-width')) * state.data.duration;
  }
  timelineEl.addEventListener('click', function (event) { var t = timeAt(event); if (t !== null) { playFrom(t); } });
  timelineEl.addEventListener('keydown', function (event) {
    if (!state.data) { return; }
    var step = event.shiftKey ? 60 : 5;
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      state.point = Math.min(Math.max(0, state.point + (event.key === 'ArrowRight' ? step : -step)), state.data.duration);
      $('from').value = String(Math.round(state.point * 10) / 10);
      render(state.point); event.preventDefault();
    } else if (event.key === 'Enter' || event.key === ' ') { playFrom(state.point); event.preventDefault(); }
  });
  $('play').addEventListener('click', function () { playFrom(parseFloat($('from').value) || 0); });
  $('from').addEventListener('input', function () { var t = parseFloat($('from').value); if (isFinite(t)) { state.point = t; render(t); } });

  // ---- Keeping it.
  function presetName() { var n = value('name'); return (n && n.replace(/[^A-Za-z0-9._-]/g, '')) || 'session'; }
  $('download').addEventListener('click', function () {
    var a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([yamlEl.value], { type: 'application/yaml' }));
    a.download = presetName() + '.yaml';
    document.body.appendChild(a); a.click(); a.remove();
  });
  function save() {
    var name = $('save-name').value.trim() || presetName(), status = $('save-status');
    var url = '/studio/save?name=' + encodeURIComponent(name) + ($('save-replace').checked ? '&replace=1' : '');
    return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: yamlEl.value })
      .then(function (r) {
        return r.text().then(function (body) {
          var a = null;
          try { a = JSON.parse(body); } catch (e) { a = null; }
          var text = a && a.ok ? 'Saved as ' + a.file + (a.replaced ? ' (replaced)' : '')
            : a && a.errors ? 'Not saved: ' + a.errors[0].message : 'Not saved: ' + body.trim();
          status.textContent = text;
          status.setAttribute('data-status', String(r.status));
          if (a && a.ok) { loadList(); }
          return text;
        });
      });
  }
  if ($('save')) { $('save').addEventListener('click', save); }

  // ---- Starting points.
  function loadList() {
    return fetch('/presets').then(function (r) { return r.json(); }).then(function (list) {
      var select = $('start'), chosen = select.value;
      while (select.options.length > 1) { select.remove(1); }
      list.forEach(function (p) { var o = document.createElement('option'); o.value = p.name; o.textContent = p.name + ' — ' + p.pattern; select.appendChild(o); });
      select.value = select.getAttribute('data-chosen') || chosen;
      document.body.setAttribute('data-presets', String(list.length));
    }).catch(function () { /* the blank one is still there */ });
  }
  function open(name) {
    $('start').setAttribute('data-chosen', name);
    if ($('start').value !== name) { $('start').value = name; }
    if (!name) { forgetChecks(); yamlEl.value = JSON.parse($('blank').textContent); outlineStale = true; changed(); return Promise.resolve(); }
    return fetch('/presets/' + encodeURIComponent(name)).then(function (r) { return r.json(); })
      .then(function (p) { forgetChecks(); yamlEl.value = p.yaml; state.point = 0; outlineStale = true; changed(); });
  }
  $('load').addEventListener('click', function () { open($('start').value); });
  $('start').addEventListener('change', function () { open($('start').value); });
  $('form').addEventListener('input', function (event) { fromForm(event.target); });
  $('form').addEventListener('click', function (event) {
    var b = event.target.closest && event.target.closest('[data-play-cue]');
    if (b) { playCue(b.getAttribute('data-play-cue')); }
  });
  $('add-line').addEventListener('click', addLine);
  $('add-segment').addEventListener('click', addSegment);
  $('download-render').addEventListener('click', downloadRender);
  // Typed YAML moves the values: the form waits for the server's new outline of it. The form's
  // edits before are the person's now, and not checked.
  yamlEl.addEventListener('input', function () { forgetChecks(); outlineStale = true; changed(); });
  yamlEl.addEventListener('scroll', function () { gutter.scrollTop = yamlEl.scrollTop; });

  window.medrenderStudio = { state: state, plan: plan, playFrom: playFrom, save: save, open: open,
                             changed: changed, moment: moment, render: render,
                             outline: function () { return outline; }, playCue: playCue, downloadRender: downloadRender,
                             addLine: addLine, addSegment: addSegment };
  loadList();
  var start = /(?:^#|&)preset=([A-Za-z0-9._-]+)/.exec(location.hash);
  open(start ? start[1] : '');
  window.requestAnimationFrame(tick);
})();
