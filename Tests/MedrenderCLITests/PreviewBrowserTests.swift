import Foundation
import MedrenderTestSupport
import Testing

/// Headless Chromium, as `make test-deps` installs it (`chromium`).
let chromium = which("chromium") ?? which("chromium-browser")

/// How the tests run Chromium: headless, with a profile of the test's own, no sandbox (tests may run
/// as root), shared memory in files (a container's /dev/shm is small).
func chromiumFlags(profile: String) -> [String] {
    ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
     "--user-data-dir=\(profile)"]
}

/// A browser that hangs is stopped after this many seconds (a safety net, not a timing check).
let chromiumLimitSeconds = 180.0

/// The preview page in a real browser: opened at chosen times of a known pattern, its label and
/// circle are checked against the phase progress the cue sheet gives, with a screenshot of each
/// kept under `.build/preview-artifacts/`.
@Suite(.serialized) struct PreviewBrowserTests {
    /// The page's state at one time: the stage's attributes as the DOM has them after load, and
    /// what the browser said on its console.
    struct PageState {
        var attributes: [String: String]
        var errors: String?
        var console: [String]
    }

    static var artifacts: String {
        let folder = "\(PackagePaths.root)/.build/preview-artifacts"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Opens `page` at `#t=seconds` in a window of `size`, returns what it shows; saves a
    /// screenshot as `shot` when given.
    static func open(_ page: String, at seconds: Double, size: String, dir: TemporaryDirectory, shot: String? = nil) throws -> PageState {
        let browser = try #require(chromium)
        let url = "file://\(page)#t=\(seconds)"
        let common = chromiumFlags(profile: dir.file("chromium-profile")) + ["--window-size=\(size)"]
        let dump = try runProcess(browser, common + ["--enable-logging=stderr", "--v=0", "--dump-dom", url], killAfter: chromiumLimitSeconds)
        #expect(dump.status == 0, "\(dump.stderr)")
        if let shot {
            let path = "\(artifacts)/\(shot).png"
            try? FileManager.default.removeItem(atPath: path)
            let result = try runProcess(browser, common + ["--screenshot=\(path)", url], killAfter: chromiumLimitSeconds)
            #expect(result.status == 0 && FileManager.default.fileExists(atPath: path), "no screenshot: \(result.stderr)")
        }
        guard let stageStart = dump.stdout.range(of: "<div class=\"stage\" id=\"stage\""),
              let stageEnd = dump.stdout[stageStart.upperBound...].range(of: ">") else {
            throw PreviewTestError("the page has no stage: \(dump.stdout.prefix(400))")
        }
        var attributes: [String: String] = [:]
        let tag = String(dump.stdout[stageStart.upperBound..<stageEnd.lowerBound])
        let pattern = try NSRegularExpression(pattern: "([a-z-]+)=\"([^\"]*)\"")
        for match in pattern.matches(in: tag, range: NSRange(tag.startIndex..., in: tag)) {
            attributes[String(tag[Range(match.range(at: 1), in: tag)!])] = String(tag[Range(match.range(at: 2), in: tag)!])
        }
        let errors = try NSRegularExpression(pattern: "data-errors=\"([^\"]*)\"")
            .firstMatch(in: dump.stdout, range: NSRange(dump.stdout.startIndex..., in: dump.stdout))
            .map { String(dump.stdout[Range($0.range(at: 1), in: dump.stdout)!]) }
        let console = dump.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        return PageState(attributes: attributes, errors: errors, console: console)
    }

    /// The raised-cosine ease the page promises: the circle's level through a phase.
    static func ease(_ p: Double) -> Double { (1 - cos(Double.pi * p)) / 2 }

    @Test(.enabled(if: chromium != nil, "headless Chromium is not installed: `make test-deps` installs it (Debian package chromium)"))
    func theCircleAndLabelFollowTheCueSheetInABrowser() throws {
        let dir = TemporaryDirectory("preview-browser")
        let page = dir.file("session.html"), sheet = dir.file("sheet.json")
        let options = ["--preset", "box-breath", "--minutes", "1", "--rate", "16000"]
        let made = try runMedrender(["preview"] + options + ["-o", page])
        #expect(made.status == 0, "\(made.stderr)")
        let cues = try runMedrender(["cues"] + options + ["-o", sheet])
        #expect(cues.status == 0, "\(cues.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sheet))) as! [String: Any]
        let rate = Double((json["rate"] as! NSNumber).intValue)
        let marks = (json["cues"] as! [[String: Any]]).map {
            (kind: $0["kind"] as! String, seconds: Double(($0["frame"] as! NSNumber).int64Value) / rate, cycle: ($0["cycle"] as! NSNumber).intValue)
        }
        // The second cycle: inhale, hold, exhale, hold, each with its end from the next mark.
        let second = try #require(marks.firstIndex { $0.cycle == 2 && $0.kind == "inhale" })
        let checks: [(index: Int, progress: Double, label: String, level: (Double) -> Double, name: String)] = [
            (second, 0.3, "Breathe in", { Self.ease($0) }, "mid-inhale"),
            (second + 1, 0.5, "Hold", { _ in 1 }, "mid-hold"),
            (second + 2, 0.7, "Breathe out", { 1 - Self.ease($0) }, "mid-exhale"),
        ]
        for check in checks {
            let start = marks[check.index].seconds, end = marks[check.index + 1].seconds
            let t = start + check.progress * (end - start)
            let expected = check.level(check.progress)
            let state = try Self.open(page, at: t, size: "390,844", dir: dir, shot: "phone-\(check.name)")
            #expect(state.attributes["data-label"] == check.label, "\(check.name) at \(t) s")
            #expect(state.attributes["data-cycle"] == "2")
            let level = try #require(state.attributes["data-level"].flatMap(Double.init))
            #expect(abs(level - expected) < 1e-3, "\(check.name): level \(level), the cue sheet says \(expected)")
            // The circle as laid out: its drawn diameter over its full size.
            let diameter = try #require(state.attributes["data-diameter"].flatMap(Double.init))
            let full = try #require(state.attributes["data-full-diameter"].flatMap(Double.init))
            #expect(full > 100)
            let emptyScale = 0.35
            #expect(abs(diameter / full - (emptyScale + (1 - emptyScale) * expected)) < 0.01,
                    "\(check.name): diameter \(diameter) of \(full)")
            #expect(state.errors == nil, "\(state.errors ?? "")")
            #expect(state.console.isEmpty, "console: \(state.console)")
        }
        // A desktop window too, in the settle, before the first breath.
        let desktop = try Self.open(page, at: 1, size: "1280,900", dir: dir, shot: "desktop-settle")
        #expect(desktop.attributes["data-label"] == "Settle in")
        #expect(desktop.attributes["data-section"] == "Settle")
        #expect(desktop.console.isEmpty, "console: \(desktop.console)")
    }

    /// The physiological sigh: the first inhale fills the circle to 0.8, the top-up fills the rest.
    @Test(.enabled(if: chromium != nil, "headless Chromium is not installed: `make test-deps` installs it (Debian package chromium)"))
    func theSighsTopUpFillsTheCircle() throws {
        let dir = TemporaryDirectory("preview-sigh")
        let page = dir.file("sigh.html"), sheet = dir.file("sheet.json")
        let options = ["--preset", "physiological-sigh", "--minutes", "1", "--rate", "16000"]
        #expect(try runMedrender(["preview"] + options + ["-o", page]).status == 0)
        #expect(try runMedrender(["cues"] + options + ["-o", sheet]).status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sheet))) as! [String: Any]
        let rate = Double((json["rate"] as! NSNumber).intValue)
        let marks = (json["cues"] as! [[String: Any]]).map { (kind: $0["kind"] as! String, seconds: Double(($0["frame"] as! NSNumber).int64Value) / rate) }
        let topUp = try #require(marks.firstIndex { $0.kind == "top-up" })
        let t = marks[topUp].seconds + 0.4 * (marks[topUp + 1].seconds - marks[topUp].seconds)
        let state = try Self.open(page, at: t, size: "390,844", dir: dir, shot: "phone-sigh-top-up")
        #expect(state.attributes["data-label"] == "Breathe in a little more")
        let level = try #require(state.attributes["data-level"].flatMap(Double.init))
        #expect(abs(level - (0.8 + 0.2 * Self.ease(0.4))) < 1e-3, "level \(level)")
        #expect(state.errors == nil && state.console.isEmpty, "\(state.console)")
    }

    /// A click on the timeline seeks: the page, in a frame of a page of the test's own, is clicked
    /// a quarter and three quarters of the way along the plot, as a user would.
    @Test(.enabled(if: chromium != nil, "headless Chromium is not installed: `make test-deps` installs it (Debian package chromium)"))
    func aClickOnTheTimelineSeeks() throws {
        let dir = TemporaryDirectory("preview-click")
        let page = dir.file("session.html")
        let made = try runMedrender(["preview", "--preset", "box-breath", "--minutes", "1", "--rate", "16000", "-o", page])
        #expect(made.status == 0, "\(made.stderr)")
        let harness = dir.write("harness.html", """
            <!DOCTYPE html><html><body>
            <script>
            function clickAt(fraction) {
              var w = document.getElementById('f').contentWindow, d = w.document;
              var svg = d.querySelector('svg.session-plot'), box = svg.getBoundingClientRect();
              var unit = box.width / svg.viewBox.baseVal.width;
              var x = box.left + (parseFloat(svg.getAttribute('data-plot-left')) + parseFloat(svg.getAttribute('data-plot-width')) * fraction) * unit;
              svg.dispatchEvent(new w.MouseEvent('click', { clientX: x, clientY: box.top + box.height / 2, bubbles: true }));
              var stage = d.getElementById('stage');
              return stage.getAttribute('data-t') + ' ' + stage.getAttribute('data-label') + ' ' + d.getElementById('playhead').getAttribute('x1');
            }
            function run() {
              document.body.setAttribute('data-quarter', clickAt(0.25));
              document.body.setAttribute('data-three-quarters', clickAt(0.75));
            }
            </script>
            <iframe id="f" src="session.html" style="width:1280px;height:900px" onload="run()"></iframe>
            </body></html>
            """)
        let browser = try #require(chromium)
        let dump = try runProcess(browser, chromiumFlags(profile: dir.file("chromium-profile")) + [
            "--allow-file-access-from-files", "--window-size=1400,1000", "--enable-logging=stderr", "--v=0", "--dump-dom", "file://\(harness)",
        ], killAfter: chromiumLimitSeconds)
        #expect(dump.status == 0, "\(dump.stderr)")
        func result(_ name: String) throws -> [String] {
            let match = try #require(dump.stdout.range(of: "\(name)=\"[^\"]*\"", options: .regularExpression), "no \(name): \(dump.stdout.prefix(300))")
            return dump.stdout[match].split(separator: "\"")[1].split(separator: " ").map(String.init)
        }
        let quarter = try result("data-quarter"), late = try result("data-three-quarters")
        // A minute: a quarter is 15 s, three quarters 45 s (to the width of a pixel of the plot).
        #expect(abs(Double(quarter[0])! - 15) < 0.2, "\(quarter)")
        #expect(abs(Double(late[0])! - 45) < 0.2, "\(late)")
        #expect(Double(late.last!)! > Double(quarter.last!)!, "the playhead moves with the seek")
        #expect(!dump.stderr.contains(":CONSOLE"), "\(dump.stderr)")
    }

    @Test func thePlotIsAnSVGOfTheSession() throws {
        let dir = TemporaryDirectory("plot")
        let svg = dir.file("session.svg")
        let result = try runMedrender(["plot", "--preset", "box-breath", "--minutes", "2", "-o", svg])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(text.contains(">voice<") && text.contains(">ambience<") && text.contains(">bells<"))
        #expect(text.contains("data-duration=\"120\""))
    }

    @Test func aRenderWritesItsPreviewBesideIt() throws {
        let dir = TemporaryDirectory("render-preview")
        let result = try runMedrender(["--preset", "box-breath", "--minutes", "1", "--rate", "16000", "-o", dir.file("a.ogg"),
                                       "--preview", dir.file("a.html")])
        #expect(result.status == 0, "\(result.stderr)")
        let html = try String(contentsOfFile: dir.file("a.html"), encoding: .utf8)
        #expect(html.contains("src=\"a.ogg\""))
        #expect(html.contains("<polygon points="))  // the waveform, read from the file written
    }

    @Test(arguments: [
        (["preview", "--preset", "box-breath", "-o", "page.txt"], 64, "end it in .html"),
        (["plot", "--preset", "box-breath", "-o", "plot.png"], 64, "end it in .svg"),
        (["preview", "--preset", "no-such-preset", "-o", "page.html"], 66, "no-such-preset"),
        (["--preset", "box-breath", "-o", "-", "--preview", "page.html"], 64, "--preview needs the audio in a file"),
        // A page that cannot be written fails before the render, which leaves no audio either.
        (["--preset", "box-breath", "--minutes", "1", "-o", "a.ogg", "--preview", "no-folder/a.html"], 73, "no-folder"),
        (["preview", "--preset", "box-breath", "--minutes", "1", "-o", "no-folder/a.html"], 73, "no-folder"),
    ])
    func badInputIsOneLineWithItsExitCode(arguments: [String], code: Int32, words: String) throws {
        let dir = TemporaryDirectory("preview-bad")
        let result = try runMedrender(arguments, in: dir.path)
        #expect(result.status == code, "\(result.stderr)")
        #expect(result.stderr.contains(words), "\(result.stderr)")
        #expect(dir.contents().isEmpty, "left behind: \(dir.contents())")
    }
}

struct PreviewTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
