import Foundation
import MedrenderTestSupport
import Testing

/// Headless Chromium, as `make test-deps` installs it.
let studioChromium = which("chromium") ?? which("chromium-browser")

/// The studio in a real browser: the page as the server serves it, saved to a file with the test's
/// steps after its script (the browser started with the same-origin checks off, as the page is a
/// file and its requests go to the server): the form changes the YAML and the timeline, an error shows at its line, a click on the
/// timeline plays from that point, a save lands in the presets folder. Screenshots at 390 and
/// 1280 px are kept under `.build/studio-artifacts/`.
@Suite(.serialized) struct StudioBrowserTests {
    static var artifacts: String {
        let folder = "\(PackagePaths.root)/.build/studio-artifacts"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func flags(_ dir: TemporaryDirectory, size: String) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
         "--user-data-dir=\(dir.file("chromium-profile"))", "--window-size=\(size)", "--autoplay-policy=no-user-gesture-required",
         "--mute-audio", "--virtual-time-budget=600000"]
    }

    /// The harness: the studio page as served, its URLs based on the server, with the test's steps
    /// after its own script. Each step waits for the studio's answer (`data-plan-seq` moving on)
    /// before the next; the results are `data-t-*` attributes of the body.
    static func harness(page: String, port: Int) -> String {
        let steps = """
        <script>
        var out = document.body;
        function w() { return window; }
        function d() { return document; }
        function put(name, value) { out.setAttribute('data-t-' + name, String(value)); }
        function until(test, then, label) {
          var tries = 0;
          (function again() {
            var ok = false;
            try { ok = test(); } catch (e) { ok = false; }
            if (ok) { then(); } else if (++tries > 40000) {
              var a = d().getElementById('audio');
              put('timeout', label + ' (audio: ready ' + a.readyState + ', network ' + a.networkState + ', error ' + (a.error && a.error.code)
                  + ', time ' + a.currentTime + ', src ' + a.getAttribute('src') + '; status: ' + d().getElementById('save-status').textContent + ')');
              put('done', '1');
            } else { setTimeout(again, 5); }
          })();
        }
        function seq() { return parseInt(d().body.getAttribute('data-plan-seq') || '0', 10); }
        function planned(after) { return function () { return seq() > after && !d().body.hasAttribute('data-busy'); }; }
        function type(el, value) { el.value = value; el.dispatchEvent(new (w().Event)('input', { bubbles: true })); }
        var svgBefore, n;
        until(function () { return seq() > 0 && d().querySelector('#timeline svg'); }, function () {
          var yaml = d().getElementById('yaml');
          put('yaml-before', yaml.value.split('\\n').filter(function (l) { return /^pattern:/.test(l); })[0]);
          put('exhale-field', d().getElementById('f-exhale').value);
          svgBefore = d().querySelector('#timeline svg').outerHTML;
          put('doc-width', d().documentElement.scrollWidth);
          n = seq();
          type(d().getElementById('f-exhale'), '9');
          until(planned(n), function () {
            put('yaml-after', yaml.value.split('\\n').filter(function (l) { return /^pattern:/.test(l); })[0]);
            put('svg-changed', d().querySelector('#timeline svg').outerHTML !== svgBefore);
            put('summary', d().getElementById('summary').textContent);
            put('redraw-ms', d().body.getAttribute('data-redraw-ms'));
            n = seq();
            type(yaml, yaml.value.replace(/^minutes: .*$/m, 'minutes: -5'));
            until(planned(n), function () {
              put('error-text', d().getElementById('yaml-error').textContent);
              put('error-line', yaml.getAttribute('data-error-line'));
              var bad = d().querySelector('#gutter .bad');
              put('gutter-line', bad ? bad.getAttribute('data-line') : 'none');
              put('field-error', d().getElementById('err-minutes').textContent);
              put('field-invalid', d().getElementById('f-minutes').getAttribute('aria-invalid'));
              put('minutes-line', yaml.value.split('\\n').findIndex(function (l) { return /^minutes:/.test(l); }) + 1);
              n = seq();
              type(yaml, yaml.value.replace(/^minutes: .*$/m, 'minutes: 2'));
              until(planned(n), function () {
                put('error-cleared', d().getElementById('yaml-error').textContent === '');
                var svg = d().querySelector('#timeline svg'), box = svg.getBoundingClientRect();
                var unit = box.width / svg.viewBox.baseVal.width;
                var x = box.left + (parseFloat(svg.getAttribute('data-plot-left')) + parseFloat(svg.getAttribute('data-plot-width')) * 0.5) * unit;
                svg.dispatchEvent(new (w().MouseEvent)('click', { clientX: x, clientY: box.top + box.height / 2, bubbles: true }));
                var duration = parseFloat(d().getElementById('timeline').getAttribute('data-duration'));
                put('duration', duration);
                until(function () { var a = d().getElementById('audio'); return d().body.hasAttribute('data-playing') && a.currentTime > 0.2 && d().body.hasAttribute('data-session-time'); }, function () {
                  var a = d().getElementById('audio');
                  put('play-from', d().body.getAttribute('data-play-from'));
                  put('audio-src', a.getAttribute('src'));
                  put('audio-paused', a.paused);
                  put('audio-time', a.currentTime);
                  put('session-time', d().body.getAttribute('data-session-time'));
                  put('stage-t', d().getElementById('stage').getAttribute('data-t'));
                  a.pause();
                  until(function () { return !d().body.hasAttribute('data-playing'); }, function () {
                  var tl = d().getElementById('timeline'), studio = w().medrenderStudio;
                  var before = studio.state.point;
                  tl.focus();
                  tl.dispatchEvent(new (w().KeyboardEvent)('keydown', { key: 'ArrowRight', bubbles: true }));
                  put('key-moved', (studio.state.point - before).toFixed(3));
                  put('key-shown', (parseFloat(d().getElementById('stage').getAttribute('data-t')) - studio.state.point).toFixed(3));
                  var save = d().getElementById('save');
                  if (!save) { put('save-status', 'no save button'); put('done', '1'); return; }
                  d().getElementById('save-name').value = 'browser-made';
                  save.click();
                  until(function () { return d().getElementById('save-status').hasAttribute('data-status'); }, function () {
                    put('save-status', d().getElementById('save-status').getAttribute('data-status') + ' ' + d().getElementById('save-status').textContent);
                    put('done', '1');
                  }, 'save');
                  }, 'pause');
                }, 'play');
              }, 'fixed');
            }, 'error');
          }, 'exhale');
        }, 'first plan');
        </script>
        """
        return page.replacingOccurrences(of: "<head>", with: "<head><base href=\"http://127.0.0.1:\(port)/\">")
            .replacingOccurrences(of: "</body>", with: steps + "</body>")
    }

    static func attributes(_ dom: String) -> [String: String] {
        var out: [String: String] = [:]
        guard let body = dom.range(of: "<body"), let end = dom[body.upperBound...].range(of: ">") else { return out }
        let tag = String(dom[body.upperBound..<end.lowerBound])
        let pattern = try! NSRegularExpression(pattern: "data-t-([a-z-]+)=\"([^\"]*)\"")
        for m in pattern.matches(in: tag, range: NSRange(tag.startIndex..., in: tag)) {
            out[String(tag[Range(m.range(at: 1), in: tag)!])] = String(tag[Range(m.range(at: 2), in: tag)!])
                .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
        }
        return out
    }

    @Test(.enabled(if: studioChromium != nil, "headless Chromium is not installed: `make test-deps` installs it (Debian package chromium)"))
    func theStudioEditsPlansPlaysAndSavesInABrowser() throws {
        let browser = try #require(studioChromium)
        let outer = TemporaryDirectory("studio-browser")
        let folder = outer.file("presets")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = try ServerProcess(["--presets-dir", folder])
        defer { server.stop() }
        var report: [String] = []
        for width in [1280, 390] {
            let dir = TemporaryDirectory("studio-browser-\(width)")
            try? FileManager.default.removeItem(atPath: "\(folder)/browser-made.yaml")
            let studio = String(decoding: try server.get("/studio").body, as: UTF8.self)
            _ = dir.write("studio.html", Self.harness(page: studio, port: server.port))
            // A frame of the width asked for (a browser window is at least 500 px wide), whose
            // results are copied to the outer page's body when the steps are done.
            let outerPage = dir.write("outer.html", """
                <!DOCTYPE html><html><body style="margin:0">
                <iframe id="f" src="studio.html" style="width:\(width)px;height:1000px;border:0"></iframe>
                <script>
                (function copy() {
                  var inner = null;
                  try { inner = document.getElementById('f').contentDocument.body; } catch (e) { inner = null; }
                  if (!inner || !inner.hasAttribute('data-t-done')) { setTimeout(copy, 20); return; }
                  Array.prototype.forEach.call(inner.attributes, function (a) {
                    if (a.name.indexOf('data-t-') === 0) { document.body.setAttribute(a.name, a.value); }
                  });
                })();
                </script></body></html>
                """)
            let dump = try runProcess(browser, Self.flags(dir, size: "\(max(width + 40, 500)),1100") + [
                "--disable-web-security", "--allow-file-access-from-files", "--enable-logging=stderr", "--v=0", "--dump-dom", "file://\(outerPage)",
            ], killAfter: 180)
            #expect(dump.status == 0, "\(dump.stderr.suffix(2000))")
            let r = Self.attributes(dump.stdout)
            #expect(r["timeout"] == nil, "stopped waiting for: \(r["timeout"] ?? "") — \(r)")
            #expect(r["done"] == "1", "\(r)")
            // The form's exhale changed the YAML's pattern and the timeline.
            #expect(r["yaml-before"] == "pattern: 4-0-6-0" && r["exhale-field"] == "6", "\(r)")
            #expect(r["yaml-after"] == "pattern: 4-0-9-0", "\(r)")
            #expect(r["svg-changed"] == "true")
            #expect(r["summary"]?.contains("4-0-9-0") == true, "\(r["summary"] ?? "")")
            // A bad value: the error at its line, in the gutter and beside its field.
            let line = try #require(r["minutes-line"])
            #expect(r["error-line"] == line && r["gutter-line"] == line, "\(r)")
            #expect(r["error-text"]?.hasPrefix("Line \(line), column ") == true, "\(r["error-text"] ?? "")")
            #expect(r["field-error"]?.isEmpty == false && r["field-invalid"] == "true", "\(r)")
            #expect(r["error-cleared"] == "true")
            // Play from the middle of the timeline: the audio plays the render from that point.
            let duration = try #require(r["duration"].flatMap(Double.init))
            let from = try #require(r["play-from"].flatMap(Double.init))
            #expect(abs(from - duration / 2) < duration / 200, "played from \(from) of \(duration)")
            #expect(r["audio-src"]?.contains("?from=\(String(format: "%.3f", from))") == true, "\(r["audio-src"] ?? "")")
            #expect(r["audio-paused"] == "false")
            let sessionTime = try #require(r["session-time"].flatMap(Double.init))
            #expect(sessionTime >= from && sessionTime < from + 30, "session time \(sessionTime) from \(from)")
            #expect(r["key-moved"].flatMap(Double.init) == 5, "the arrow key moves the point: \(r["key-moved"] ?? "")")
            #expect(r["key-shown"].flatMap(Double.init) == 0, "the circle shows the point: \(r["key-shown"] ?? "")")
            // Save: the file is in the presets folder.
            #expect(r["save-status"]?.hasPrefix("200 Saved as browser-made.yaml") == true, "\(r["save-status"] ?? "")")
            let saved = try String(contentsOfFile: "\(folder)/browser-made.yaml", encoding: .utf8)
            #expect(saved.contains("pattern: 4-0-9-0") && saved.contains("minutes: 2"))
            // Nothing wider than the window.
            #expect(Int(r["doc-width"] ?? "") ?? .max <= width, "the page is \(r["doc-width"] ?? "?") px wide in a \(width) px frame")
            let console = dump.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") && !$0.contains("favicon") }
            #expect(console.isEmpty, "\(console)")
            report.append("\(width) px: timeline redrawn \(r["redraw-ms"] ?? "?") ms after the exhale changed, debounce included, "
                + "on the browser's virtual clock (--virtual-time-budget), not wall-clock time")
        }
        // Screenshots of a library preset, kept for a person to look at.
        for (name, size) in [("studio-phone", "390,1600"), ("studio-desktop", "1280,1000")] {
            let dir = TemporaryDirectory("studio-shot")
            let path = "\(Self.artifacts)/\(name).png"
            try? FileManager.default.removeItem(atPath: path)
            let shot = try runProcess(browser, Self.flags(dir, size: size) + ["--screenshot=\(path)", "http://127.0.0.1:\(server.port)/studio#preset=box-breath"],
                                      killAfter: 180)
            #expect(shot.status == 0 && FileManager.default.fileExists(atPath: path), "no screenshot: \(shot.stderr.suffix(500))")
        }
        let text = report.joined(separator: "\n") + "\n"
        try? text.write(toFile: "\(Self.artifacts)/redraw.txt", atomically: true, encoding: .utf8)
        print(text)
    }
}
