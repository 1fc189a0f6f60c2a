import Foundation
import MedrenderTestSupport
import Testing

/// The server's render identity (its cache key and ETag) holds what the session speaks, the
/// engine's version with it: a new voice program is a new render, the same one is the cache's.
@Suite struct GuidedServeTests {
    static func voice(_ path: String, pitch: Int) {
        try? "#!/bin/sh\nsox -n -r 16000 -c 1 -b 16 \"$2\" synth 0.4 sine \(pitch) vol 0.5\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    static func etag(_ headers: String) -> String? {
        headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) }
    }

    @Test func aNewVoiceProgramIsANewRenderAndTheSameOneIsCached() throws {
        let dir = TemporaryDirectory("serve-guided")
        try FileManager.default.createDirectory(atPath: dir.file("Presets"), withIntermediateDirectories: true)
        let program = dir.file("voice.sh")
        Self.voice(program, pitch: 330)
        _ = dir.write("Presets/guided-here.yaml", """
            name: guided-here
            minutes: 1
            pattern: 4-0-6-0
            settle: 10
            closing: 10
            guide:
              voice: { engine: command, name: "\(program)" }
              lines:
                - say: "Welcome."
                  at: 2
            """)
        // The operator's own preset speaks with its program: the server was told it may.
        let server = try ServerProcess(["--allow-command-voices"], folder: dir.path,
                                       environment: ["XDG_CACHE_HOME": dir.file("xdg"), "MEDRENDER_HOME": dir.path])
        defer { server.stop() }
        let query = "/render?preset=guided-here&rate=8000&format=wav"
        let first = try server.get(query)
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self)) \(server.log)")
        let again = try server.get(query)
        let tag = try #require(Self.etag(first.headers), "\(first.headers)")
        #expect(Self.etag(again.headers) == tag)
        #expect(again.body == first.body)
        // The same preset, a new voice program: another identity, other bytes.
        Self.voice(program, pitch: 660)
        let changed = try server.get(query)
        #expect(changed.status == 200)
        #expect(Self.etag(changed.headers) != tag, "\(changed.headers)")
        #expect(changed.body != first.body)
    }
}
