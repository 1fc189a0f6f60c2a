extension StudioPage {
    /// The page's script: the form and the YAML kept in sync, the plan asked for as they change,
    /// errors shown where they are, the circle and the timeline redrawn, listening from a point.
    static let script = #"""
        (function () {
          'use strict';
          function $(id) { return document.getElementById(id); }
          var yamlEl = $('yaml'), gutter = $('gutter'), errorBox = $('yaml-error'), timelineEl = $('timeline');
          var audio = $('audio'), circle = $('circle'), label = $('label'), stage = $('stage'), clockEl = $('clock');
          var phaseIds = ['f-inhale', 'f-hold-in', 'f-exhale', 'f-hold-out'];
          var state = { data: null, point: 0, offset: 0, playing: false, take: null, takeYaml: null, seq: 0, shown: 0,
                        typedAt: 0, redrawMs: null, errors: [] };

          // ---- YAML, line by line: the form edits the lines it knows in place and leaves the rest.
          function esc(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
          function topLine(text, key) { return new RegExp('^' + esc(key) + ':[ \\t]*([^\\n#]*?)[ \\t]*(#.*)?$', 'm').exec(text); }
          function topValue(text, key) { var m = topLine(text, key); return m ? m[1] : null; }
          function setTop(text, key, value, replacing) {
            var m = topLine(text, key) || (replacing ? topLine(text, replacing) : null);
            var line = key + ': ' + value;
            if (m) { return text.slice(0, m.index) + line + text.slice(m.index + m[0].length); }
            return text.replace(/\n*$/, '\n') + line + '\n';
          }
          // The block under a top-level key: [start, end) of its lines after the key's line.
          function block(text, key) {
            var m = new RegExp('^' + esc(key) + ':[ \\t]*(#.*)?$', 'm').exec(text);
            if (!m) { return null; }
            var start = m.index + m[0].length + 1, end = start, rest = text.slice(start).split('\n'), pos = start;
            for (var i = 0; i < rest.length; i++) {
              var l = rest[i];
              if (l.length && !/^[ \t]/.test(l) && !/^#/.test(l)) { break; }
              pos += l.length + 1; if (l.trim().length) { end = Math.min(pos, text.length); }
            }
            return { head: m.index, start: Math.min(start, text.length), end: Math.max(end, Math.min(start, text.length)) };
          }
          function patternPhases(text) {
            var v = topValue(text, 'pattern');
            if (v === null) { return null; }
            var m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(v.trim());
            return m ? [m[1], m[2], m[3], m[4]] : null;
          }
          function loudness(text) {
            var b = block(text, 'master');
            var m = b ? /^[ \t]+loudness:[ \t]*(-?\d+(?:\.\d+)?)/m.exec(text.slice(b.start, b.end)) : null;
            if (m) { return { value: m[1], at: b.start + m.index + m[0].length - m[1].length }; }
            var inline = /^master:[ \t]*\{[^\n]*?loudness:[ \t]*(-?\d+(?:\.\d+)?)/m.exec(text);
            return inline ? { value: inline[1], at: inline.index + inline[0].length - inline[1].length } : null;
          }
          function setLoudness(text, value) {
            var l = loudness(text);
            if (l) { return text.slice(0, l.at) + value + text.slice(l.at + l.value.length); }
            var b = block(text, 'master');
            if (b) { return text.slice(0, b.start) + '  loudness: ' + value + '\n' + text.slice(b.start); }
            return text.replace(/\n*$/, '\n') + 'master:\n  loudness: ' + value + '\n';
          }
          // The beds' sounds and levels, in order, each level with its place in the text.
          function beds(text) {
            var b = block(text, 'ambience'), out = [];
            if (!b) { return out; }
            var part = text.slice(b.start, b.end), re = /-[ \t]*(?:\{[^}\n]*\}|[^\n]*(?:\n[ \t]+[^-\s][^\n]*)*)/g, m;
            while ((m = re.exec(part))) {
              var s = /sound:[ \t]*([^,}\n]+)/.exec(m[0]), l = /level:[ \t]*(-?\d+(?:\.\d+)?)/.exec(m[0]);
              if (!s) { continue; }
              out.push({ sound: s[1].trim(), level: l ? l[1] : null, at: l ? b.start + m.index + l.index + l[0].length - l[1].length : -1 });
            }
            return out;
          }

          // ---- The form from the YAML, and the YAML from the form.
          function fillForm(text) {
            var active = document.activeElement;
            var phases = patternPhases(text);
            phaseIds.forEach(function (id, i) {
              var el = $(id);
              el.disabled = !phases;
              if (el !== active) { el.value = phases ? phases[i] : ''; }
            });
            $('pattern-note').hidden = !!phases || topValue(text, 'pattern') === null && !/^segments:/m.test(text);
            [['f-minutes', 'minutes'], ['f-settle', 'settle'], ['f-closing', 'closing']].forEach(function (p) {
              var v = topValue(text, p[1]);
              if ($(p[0]) !== active) { $(p[0]).value = v !== null && /^-?\d+(\.\d+)?$/.test(v) ? v : ''; }
            });
            var l = loudness(text);
            if ($('f-loudness') !== active) { $('f-loudness').value = l ? l.value : ''; }
            var list = beds(text), holder = $('beds');
            if (holder.children.length !== list.length || list.some(function (b, i) { return holder.children[i].getAttribute('data-sound') !== b.sound; })) {
              holder.innerHTML = '';
              list.forEach(function (b, i) {
                var div = document.createElement('div');
                div.setAttribute('data-sound', b.sound);
                var id = 'f-bed-' + i;
                div.innerHTML = '<label for="' + id + '"></label><input id="' + id + '" data-bed="' + i + '" type="number" min="-60" max="0" step="1" inputmode="decimal">';
                div.firstChild.textContent = b.sound;
                holder.appendChild(div);
              });
            }
            list.forEach(function (b, i) { var el = $('f-bed-' + i); if (el !== active) { el.value = b.level === null ? '' : b.level; } el.disabled = b.level === null; });
          }
          function number(v) { var n = String(v).trim(); return /^-?\d+(\.\d+)?$/.test(n) ? n : null; }
          function fromForm(target) {
            var text = yamlEl.value, v = number(target.value);
            if (v === null) { return; }
            if (target.hasAttribute('data-phase')) {
              var phases = patternPhases(text);
              if (!phases) { return; }
              phases[+target.getAttribute('data-phase')] = v;
              text = setTop(text, 'pattern', phases.join('-'));
            } else if (target.id === 'f-minutes') { text = setTop(text, 'minutes', v, 'cycles');
            } else if (target.id === 'f-settle') { text = setTop(text, 'settle', v);
            } else if (target.id === 'f-closing') { text = setTop(text, 'closing', v);
            } else if (target.id === 'f-loudness') { text = setLoudness(text, v);
            } else if (target.hasAttribute('data-bed')) {
              var b = beds(text)[+target.getAttribute('data-bed')];
              if (!b || b.at < 0) { return; }
              text = text.slice(0, b.at) + v + text.slice(b.at + b.level.length);
            } else { return; }
            if (text !== yamlEl.value) { yamlEl.value = text; changed(); }
          }

          // ---- Errors where they are.
          var fieldFor = [[/^(pattern|segments|ramp|limits)/, 'err-pattern', phaseIds], [/^(minutes|cycles)/, 'err-minutes', ['f-minutes']],
                          [/^settle/, 'err-settle', ['f-settle']], [/^closing/, 'err-closing', ['f-closing']],
                          [/^master/, 'err-loudness', ['f-loudness']], [/^ambience/, 'err-beds', []]];
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
            var first = errors.filter(function (e) { return e.line; })[0];
            if (first) { yamlEl.setAttribute('data-error-line', String(first.line)); yamlEl.setAttribute('aria-invalid', 'true'); }
            else { yamlEl.removeAttribute('data-error-line'); }
            errors.forEach(function (e) {
              fieldFor.forEach(function (f) {
                if (e.field && f[0].test(e.field)) {
                  $(f[1]).textContent = e.message;
                  var ids = f[2];
                  var bed = /^ambience\.beds\[(\d+)\]/.exec(e.field);
                  if (bed) { ids = ['f-bed-' + bed[1]]; }
                  ids.forEach(function (id) { var el = $(id); if (el) { el.setAttribute('aria-invalid', 'true'); } });
                }
              });
            });
            drawGutter();
          }

          // ---- The plan, asked for as the preset changes.
          var timer = null;
          function changed() {
            state.typedAt = performance.now();
            fillForm(yamlEl.value);
            drawGutter();
            clearTimeout(timer);
            timer = setTimeout(plan, DEBOUNCE_MS);
          }
          function plan() {
            var seq = ++state.seq, typedAt = state.typedAt, text = yamlEl.value;
            document.body.setAttribute('data-busy', '1');
            return fetch('/studio/plan', { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: text })
              .then(function (r) {
                return r.text().then(function (body) {
                  if (seq !== state.seq) { return; }
                  var answer = null;
                  try { answer = JSON.parse(body); } catch (e) { answer = null; }
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
          function presetName() { var n = topValue(yamlEl.value, 'name'); return (n && n.replace(/[^A-Za-z0-9._-]/g, '')) || 'session'; }
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
            if (!name) { yamlEl.value = JSON.parse($('blank').textContent); changed(); return Promise.resolve(); }
            return fetch('/presets/' + encodeURIComponent(name)).then(function (r) { return r.json(); })
              .then(function (p) { yamlEl.value = p.yaml; state.point = 0; changed(); });
          }
          $('load').addEventListener('click', function () { open($('start').value); });
          $('start').addEventListener('change', function () { open($('start').value); });
          $('form').addEventListener('input', function (event) { fromForm(event.target); });
          yamlEl.addEventListener('input', changed);
          yamlEl.addEventListener('scroll', function () { gutter.scrollTop = yamlEl.scrollTop; });

          window.medrenderStudio = { state: state, plan: plan, playFrom: playFrom, save: save, open: open, fillForm: fillForm,
                                     changed: changed, moment: moment, render: render };
          loadList();
          var start = /(?:^#|&)preset=([A-Za-z0-9._-]+)/.exec(location.hash);
          open(start ? start[1] : '');
          window.requestAnimationFrame(tick);
        })();

        """#
}
