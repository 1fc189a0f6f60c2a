import Foundation
import MedrenderTestSupport
import Testing

/// Headless Chromium, as `make test-deps` installs it.
let studioChromium = which("chromium") ?? which("chromium-browser")

/// The studio in a real browser, at a true width: `scripts/studio-browser.py` drives headless
/// Chromium over the DevTools protocol, so a 390 px phone is 390 px (a headless window is at least
/// 500 px wide), and presses real Tab keys. The page is the one the server serves, at its own URL.
/// Screenshots at 390 and 1280 px are kept under `.build/studio-artifacts/`.
@Suite(.serialized) struct StudioBrowserTests {
    static var artifacts: String {
        let folder = "\(PackagePaths.root)/.build/studio-artifacts"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The steps' helpers: waiting for a condition (or failing with what was waited for), typing
    /// into a field as a person does (an input event), waiting for the studio's next plan.
    static let helpers = """
        const d = document, $ = (id) => d.getElementById(id);
        const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
        async function until(test, label, ms = 60000) {
          const end = Date.now() + ms;
          for (;;) {
            let ok = false;
            try { ok = test(); } catch (e) { ok = false; }
            if (ok) return;
            if (Date.now() > end) throw new Error('stopped waiting for ' + label + ' (status: ' + $('save-status').textContent + ')');
            await sleep(10);
          }
        }
        const seq = () => parseInt(d.body.getAttribute('data-plan-seq') || '0', 10);
        async function planned(after, label) { await until(() => seq() > after && !d.body.hasAttribute('data-busy'), label); }
        async function type(el, value) {
          const n = seq();
          el.value = value;
          el.dispatchEvent(new Event('input', { bubbles: true }));
          await planned(n, 'the plan after ' + el.id);
        }
        const yamlLine = (re) => $('yaml').value.split('\\n').filter((l) => re.test(l))[0] || null;
        const unlabelled = () => [...d.querySelectorAll('input, select, textarea')]
          .filter((el) => !el.hidden && !(el.labels && el.labels.length) && !el.hasAttribute('aria-label')).map((el) => el.id || el.tagName);
        const unnamedButtons = () => [...d.querySelectorAll('button')]
          .filter((el) => !el.textContent.trim() && !el.hasAttribute('aria-label')).map((el) => el.id || 'button');
        """

    /// Edits in the form and the YAML, all errors at once, playing from a point, the keyboard, saving.
    static let mainSteps = """
        (async () => {
        \(helpers)
        const r = {};
        await until(() => seq() > 0 && d.querySelector('#timeline svg'), 'the first plan');
        r.yamlBefore = yamlLine(/^pattern:/);
        r.exhaleField = $('f-exhale').value;
        const svgBefore = d.querySelector('#timeline svg').outerHTML;
        await type($('f-exhale'), '9');
        r.yamlAfter = yamlLine(/^pattern:/);
        r.svgChanged = d.querySelector('#timeline svg').outerHTML !== svgBefore;
        r.summary = $('summary').textContent;
        r.redrawMs = parseFloat(d.body.getAttribute('data-redraw-ms'));
        // Two bad values at once: both errors, each at its line and beside its field.
        const y = $('yaml');
        await type(y, y.value.replace(/^minutes: .*$/m, 'minutes: -5').replace(/^  loudness: .*$/m, '  loudness: 9'));
        r.errorText = $('yaml-error').textContent;
        r.errorLines = y.getAttribute('data-error-lines');
        r.gutterLines = [...d.querySelectorAll('#gutter .bad')].map((e) => e.getAttribute('data-line')).join(' ');
        r.minutesLine = y.value.split('\\n').findIndex((l) => /^minutes:/.test(l)) + 1;
        r.loudnessLine = y.value.split('\\n').findIndex((l) => /^  loudness:/.test(l)) + 1;
        r.minutesError = $('err-minutes').textContent;
        r.minutesInvalid = $('f-minutes').getAttribute('aria-invalid');
        r.loudnessError = $('err-loudness').textContent;
        r.loudnessInvalid = $('f-loudness').getAttribute('aria-invalid');
        await type(y, y.value.replace(/^minutes: .*$/m, 'minutes: 2').replace(/^  loudness: .*$/m, '  loudness: -18'));
        r.errorCleared = $('yaml-error').textContent === '' && !$('f-minutes').hasAttribute('aria-invalid');
        // Play from the middle of the timeline: the audio element plays the render from that point.
        const svg = d.querySelector('#timeline svg');
        svg.scrollIntoView();
        const box = svg.getBoundingClientRect(), unit = box.width / svg.viewBox.baseVal.width;
        const x = box.left + (parseFloat(svg.getAttribute('data-plot-left')) + parseFloat(svg.getAttribute('data-plot-width')) * 0.5) * unit;
        svg.dispatchEvent(new MouseEvent('click', { clientX: x, clientY: box.top + box.height / 2, bubbles: true }));
        r.duration = parseFloat($('timeline').getAttribute('data-duration'));
        const a = $('audio');
        await until(() => d.body.hasAttribute('data-playing') && a.currentTime > 0.2 && d.body.hasAttribute('data-session-time'), 'the audio to play');
        r.playFrom = parseFloat(d.body.getAttribute('data-play-from'));
        r.audioSrc = a.getAttribute('src');
        r.audioPaused = a.paused;
        r.sessionTime = parseFloat(d.body.getAttribute('data-session-time'));
        r.audioTime = a.currentTime;
        a.pause();
        await until(() => !d.body.hasAttribute('data-playing'), 'the pause');
        const studio = window.medrenderStudio, before = studio.state.point;
        $('timeline').focus();
        $('timeline').dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
        r.keyMoved = studio.state.point - before;
        r.keyShown = parseFloat($('stage').getAttribute('data-t')) - studio.state.point;
        r.unlabelled = unlabelled();
        r.unnamedButtons = unnamedButtons();
        $('save-name').value = 'browser-made';
        $('save').click();
        await until(() => $('save-status').hasAttribute('data-status'), 'the save');
        r.saveStatus = $('save-status').getAttribute('data-status') + ' ' + $('save-status').textContent;
        return r;
        })()
        """

    /// The form's other fields, each changing the YAML and the YAML changing them; a cue heard;
    /// a render downloaded.
    static let formSteps = """
        (async () => {
        \(helpers)
        const r = {}, y = $('yaml');
        await until(() => seq() > 0 && d.querySelector('#timeline svg') && d.body.hasAttribute('data-outline'), 'the first plan');
        // Cue tones per phase: gain and tone in the form go into the cue's line.
        await type($('f-cue-exhale-gain'), '-15');
        await type($('f-cue-exhale-tone'), 'bowl');
        r.exhaleCue = yamlLine(/^  exhale:/);
        await type($('f-cue-hold-tone'), 'tick');
        r.holdCue = yamlLine(/^  hold:/);
        // ... and the YAML goes into the form.
        await type(y, y.value.replace('pitch: 659.26', 'pitch: 700'));
        r.inhalePitchField = $('f-cue-inhale-pitch').value;
        // Play a cue: the studio serves its sound, the page plays it.
        $('play-cue-inhale').click();
        const cue = $('cue-audio');
        await until(() => d.body.getAttribute('data-cue') === 'inhale' && cue.currentTime > 0 || cue.ended, 'the cue to play');
        r.cueDuration = cue.duration;
        r.cuePlayed = cue.currentTime > 0 || cue.ended;
        // Bells: none in the blank preset; the form adds them.
        await type($('f-bells-start'), 'bell');
        await type($('f-bells-every'), '1');
        r.bells = y.value.split('\\n').filter((l) => /^bells:|^  (start|every):/.test(l)).join('|');
        await type(y, y.value.replace('every: 1', 'every: 0.5'));
        r.everyField = $('f-bells-every').value;
        // Loudness and a bed's level.
        await type($('f-loudness'), '-20');
        r.loudness = yamlLine(/^  loudness:/);
        await type($('f-bed-0'), '-30');
        r.bed = yamlLine(/sound: rain/);
        // Minutes or cycles.
        $('f-length-unit').value = 'cycles';
        await type($('f-length-unit'), 'cycles');
        r.cycles = yamlLine(/^cycles:/) + '|' + yamlLine(/^minutes:/) + '|' + $('f-minutes-label').textContent;
        await type($('f-minutes'), '12');
        r.cyclesAfter = yamlLine(/^cycles:/);
        r.cyclesPlanned = $('summary').textContent;
        // Voice lines of a guided script.
        let n = seq();
        $('add-line').click();
        await planned(n, 'the plan after adding a line');
        await until(() => $('f-line-0-text'), 'the line in the form');
        r.lineAdded = $('f-line-0-text').value + '|' + $('f-line-0-pause').value;
        await type($('f-line-0-text'), 'Let the shoulders drop.');
        await type($('f-line-0-during'), 'breathing');
        await type($('f-line-0-pause'), '3');
        r.guide = y.value.slice(y.value.indexOf('guide:')).split('\\n').slice(0, 5).join('|');
        await type(y, y.value.replace('pause: 3', 'pause: 4'));
        r.pauseField = $('f-line-0-pause').value;
        // The pause is before the line, the rest after it.
        r.lineLabels = [...d.querySelectorAll('[data-line="0"] label')].map((l) => l.textContent).join('|');
        await type($('f-line-0-rest'), '8');
        r.rest = yamlLine(/^\\s+rest:/);
        // Segments of a chained session.
        n = seq();
        $('add-segment').click();
        await planned(n, 'the plan after adding a segment');
        await until(() => $('f-seg-1-pattern'), 'the segments in the form');
        await type($('f-seg-1-pattern'), '5-0-5-0');
        await type($('f-seg-0-length'), '1');
        r.segments = y.value.slice(y.value.indexOf('segments:')).split('\\n').slice(0, 3).join('|');
        r.segmentsPlanned = $('summary').textContent;
        r.phasesDisabled = $('f-exhale').disabled;
        r.errors = $('yaml-error').textContent;
        r.unlabelled = unlabelled();
        // Download the render: the link the page follows answers with the file.
        $('render-format').value = 'mp3';
        $('download-render').click();
        await until(() => d.body.hasAttribute('data-render-url'), 'the render link');
        r.renderUrl = d.body.getAttribute('data-render-url');
        const got = await fetch(r.renderUrl);
        r.renderStatus = got.status;
        r.renderType = got.headers.get('content-type');
        r.renderBytes = (await got.arrayBuffer()).byteLength;
        r.yaml = y.value;
        return r;
        })()
        """

    /// An edit of the form that the YAML would not read back: a settle written over two lines,
    /// whose first the form finds and writes, is undone and said beside its field; on one line the
    /// same edit is written and reads back.
    static let refusedSteps = """
        (async () => {
        \(helpers)
        const r = {}, y = $('yaml');
        const checked = () => parseInt(d.body.getAttribute('data-form-checked') || '0', 10);
        await until(() => seq() > 0 && d.body.hasAttribute('data-outline'), 'the first plan');
        await type(y, y.value.replace(/^settle: .*$/m, 'settle: 15\\n  5'));
        const broken = y.value, before = checked();
        $('f-settle').value = '20';
        $('f-settle').dispatchEvent(new Event('input', { bubbles: true }));
        r.written = y.value.includes('settle: 20\\n  5');
        await until(() => checked() > before, 'the check of the edit');
        await until(() => y.value === broken && $('err-settle').textContent !== '', 'the edit undone and said');
        r.refused = d.body.getAttribute('data-form-refused');
        r.status = $('save-status').textContent;
        r.settleError = $('err-settle').textContent;
        r.settleInvalid = $('f-settle').getAttribute('aria-invalid');
        await type(y, y.value.replace('settle: 15\\n  5', 'settle: 15'));
        const again = checked();
        await type($('f-settle'), '25');
        await until(() => checked() > again, 'the check of the second edit');
        r.after = yamlLine(/^settle:/);
        r.refusedAfter = d.body.hasAttribute('data-form-refused');
        r.settleErrorAfter = $('err-settle').textContent;
        return r;
        })()
        """

    static let firstPlan = """
        (async () => {
        \(helpers)
        await until(() => seq() > 0 && d.querySelector('#timeline svg') && d.body.hasAttribute('data-outline'), 'the first plan');
        await sleep(300);
        const sheet = [...d.styleSheets].find((s) => (s.href || '').endsWith('/studio/studio.css'));
        return { unlabelled: unlabelled(), styleRules: sheet ? sheet.cssRules.length : -1, studio: !!window.medrenderStudio };
        })()
        """

    /// The number of rules at the top level of `css` (a block, or an at-rule ending in `;`): what a
    /// browser that read every one of them counts in the sheet's `cssRules`.
    static func topLevelRules(_ css: String) -> Int {
        var count = 0, depth = 0, inComment = false, previous: Character = " ", statement = false
        for c in css {
            defer { previous = c }
            if inComment { if previous == "*" && c == "/" { inComment = false }; continue }
            if previous == "/" && c == "*" { inComment = true; continue }
            switch c {
            case "{": depth += 1
            case "}": depth -= 1; if depth == 0 { count += 1; statement = false }
            case ";" where depth == 0 && statement: count += 1; statement = false
            case "@" where depth == 0: statement = true
            default: break
            }
        }
        return count
    }

    /// Two bad values shown, for a screenshot.
    static let errorsShown = """
        (async () => {
        \(helpers)
        await until(() => seq() > 0 && d.querySelector('#timeline svg') && d.body.hasAttribute('data-outline'), 'the first plan');
        const y = $('yaml');
        await type(y, y.value.replace(/^minutes: .*$/m, 'minutes: -5').replace(/^  exhale: (.*)gain: -12/m, '  exhale: $1gain: 40'));
        return { errorLines: y.getAttribute('data-error-lines'), cueError: $('err-cues').textContent,
                 cueInvalid: $('f-cue-exhale-gain').getAttribute('aria-invalid') };
        })()
        """

    /// Runs `steps` in the page at `url`, `width` px wide: the script's JSON.
    static func browse(_ url: String, width: Int, height: Int, steps: String, tabs: Int = 0, screenshot: String? = nil) throws -> [String: Any] {
        let browser = try #require(studioChromium)
        let python = try #require(which("python3"))
        let dir = TemporaryDirectory("studio-browser-\(width)")
        let stepsFile = dir.write("steps.js", steps)
        var arguments = ["\(PackagePaths.root)/scripts/studio-browser.py", "--chromium", browser, "--url", url, "--width", "\(width)",
                         "--height", "\(height)", "--steps", stepsFile, "--tabs", "\(tabs)", "--timeout", "240"]
        if let screenshot { arguments += ["--screenshot", screenshot] }
        let run = try runProcess(python, arguments, killAfter: 300)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let out = try #require(object, "no answer: \(run.stdout.suffix(500)) \(run.stderr.suffix(500))")
        #expect(out["error"] == nil, "\(out["error"] ?? "")")
        #expect((out["exceptions"] as? [String])?.isEmpty == true, "\(out["exceptions"] ?? "")")
        return out
    }

    @Test(.enabled(if: studioChromium != nil && which("python3") != nil,
                   "headless Chromium is not installed: `make test-deps` installs it (Debian package chromium)"))
    func theStudioEditsPlansPlaysAndSavesInABrowser() throws {
        let outer = TemporaryDirectory("studio-browser")
        let folder = outer.file("presets")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = try ServerProcess(["--presets-dir", folder])
        defer { server.stop() }
        var report: [String] = []
        for width in [1280, 390] {
            try? FileManager.default.removeItem(atPath: "\(folder)/browser-made.yaml")
            let out = try Self.browse("http://127.0.0.1:\(server.port)/studio", width: width, height: width < 600 ? 844 : 1000,
                                      steps: Self.mainSteps, tabs: 70)
            let r = try #require(out["result"] as? [String: Any], "\(out)")
            // The form's exhale changed the YAML's pattern and the timeline.
            #expect(r["yamlBefore"] as? String == "pattern: 4-0-6-0" && r["exhaleField"] as? String == "6", "\(r)")
            #expect(r["yamlAfter"] as? String == "pattern: 4-0-9-0", "\(r)")
            #expect(r["svgChanged"] as? Bool == true)
            #expect((r["summary"] as? String)?.contains("4-0-9-0") == true, "\(r["summary"] ?? "")")
            // Two bad values: both errors at once, each at its line, in the gutter and beside its field.
            let minutesLine = try #require(r["minutesLine"] as? Int), loudnessLine = try #require(r["loudnessLine"] as? Int)
            #expect(r["errorLines"] as? String == "\(minutesLine) \(loudnessLine)", "\(r)")
            #expect(r["gutterLines"] as? String == "\(minutesLine) \(loudnessLine)", "\(r)")
            let errorText = r["errorText"] as? String ?? ""
            #expect(errorText.contains("Line \(minutesLine), column ") && errorText.contains("Line \(loudnessLine), column "), "\(errorText)")
            #expect((r["minutesError"] as? String)?.isEmpty == false && r["minutesInvalid"] as? String == "true", "\(r)")
            #expect((r["loudnessError"] as? String)?.isEmpty == false && r["loudnessInvalid"] as? String == "true", "\(r)")
            #expect(r["errorCleared"] as? Bool == true)
            // Play from the middle of the timeline: the audio plays the render from that point.
            let duration = try #require(r["duration"] as? Double)
            let from = try #require(r["playFrom"] as? Double)
            #expect(abs(from - duration / 2) < duration / 200, "played from \(from) of \(duration)")
            #expect((r["audioSrc"] as? String)?.contains("?from=\(String(format: "%.3f", from))") == true, "\(r["audioSrc"] ?? "")")
            #expect(r["audioPaused"] as? Bool == false)
            let sessionTime = try #require(r["sessionTime"] as? Double)
            #expect(sessionTime >= from && sessionTime < from + 30, "session time \(sessionTime) from \(from)")
            #expect(abs((r["keyMoved"] as? Double ?? 0) - 5) < 1e-6, "the arrow key moves the point: \(r["keyMoved"] ?? "")")
            #expect(abs(r["keyShown"] as? Double ?? 1) < 0.001, "the circle shows the point: \(r["keyShown"] ?? "")")
            // Labels for screen readers: every field has one, every button a name.
            #expect((r["unlabelled"] as? [String])?.isEmpty == true, "fields without a label: \(r["unlabelled"] ?? "")")
            #expect((r["unnamedButtons"] as? [String])?.isEmpty == true, "buttons without a name: \(r["unnamedButtons"] ?? "")")
            // Save: the file is in the presets folder.
            #expect((r["saveStatus"] as? String)?.hasPrefix("200 Saved as browser-made.yaml") == true, "\(r["saveStatus"] ?? "")")
            let saved = try String(contentsOfFile: "\(folder)/browser-made.yaml", encoding: .utf8)
            #expect(saved.contains("pattern: 4-0-9-0") && saved.contains("minutes: 2"))
            // Nothing wider than the screen: a true 390 px one too.
            #expect(out["innerWidth"] as? Int == width, "\(out["innerWidth"] ?? "")")
            #expect(out["scrollWidth"] as? Int ?? .max <= width, "the page is \(out["scrollWidth"] ?? "?") px wide on a \(width) px screen")
            // The keyboard: Tab reaches the form, the YAML, play, save and the timeline, each
            // labelled and on the screen.
            let tabs = try #require(out["tabs"] as? [[String: Any]])
            let ids = tabs.compactMap { $0["id"] as? String }
            for id in ["start", "f-exhale", "f-minutes", "f-cue-inhale-tone", "play-cue-inhale", "add-line", "yaml", "download-render",
                       "save-name", "save", "play", "timeline"] {
                #expect(ids.contains(id), "Tab does not reach #\(id) at \(width) px: \(ids)")
            }
            let focused = tabs.filter { ($0["tag"] as? String) != "BODY" }
            #expect(focused.allSatisfy { $0["labelled"] as? Bool == true || $0["id"] as? String == "timeline" || $0["tag"] as? String == "AUDIO" },
                    "\(focused.filter { $0["labelled"] as? Bool != true })")
            #expect(focused.allSatisfy { $0["inside"] as? Bool == true }, "outside the screen: \(focused.filter { $0["inside"] as? Bool != true })")
            #expect((out["console"] as? [String])?.isEmpty == true, "\(out["console"] ?? "")")
            report.append(String(format: "%d px: timeline redrawn %.0f ms after the exhale changed in the form (debounce included, wall clock)",
                                 width, r["redrawMs"] as? Double ?? -1))
        }
        // Screenshots of a library preset, at a phone's width and a desktop's, kept to be looked at.
        for (name, width, height) in [("studio-phone", 390, 844), ("studio-desktop", 1280, 1000)] {
            let path = "\(Self.artifacts)/\(name).png"
            try? FileManager.default.removeItem(atPath: path)
            let out = try Self.browse("http://127.0.0.1:\(server.port)/studio#preset=box-breath", width: width, height: height,
                                      steps: Self.firstPlan, screenshot: path)
            #expect(FileManager.default.fileExists(atPath: path), "no screenshot: \(out)")
            #expect(out["scrollWidth"] as? Int ?? .max <= width, "box-breath is \(out["scrollWidth"] ?? "?") px wide on \(width) px")
            let first = try #require(out["result"] as? [String: Any], "\(out)")
            #expect((first["unlabelled"] as? [String])?.isEmpty == true, "\(out)")
            // The page's own files ran and styled it: Chromium kept every rule of studio.css.
            #expect(first["studio"] as? Bool == true, "\(first)")
            let css = try String(contentsOfFile: "\(PackagePaths.root)/Sources/MedrenderPreview/Resources/studio.css", encoding: .utf8)
            #expect(first["styleRules"] as? Int == Self.topLevelRules(css), "\(first)")
        }
        // Errors at a phone's width: at their lines and beside their fields, both at once.
        let errorShot = "\(Self.artifacts)/studio-phone-errors.png"
        let errors = try Self.browse("http://127.0.0.1:\(server.port)/studio", width: 390, height: 844, steps: Self.errorsShown, screenshot: errorShot)
        let shown = try #require(errors["result"] as? [String: Any], "\(errors)")
        #expect(shown["errorLines"] as? String == "3 9", "\(shown)")
        #expect((shown["cueError"] as? String)?.contains("40 dB") == true && shown["cueInvalid"] as? String == "true", "\(shown)")
        #expect(errors["scrollWidth"] as? Int ?? .max <= 390, "with errors the page is \(errors["scrollWidth"] ?? "?") px wide")
        let text = report.joined(separator: "\n") + "\n"
        try? text.write(toFile: "\(Self.artifacts)/redraw.txt", atomically: true, encoding: .utf8)
        print(text)
    }

    @Test(.enabled(if: studioChromium != nil && which("python3") != nil,
                   "headless Chromium is not installed: `make test-deps` installs it (Debian package chromium)"))
    func everyCommonFieldOfTheFormKeepsTheYAMLInStep() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let out = try Self.browse("http://127.0.0.1:\(server.port)/studio", width: 1280, height: 1000, steps: Self.formSteps,
                                  screenshot: "\(Self.artifacts)/studio-form-desktop.png")
        let r = try #require(out["result"] as? [String: Any], "\(out)")
        #expect(r["exhaleCue"] as? String == "  exhale: { tone: bowl, pitch: 440, gain: -15 }", "\(r)")
        #expect(r["holdCue"] as? String == "  hold: { tone: tick }", "\(r)")
        #expect(r["inhalePitchField"] as? String == "700", "\(r)")
        #expect(r["cuePlayed"] as? Bool == true, "\(r)")
        let cueDuration = try #require(r["cueDuration"] as? Double)
        #expect(cueDuration > 0.3 && cueDuration <= 4.01, "the cue's sound is \(cueDuration) s")
        #expect(r["bells"] as? String == "bells:|  start: bell|  every: 1", "\(r)")
        #expect(r["everyField"] as? String == "0.5", "\(r)")
        #expect(r["loudness"] as? String == "  loudness: -20", "\(r)")
        #expect(r["bed"] as? String == "    - { sound: rain, level: -30 }", "\(r)")
        #expect((r["cycles"] as? String)?.hasPrefix("cycles: ") == true && (r["cycles"] as? String)?.hasSuffix("|null|Cycles") == true, "\(r)")
        #expect(r["cyclesAfter"] as? String == "cycles: 12", "\(r)")
        #expect((r["cyclesPlanned"] as? String)?.contains("12 cycles") == true, "\(r)")
        #expect(r["lineAdded"] as? String == "Breathe in slowly.|2", "\(r)")
        #expect(r["guide"] as? String == "guide:|  lines:|    - say: \"Let the shoulders drop.\"|      pause: 3|      during: breathing", "\(r)")
        #expect(r["pauseField"] as? String == "4", "\(r)")
        #expect((r["lineLabels"] as? String)?.contains("|Pause before (s)|Rest after (s)|") == true, "\(r)")
        #expect(r["rest"] as? String == "      rest: 8", "\(r)")
        #expect((r["segments"] as? String)?.hasPrefix("segments:|  - { name: First, pattern: 4-0-6-0, minutes: 1 }|  - { name: Second, pattern: 5-0-5-0 }") == true,
                "\(r)")
        #expect((r["segmentsPlanned"] as? String)?.contains("4-0-6-0 → 5-0-5-0") == true, "\(r)")
        #expect(r["phasesDisabled"] as? Bool == true)
        #expect(r["errors"] as? String == "", "\(r)")
        #expect((r["unlabelled"] as? [String])?.isEmpty == true, "\(r)")
        #expect((r["renderUrl"] as? String)?.hasSuffix("?format=mp3") == true, "\(r)")
        #expect(r["renderStatus"] as? Int == 200 && r["renderType"] as? String == "audio/mpeg", "\(r)")
        #expect(r["renderBytes"] as? Int ?? 0 > 10_000, "\(r)")
        // The YAML the form wrote is a preset the command line takes.
        let yaml = try #require(r["yaml"] as? String)
        let dir = TemporaryDirectory("studio-form")
        let check = try runMedrender(["validate", dir.write("form.yaml", yaml)])
        #expect(check.status == 0, "\(check.stderr)\n\(yaml)")
        // An edit the YAML would not read back is undone and said, not left in the YAML.
        let refused = try Self.browse("http://127.0.0.1:\(server.port)/studio", width: 1280, height: 1000, steps: Self.refusedSteps)
        let q = try #require(refused["result"] as? [String: Any], "\(refused)")
        #expect(q["written"] as? Bool == true, "\(q)")
        #expect(q["refused"] as? String == "settle", "\(q)")
        #expect((q["status"] as? String)?.contains("settle would read \"20 5\", not \"20\"") == true, "\(q)")
        #expect((q["settleError"] as? String)?.contains("the YAML is as it was") == true && q["settleInvalid"] as? String == "true", "\(q)")
        #expect(q["after"] as? String == "settle: 25" && q["refusedAfter"] as? Bool == false && q["settleErrorAfter"] as? String == "", "\(q)")
    }

    /// A teacher's work, kept: the language, the voice, an elastic pause and a rest written by the
    /// form, saved, and listed in Start from at once (`NAME` is the preset's name).
    static let keepSteps = """
        (async () => {
        \(helpers)
        const r = {}, y = $('yaml');
        const guide = () => (/^guide:\\n((?:  .*\\n?)*)/m.exec(y.value) || [null, ''])[1].trim().replace(/\\s+/g, ' ');
        await until(() => seq() > 0 && d.querySelector('#timeline svg') && d.body.hasAttribute('data-outline'), 'the first plan');
        r.languages = [...$('f-language').options].map((o) => o.value).join(' ');
        r.voices = [...d.querySelectorAll('#voices option')].map((o) => o.value).join(' ');
        await type($('f-language'), 'de');
        r.language = yamlLine(/^language:/);
        let n = seq();
        $('add-line').click();
        await planned(n, 'the plan with a line');
        await until(() => $('f-line-0-pause-weight'), 'the line\\'s fields');
        await type($('f-voice'), 'espeak-ng');
        await type($('f-line-0-pause-weight'), '3');
        r.elastic = guide();
        await type($('f-line-0-rest'), '5');
        r.rested = guide();
        await type($('f-line-0-pause-weight'), '');
        r.fixed = guide();
        await type($('f-line-0-pause-weight'), '1.5');
        r.guide = guide();
        r.errors = $('yaml-error').textContent + $('save-status').textContent;
        $('save-name').value = 'NAME';
        $('save').click();
        await until(() => $('save-status').hasAttribute('data-status'), 'the save');
        r.saveStatus = $('save-status').getAttribute('data-status') + ' ' + $('save-status').textContent;
        await until(() => [...$('start').options].some((o) => o.value === 'NAME'), 'the saved preset in Start from');
        r.yaml = y.value;
        return r;
        })()
        """

    /// The page loaded again: the saved preset started from, its language changed, and heard from
    /// a chosen point; where the circle, the player and the form are.
    static let reopenSteps = """
        (async () => {
        \(helpers)
        const r = {}, y = $('yaml');
        await until(() => seq() > 0 && d.body.hasAttribute('data-presets') && d.body.hasAttribute('data-outline'), 'the first plan and the list');
        r.listed = [...$('start').options].some((o) => o.value === 'NAME');
        const n = seq();
        $('start').value = 'NAME';
        $('start').dispatchEvent(new Event('change', { bubbles: true }));
        await planned(n, 'the saved preset\\'s plan');
        await until(() => $('f-line-0-pause'), 'the line\\'s fields');
        r.yaml = y.value;
        r.fields = ['f-language', 'f-voice', 'f-line-0-pause', 'f-line-0-pause-weight', 'f-line-0-rest'].map((id) => $(id).value).join('|');
        await type($('f-language'), 'fr');
        r.language = yamlLine(/^language:/);
        r.errors = $('yaml-error').textContent;
        const box = (id) => $(id).getBoundingClientRect();
        r.layout = { stageTop: box('stage').top, audioTop: box('audio').top, formTop: box('form').top, stageLeft: box('stage').left, formRight: box('form').right };
        $('from').value = '30';
        $('from').dispatchEvent(new Event('input', { bubbles: true }));
        $('play').click();
        const a = $('audio');
        await until(() => d.body.hasAttribute('data-playing') && a.currentTime > 0.2 && d.body.hasAttribute('data-session-time'), 'the audio to play', 120000);
        r.playFrom = parseFloat(d.body.getAttribute('data-play-from'));
        r.audioSrc = a.getAttribute('src');
        r.paused = a.paused;
        r.sessionTime = parseFloat(d.body.getAttribute('data-session-time'));
        a.pause();
        return r;
        })()
        """

    @Test(.enabled(if: studioChromium != nil && which("python3") != nil && which("espeak-ng") != nil,
                   "headless Chromium or espeak-ng is not installed: `make test-deps` installs them"))
    func theStudioKeepsATeachersWorkAcrossAReload() throws {
        let outer = TemporaryDirectory("studio-keep")
        let folder = outer.file("presets")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = try ServerProcess(["--presets-dir", folder], environment: ["XDG_CACHE_HOME": outer.file("cache")])
        defer { server.stop() }
        for width in [1400, 390] {
            let name = "kept-\(width)"
            let url = "http://127.0.0.1:\(server.port)/studio"
            let height = width < 600 ? 844 : 1000
            let kept = try Self.browse(url, width: width, height: height, steps: Self.keepSteps.replacingOccurrences(of: "NAME", with: name))
            let k = try #require(kept["result"] as? [String: Any], "\(kept)")
            // The language field offers the library's languages; the voice field the installed voices.
            #expect((k["languages"] as? String)?.contains(" de en es fr it pt-BR pt-PT") == true, "\(k)")
            #expect((k["voices"] as? String)?.split(separator: " ").contains("espeak-ng") == true, "\(k)")
            #expect(k["language"] as? String == "language: de", "\(k)")
            // A pause with a weight is elastic, a rest fixed, and an emptied weight fixes the pause again.
            #expect((k["elastic"] as? String)?.contains("pause: { min: 2, weight: 3 }") == true, "\(k["elastic"] ?? "")")
            #expect((k["rested"] as? String)?.contains("rest: 5") == true, "\(k["rested"] ?? "")")
            #expect((k["fixed"] as? String)?.contains("pause: 2") == true && (k["fixed"] as? String)?.contains("weight") == false, "\(k["fixed"] ?? "")")
            let written = try #require(k["guide"] as? String)
            #expect(written.contains("pause: { min: 2, weight: 1.5 }") && written.contains("voice: \"espeak-ng\""), "\(written)")
            #expect(k["errors"] as? String == "", "\(k)")
            #expect((k["saveStatus"] as? String)?.hasPrefix("200 Saved as \(name).yaml") == true, "\(k)")
            let saved = try String(contentsOfFile: "\(folder)/\(name).yaml", encoding: .utf8)
            #expect(saved == k["yaml"] as? String, "the file is not the page's YAML")
            // Reloaded: the saved preset is there to start from, and opens as it was saved.
            let again = try Self.browse(url, width: width, height: height, steps: Self.reopenSteps.replacingOccurrences(of: "NAME", with: name))
            let r = try #require(again["result"] as? [String: Any], "\(again)")
            #expect(r["listed"] as? Bool == true, "\(r)")
            #expect(r["yaml"] as? String == saved, "\(r["yaml"] ?? "")")
            #expect(r["fields"] as? String == "de|espeak-ng|2|1.5|5", "\(r)")
            #expect(r["language"] as? String == "language: fr" && r["errors"] as? String == "", "\(r)")
            // Heard from the chosen point.
            #expect(r["playFrom"] as? Double == 30 && (r["audioSrc"] as? String)?.contains("?from=30.000") == true, "\(r)")
            #expect(r["paused"] as? Bool == false && (r["sessionTime"] as? Double ?? 0) >= 30, "\(r)")
            // On a phone the circle and the player come before the form; on a desktop they are beside it.
            let layout = try #require(r["layout"] as? [String: Double])
            if width < 600 {
                #expect(layout["stageTop"]! < layout["formTop"]! && layout["audioTop"]! < layout["formTop"]!, "\(layout)")
            } else {
                #expect(layout["stageLeft"]! >= layout["formRight"]!, "\(layout)")
            }
            #expect(again["scrollWidth"] as? Int ?? .max <= width, "\(again["scrollWidth"] ?? "?") px wide on \(width) px")
        }
    }
}
