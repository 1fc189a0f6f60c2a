import Foundation
import MedrenderTestSupport
import Testing

/// A library build knows what each output speaks: the manifest lists it (engine, voice, language,
/// text, engine version), and a changed line or voice renders that output again and nothing else.
@Suite struct GuidedBuildTests {
    /// A voice program (`name`) that writes a short tone and logs each text it is given.
    static func voice(_ dir: TemporaryDirectory, name: String, pitch: Int) -> String {
        let program = dir.write(name, """
            #!/bin/sh
            echo "$1" >> '\(dir.file("texts.txt"))'
            sox -n -r 16000 -c 1 -b 16 "$2" synth 0.4 sine \(pitch) vol 0.5
            """)
        chmod(program, 0o755)
        return program
    }

    static func preset(_ dir: TemporaryDirectory, name: String, voice: String, line: String) {
        _ = dir.write("lib/\(name).yaml", """
            name: \(name)
            minutes: 1
            pattern: 4-0-6-0
            settle: 10
            closing: 10
            guide:
              voice: { engine: command, name: "\(voice)" }
              lines:
                - say: "\(line)"
                  at: 2
                - say: "Rest."
                  during: closing
            """)
    }

    struct Summary: Decodable {
        var rendered: [String]
        var skipped: [String]
    }

    static func build(_ dir: TemporaryDirectory) throws -> Summary {
        let result = try runProcess(PackagePaths.executable, ["build", dir.file("lib"), "-o", dir.file("dist"), "--format", "wav",
                                                              "--rate", "8000", "--channels", "1", "-j", "1", "--json"],
                                    in: PackagePaths.root, environment: ["XDG_CACHE_HOME": dir.file("cache")])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Summary.self, from: Data(result.stdout.utf8))
    }

    struct Manifest: Decodable {
        struct Speech: Decodable, Equatable {
            var engine, voice, language, text, engineVersion: String
        }
        struct Entry: Decodable {
            var file: String
            var speech: [Speech]?
        }
        var outputs: [Entry]
    }

    @Test func aChangedLineOrVoiceRendersThatOutputAgainAndNothingElse() throws {
        let dir = TemporaryDirectory("guided-build")
        try FileManager.default.createDirectory(atPath: dir.file("lib"), withIntermediateDirectories: true)
        let low = Self.voice(dir, name: "low.sh", pitch: 330)
        Self.preset(dir, name: "a", voice: low, line: "Welcome.")
        Self.preset(dir, name: "b", voice: low, line: "Hello there.")
        let first = try Self.build(dir)
        #expect(first.rendered.sorted() == ["a-1min.wav", "b-1min.wav"])
        // The manifest says what each output speaks, with the program's version (its bytes' hash).
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("dist/manifest.json"))))
        let a = try #require(manifest.outputs.first { $0.file == "a-1min.wav" }?.speech)
        #expect(a.map(\.text) == ["Welcome.", "Rest."])
        #expect(a.allSatisfy { $0.engine == "command" && $0.voice == low && $0.language == "en" && $0.engineVersion.hasPrefix("sha256:") })

        // Unchanged: nothing renders, nothing is spoken.
        let spoken = try String(contentsOfFile: dir.file("texts.txt"), encoding: .utf8)
        let second = try Self.build(dir)
        #expect(second.rendered.isEmpty, "\(second.rendered)")
        #expect(try String(contentsOfFile: dir.file("texts.txt"), encoding: .utf8) == spoken)

        // A line's text changes in a: a renders again, b does not.
        Self.preset(dir, name: "a", voice: low, line: "Welcome back.")
        let third = try Self.build(dir)
        #expect(third.rendered == ["a-1min.wav"], "\(third.rendered)")
        #expect(third.skipped == ["b-1min.wav"], "\(third.skipped)")

        // b's voice changes: b renders again, a does not.
        let high = Self.voice(dir, name: "high.sh", pitch: 660)
        Self.preset(dir, name: "b", voice: high, line: "Hello there.")
        let fourth = try Self.build(dir)
        #expect(fourth.rendered == ["b-1min.wav"], "\(fourth.rendered)")

        // The voice program itself changes (a new engine version), the presets do not: a, which
        // speaks with it, renders again; b does not.
        _ = dir.write("low.sh", (try String(contentsOfFile: low, encoding: .utf8)) + "\n# a new model\n")
        chmod(low, 0o755)
        let fifth = try Self.build(dir)
        #expect(fifth.rendered == ["a-1min.wav"], "\(fifth.rendered)")
        #expect(fifth.skipped == ["b-1min.wav"], "\(fifth.skipped)")
    }
}
