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
