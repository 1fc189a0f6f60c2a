import Foundation
import MedrenderCore

/// The preview page: one self-contained HTML file (no network; it works from `file://`) with the
/// session's audio and a player, the breathing circle in sync with it, and the timeline plot,
/// where a click seeks.
///
/// The circle is driven by the cue sheet against the audio element's `currentTime`, read on every
/// animation frame, never by a timer. The page's script exposes `window.medrenderPreview`:
/// `render(t)` draws the page at `t` seconds (the animation loop calls it with the audio's time),
/// `moment(t)` says what it shows there, and `seek(t)` moves the audio. A `#t=SECONDS` fragment
/// opens the page at that time.
public struct PreviewPage: Sendable {
    /// Where the page's audio comes from.
    public enum Audio: Sendable, Hashable {
        /// The file's bytes, in the page as a `data:` URI.
        case embedded(bytes: [UInt8], mimeType: String)
        /// A URL the page names: a file beside it (`session.ogg`) or the service's `/render?…`.
        case url(String)
    }

    public var timeline: SessionTimeline
    public var audio: Audio
    /// A line under the title: the preset, the pattern, what the render measured.
    public var subtitle: String

    /// The circle's size when empty, as a fraction of its full size.
    public static let emptyScale = 0.35

    public init(timeline: SessionTimeline, audio: Audio, subtitle: String = "") {
        self.timeline = timeline
        self.audio = audio
        self.subtitle = subtitle
    }

    /// The audio's MIME type for a file extension (`ogg`, `wav`, `flac`, `opus`, `mp3`).
    public static func mimeType(forExtension ext: String) -> String {
        switch ext.lowercased() {
        case "wav": "audio/wav"
        case "flac": "audio/flac"
        case "opus": "audio/ogg; codecs=opus"
        case "mp3": "audio/mpeg"
        default: "audio/ogg"
        }
    }

    var audioSource: String {
        switch audio {
        case .embedded(let bytes, let mimeType):
            return "data:\(mimeType.replacingOccurrences(of: " ", with: ""));base64,\(Data(bytes).base64EncodedString())"
        case .url(let url):
            return url
        }
    }

    /// The timeline as the page's script reads it.
    var dataJSON: String {
        let t = timeline
        func s(_ value: Double) -> String { Markup.number(value, decimals: 6) }
        let kinds = PhaseKind.allCases
        var out = "{\"title\":\(Markup.jsonString(t.title)),\"duration\":\(s(t.durationSeconds)),\"cycles\":\(t.cycleCount),"
        out += "\"emptyScale\":\(Markup.number(Self.emptyScale, decimals: 3)),"
        out += "\"settleLabel\":\(Markup.jsonString(t.words.settleIn)),\"closingLabel\":\(Markup.jsonString(t.words.rest)),"
        out += "\"kinds\":[" + kinds.map { Markup.jsonString($0.rawValue) }.joined(separator: ",") + "],"
        out += "\"labels\":[" + kinds.map { Markup.jsonString(t.words.instruction($0)) }.joined(separator: ",") + "],"
        out += "\"sections\":[" + t.sections.map {
            "[\(Markup.jsonString($0.name)),\(s($0.startSeconds)),\(s($0.endSeconds))]"
        }.joined(separator: ",") + "],"
        out += "\"voice\":[" + t.clips.filter { $0.kind == .voice }.map {
            "[\(Markup.jsonString($0.name)),\(s($0.startSeconds)),\(s($0.endSeconds))]"
        }.joined(separator: ",") + "],"
        out += "\"phases\":[\n"
        out += t.phases.map {
            "[\(kinds.firstIndex(of: $0.kind)!),\(s($0.startSeconds)),\(s($0.endSeconds)),\(Markup.number($0.fromLevel, decimals: 3)),\(Markup.number($0.toLevel, decimals: 3)),\($0.cycle)]"
        }.joined(separator: ",\n")
        out += "]}"
        return out
    }

    /// The whole page.
    public var html: String {
        let t = timeline
        let plot = SessionPlot(timeline: t, interactive: true).svg
        var kindColours = ""
        for (kind, colour) in SessionPlot.colours {
            kindColours += ".circle[data-kind=\"\(kind.rawValue)\"]{background:radial-gradient(circle at 50% 40%,#ffffff 0,\(colour) 70%)}\n"
        }
        return """
            \(Markup.documentHead(language: t.language.tag, title: Markup.escape(t.title) + " · " + Markup.escape(t.words.preview)))
            <script>window.addEventListener('error',function(e){var d=document.documentElement;d.setAttribute('data-errors',(d.getAttribute('data-errors')||'')+(e.message||'error')+'; ');});</script>
            <style>
            \(Self.style)\(kindColours)</style>
            </head>
            <body>
            <main>
            <header><h1>\(Markup.escape(t.title))</h1><p class="sub">\(Markup.escape(subtitle))</p></header>
            <section class="player">
            <div class="stage" id="stage">
            <div class="ring"></div>
            <div class="circle" id="circle"></div>
            <div class="label" id="label" aria-live="polite">\(Markup.escape(t.words.settleIn))</div>
            </div>
            <dl class="facts">
            <div><dt>\(Markup.escape(t.words.section))</dt><dd id="section"></dd></div>
            <div><dt>\(Markup.escape(t.words.cycle))</dt><dd id="cycle"></dd></div>
            <div><dt>\(Markup.escape(t.words.elapsed))</dt><dd id="elapsed">0:00</dd></div>
            <div><dt>\(Markup.escape(t.words.remaining))</dt><dd id="remaining"></dd></div>
            </dl>
            <p class="voice" id="voice"></p>
            <audio id="audio" controls preload="auto" src="\(Markup.escape(audioSource))"></audio>
            </section>
            <section class="timeline" aria-label="\(Markup.escape(t.words.seekHint))">
            \(plot)</section>
            </main>
            <script type="application/json" id="session-data">\(dataJSON)</script>
            <script>
            \(Self.script)</script>
            </body>
            </html>

            """
    }

    static let style = """
        :root{color-scheme:light;--ink:#2b3a4a;--soft:#6b7b8b;--bg:#f3f6f8;--card:#ffffff}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        main{max-width:1100px;margin:0 auto;padding:16px}
        header h1{font-size:1.35rem;font-weight:600;margin:4px 0 2px}
        header .sub{margin:0 0 12px;color:var(--soft);font-size:.9rem}
        .player{background:var(--card);border-radius:16px;padding:20px 16px;display:flex;flex-direction:column;align-items:center;box-shadow:0 1px 3px rgba(40,60,80,.08)}
        .stage{position:relative;width:min(72vw,320px);aspect-ratio:1/1;margin:8px auto 16px}
        .ring{position:absolute;inset:0;border-radius:50%;border:2px dashed #d5dee6}
        .circle{position:absolute;inset:0;border-radius:50%;background:radial-gradient(circle at 50% 40%,#ffffff 0,#c9d6e2 70%);transform:scale(.35);will-change:transform}
        .label{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;text-align:center;font-size:1.3rem;font-weight:500;color:#24384c;padding:0 18%}
        .facts{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:8px;width:100%;max-width:560px;margin:0 0 8px}
        .facts div{text-align:center}
        .facts dt{font-size:.72rem;text-transform:uppercase;letter-spacing:.06em;color:var(--soft)}
        .facts dd{margin:0;font-variant-numeric:tabular-nums;font-size:1rem}
        .voice{min-height:1.4em;margin:0 0 8px;color:#8a4f73;font-size:.9rem}
        audio{width:100%;max-width:560px}
        .timeline{margin-top:16px;background:var(--card);border-radius:16px;padding:8px;overflow-x:auto;box-shadow:0 1px 3px rgba(40,60,80,.08)}
        .timeline svg{display:block;width:100%;min-width:720px;height:auto;cursor:pointer}
        @media (max-width:560px){main{padding:10px}.facts{grid-template-columns:repeat(2,minmax(0,1fr))}.label{font-size:1.1rem}}

        """

    static let script = #"""
        (function () {
          'use strict';
          var data = JSON.parse(document.getElementById('session-data').textContent);
          var audio = document.getElementById('audio');
          var stage = document.getElementById('stage');
          var circle = document.getElementById('circle');
          var label = document.getElementById('label');
          var sectionEl = document.getElementById('section');
          var cycleEl = document.getElementById('cycle');
          var elapsedEl = document.getElementById('elapsed');
          var remainingEl = document.getElementById('remaining');
          var voiceEl = document.getElementById('voice');
          var svg = document.querySelector('svg.session-plot');
          var playhead = document.getElementById('playhead');
          var phases = data.phases;

          function ease(p) {
            p = Math.min(1, Math.max(0, p));
            return (1 - Math.cos(Math.PI * p)) / 2;
          }
          // The last item of `list` whose start (at `index`) is at or before t: -1 when none.
          function lastStartingBy(list, index, t) {
            var low = 0, high = list.length - 1, found = -1;
            while (low <= high) {
              var mid = (low + high) >> 1;
              if (list[mid][index] <= t) { found = mid; low = mid + 1; } else { high = mid - 1; }
            }
            return found;
          }
          function clock(seconds) {
            var s = Math.max(0, Math.floor(seconds + 1e-6));
            var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
            var two = function (n) { return n < 10 ? '0' + n : '' + n; };
            return h > 0 ? h + ':' + two(m) + ':' + two(r) : m + ':' + two(r);
          }
          // What the page shows at t seconds: the same computation as SessionTimeline.moment(at:).
          function moment(t) {
            var s = lastStartingBy(data.sections, 1, t);
            var section = data.sections.length ? data.sections[Math.max(0, s)][0] : '';
            var i = lastStartingBy(phases, 1, t);
            if (i < 0 || t >= phases[i][2]) {
              var before = !phases.length || t < phases[0][1];
              return { label: before ? data.settleLabel : data.closingLabel, level: 0, progress: 0,
                       cycle: before ? 0 : data.cycles, section: section, kind: '' };
            }
            var p = phases[i];
            var progress = (t - p[1]) / (p[2] - p[1]);
            return { label: data.labels[p[0]], level: p[3] + (p[4] - p[3]) * ease(progress), progress: progress,
                     cycle: p[5], section: section, kind: data.kinds[p[0]] };
          }
          function render(t) {
            t = Math.min(Math.max(0, t || 0), data.duration);
            var m = moment(t);
            var scale = data.emptyScale + (1 - data.emptyScale) * m.level;
            circle.style.transform = 'scale(' + scale.toFixed(5) + ')';
            circle.setAttribute('data-kind', m.kind);
            if (label.textContent !== m.label) { label.textContent = m.label; }
            sectionEl.textContent = m.section;
            cycleEl.textContent = m.cycle > 0 ? m.cycle + ' / ' + data.cycles : '–';
            elapsedEl.textContent = clock(t);
            remainingEl.textContent = '-' + clock(data.duration - t);
            var v = lastStartingBy(data.voice, 1, t);
            voiceEl.textContent = v >= 0 && t < data.voice[v][2] ? '♪ ' + data.voice[v][0] : '';
            if (playhead) {
              var x = parseFloat(svg.getAttribute('data-plot-left')) +
                      parseFloat(svg.getAttribute('data-plot-width')) * (data.duration > 0 ? t / data.duration : 0);
              playhead.setAttribute('x1', x.toFixed(1));
              playhead.setAttribute('x2', x.toFixed(1));
            }
            stage.setAttribute('data-t', t.toFixed(3));
            stage.setAttribute('data-label', m.label);
            stage.setAttribute('data-level', m.level.toFixed(5));
            stage.setAttribute('data-scale', scale.toFixed(5));
            stage.setAttribute('data-cycle', String(m.cycle));
            stage.setAttribute('data-section', m.section);
            stage.setAttribute('data-diameter', circle.getBoundingClientRect().width.toFixed(3));
            stage.setAttribute('data-full-diameter', circle.offsetWidth.toFixed(3));
            return m;
          }
          // A time asked for (a click, the URL) is shown until the audio plays from it.
          var pinned = null;
          function seek(t) {
            t = Math.min(Math.max(0, t), data.duration);
            pinned = t;
            try { audio.currentTime = t; } catch (e) { /* before the audio is ready; shown all the same */ }
            render(t);
          }
          function hashTime() {
            var m = /(?:^#|&)t=([0-9]+(?:\.[0-9]+)?)/.exec(location.hash);
            return m ? parseFloat(m[1]) : null;
          }
          function tick() {
            render(pinned !== null && audio.paused ? pinned : audio.currentTime);
            window.requestAnimationFrame(tick);
          }
          // Once the audio has taken a seek (ours or its own controls'), its clock is the one shown.
          audio.addEventListener('play', function () { pinned = null; });
          audio.addEventListener('seeked', function () { pinned = null; });
          audio.addEventListener('loadedmetadata', function () {
            if (pinned !== null && Math.abs(audio.currentTime - pinned) > 0.001) {
              try { audio.currentTime = pinned; } catch (e) { /* shown all the same */ }
            }
          });
          svg.addEventListener('click', function (event) {
            var box = svg.getBoundingClientRect();
            var unit = svg.viewBox.baseVal.width / box.width;
            var x = (event.clientX - box.left) * unit;
            var left = parseFloat(svg.getAttribute('data-plot-left'));
            var width = parseFloat(svg.getAttribute('data-plot-width'));
            seek((x - left) / width * data.duration);
          });
          window.addEventListener('hashchange', function () { var h = hashTime(); if (h !== null) { seek(h); } });
          window.medrenderPreview = { render: render, moment: moment, seek: seek, data: data };
          var start = hashTime();
          if (start !== null) { seek(start); } else { pinned = 0; render(0); }
          window.requestAnimationFrame(tick);
        })();

        """#
}
