import Foundation
import MedrenderTestSupport
import Testing

/// `medrender build` writes `index.html` and a preview page beside each output.
@Suite struct BuildIndexTests {
    @Test func theBuildListsEveryOutputWithItsPlayerAndPreview() throws {
        let dir = TemporaryDirectory("buildindex")
        let (presets, out) = try BuildTests.library(dir, ["box-breath", "coherent"])
        let first = try BuildTests.build([presets, "-o", out, "--format", "ogg,wav"] + BuildTests.fast)
        #expect(first.status == 0, "\(first.stderr)")
        let index = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        for file in ["box-breath-1.2min.ogg", "box-breath-1.2min.wav", "coherent-1.2min.ogg", "coherent-1.2min.wav"] {
            #expect(index.contains("<audio controls preload=\"none\" src=\"\(file)\"></audio>"), "\(file)")
            #expect(index.contains("<a href=\"\(file).html\">preview</a>"), "\(file)")
            let page = try String(contentsOfFile: "\(out)/\(file).html", encoding: .utf8)
            #expect(page.contains("src=\"\(file)\""))
            #expect(page.contains("<polygon points="), "the waveform of \(file)")
        }
        #expect(index.contains(">1.2 min<") && index.contains(">1:12<"))
        #expect(index.contains("LUFS") && index.contains("dBTP"))
        #expect(index.contains("4 outputs"))
        // A second build renders nothing and leaves the pages as they are.
        let before = try BuildTests.modified(out + "/coherent-1.2min.ogg.html")
        let second = try BuildTests.build([presets, "-o", out, "--format", "ogg,wav"] + BuildTests.fast)
        #expect(second.rendered.isEmpty)
        #expect(try BuildTests.modified(out + "/coherent-1.2min.ogg.html") == before)
        #expect(FileManager.default.fileExists(atPath: out + "/index.html"))
    }

    /// The index in headless Chromium, framed at a phone's width (390 px) and a small laptop's
    /// (1100 px): every output's card lies inside the width with its title, description, player and
    /// preview link, and the page does not scroll sideways.
    @Test(.enabled(if: chromium != nil, "chromium is not installed: `make test-deps` installs it"), arguments: [390, 1100])
    func theIndexIsReadableOnAPhoneAndALaptop(width: Int) throws {
        let dir = TemporaryDirectory("buildindex-\(width)")
        let (presets, out) = try BuildTests.library(dir, ["box-breath", "coherent"])
        let built = try BuildTests.build([presets, "-o", out, "--format", "ogg,wav"] + BuildTests.fast)
        try #require(built.status == 0, "\(built.stderr)")
        let harness = dir.write("harness.html", """
            <!doctype html><html><body style="margin:0">
            <script>
            function run() {
              const d = document.getElementById('f').contentDocument, w = \(width);
              const inside = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= w + 0.5; };
              const cards = [...d.querySelectorAll('article.output')];
              const bad = cards.filter(c => !inside(c) || !inside(c.querySelector('h2')) || !inside(c.querySelector('audio'))
                || !inside(c.querySelector('.description')) || ![...c.querySelectorAll('a')].some(a => a.textContent == 'preview' && inside(a)));
              document.body.setAttribute('data-cards', cards.length);
              document.body.setAttribute('data-bad', bad.length);
              document.body.setAttribute('data-scroll', d.documentElement.scrollWidth);
              document.body.setAttribute('data-titles', cards.map(c => c.querySelector('h2').textContent).join('|'));
            }
            </script>
            <iframe id="f" src="out/index.html" style="width:\(width)px;height:3000px;border:0" onload="run()"></iframe>
            </body></html>
            """)
        let browser = try #require(chromium)
        let dump = try runProcess(browser, chromiumFlags(profile: dir.file("chromium-profile")) + [
            "--allow-file-access-from-files", "--window-size=\(width + 40),1000", "--dump-dom", "file://\(harness)",
        ], killAfter: chromiumLimitSeconds)
        try #require(dump.status == 0, "\(dump.stderr)")
        func attribute(_ name: String) throws -> String {
            let match = try #require(dump.stdout.range(of: "\(name)=\"[^\"]*\"", options: .regularExpression), "no \(name): \(dump.stdout.prefix(300))")
            return String(dump.stdout[match].split(separator: "\"", omittingEmptySubsequences: false)[1])
        }
        #expect(try attribute("data-cards") == "4")
        #expect(try attribute("data-bad") == "0", "cards cut or hidden at \(width) px")
        #expect(Int(try attribute("data-scroll")) ?? .max <= width, "the index scrolls sideways at \(width) px")
        #expect(try attribute("data-titles").split(separator: "|").sorted() == ["Box breath", "Box breath", "Coherent", "Coherent"])
        let index = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let description = try #require(try String(contentsOfFile: "\(PackagePaths.root)/Presets/box-breath.yaml", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("description: ") }?.dropFirst(13))
        #expect(index.contains(String(description)), "the preset's description")
    }

    @Test func mergedShardsGetOneIndexOfEveryOutput() throws {
        let dir = TemporaryDirectory("buildindex-merge")
        let (presets, _) = try BuildTests.library(dir, ["box-breath", "coherent", "calming"])
        for k in 1...2 {
            let shard = try BuildTests.build([presets, "-o", dir.file("part\(k)"), "--shard", "\(k)/2", "--cycles", "1", "--rate", "8000"])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let merged = try runMedrender(["build", "--merge", dir.file("part1"), dir.file("part2"), "-o", dir.file("all")])
        #expect(merged.status == 0, "\(merged.stderr)")
        let index = try String(contentsOfFile: dir.file("all/index.html"), encoding: .utf8)
        #expect(index.contains("3 outputs"))
        for name in ["box-breath", "coherent", "calming"] {
            #expect(index.contains("<a href=\"\(name)-1cycles.ogg.html\">preview</a>"), "\(name)")
            #expect(FileManager.default.fileExists(atPath: dir.file("all/\(name)-1cycles.ogg.html")))
        }
    }
}
