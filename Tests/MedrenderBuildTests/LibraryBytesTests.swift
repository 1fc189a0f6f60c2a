import Foundation
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// The bytes of every stock preset's render, in every format (Opus: what medrender decides of
/// it, `opusFraming`), are what they were when `LibraryBytes.json` was recorded: a change to how a render is organised must not change what
/// it writes. A change that means to change the sound records the file again
/// (`MEDRENDER_RECORD_GOLDEN=1 swift test --filter LibraryBytesTests`) and says why in its commit.
@Suite struct LibraryBytesTests {
    static let library = PresetLibrary(root: PackagePaths.root)
    static let goldenFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("LibraryBytes.json").path
    static let formats: [(String, OutputFormat)] = [
        ("ogg", .ogg(quality: 4)), ("wav", .wav(.int16)), ("flac", .flac(.int24)), ("opus", .opus(quality: 4)), ("mp3", .mp3(quality: 4)),
    ]

    /// The sounds decoded and resampled once for every render here, as a build's renders share
    /// them (`LibraryBuildRunner`): resampling the bells and recorded prompts to 8 kHz was about
    /// half of a one-minute WAV's processor time.
    static let sounds = SoundCache()
    /// Each mix measured once (pass 1) for its five formats, as a build measures it once.
    static let measured = LoudnessCache()

    static var recording: Bool { ProcessInfo.processInfo.environment["MEDRENDER_RECORD_GOLDEN"] == "1" }

    /// The presets recorded: the stock library as it was (presets added since have no bytes to
    /// keep; recording again takes them in).
    static let recordedNames: [String] = {
        guard !recording, let data = try? Data(contentsOf: URL(fileURLWithPath: goldenFile)),
              let recorded = try? JSONDecoder().decode([String: [String: String]].self, from: data)
        else { return library.presetNames() }
        return recorded.keys.filter { $0.hasSuffix("-8000-2") }.map { String($0.dropLast("-8000-2".count)) }.sorted()
    }()

    /// (key, preset, rate, channels): every preset at 8 kHz stereo, one at 48 kHz, one in mono.
    static let cases: [(String, String, Int, Int)] = {
        var list = recordedNames.map { ("\($0)-8000-2", $0, 8000, 2) }
        list += [("box-breath-48000-2", "box-breath", 48000, 2), ("coherent-24000-1", "coherent", 24000, 1)]
        return list
    }()

    static func hashes(of name: String, rate: Int, channels: Int) throws -> [String: String] {
        let file = try library.presetPath(name)
        let session = try PresetDecoder.load(path: file)
        let dir = TemporaryDirectory("bytes-\(name)-\(rate)")
        var result: [String: String] = [:]
        for (ext, format) in formats {
            let out = dir.file("\(name).\(ext)")
            var request = RenderRequest(
                session: session, presetFile: file,
                options: RenderOptions(rate: rate, channels: channels, length: .duration(.seconds(60))),
                format: format, destination: .file(out), library: library)
            request.threads = 2
            request.soundCache = sounds
            request.loudnessCache = measured
            // The guided presets fall back to festival, as where Piper is not installed (see `pathWithoutPiper`).
            _ = try SpeechSynthesizer.$searchPathOverride.withValue(pathWithoutPiper) { try Renderer.render(request) }
            var hasher = SHA256Hasher()
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            hasher.update(ext == "opus" ? try #require(Self.opusFraming(bytes), "\(name).opus is not an Ogg stream") : bytes)
            result[ext] = hasher.finalizeHex()
        }
        return result
    }

    /// What of an Ogg Opus file medrender decides: its two header packets (channels, pre-skip,
    /// rate, tags, chapters), how many packets follow and the last granule position (its length).
    /// libopus picks code paths for the processor it runs on and its packets differ between
    /// processors (the same build wrote other bytes on a processor with AVX-512), so the audio
    /// packets themselves are not compared; the mix they encode is, in the other formats.
    static func opusFraming(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        var packets: [[UInt8]] = [], current: [UInt8] = [], count = 0, granule: UInt64 = 0
        var at = 0
        while at < bytes.count {
            guard at + 27 <= bytes.count, bytes[at..<at + 4].elementsEqual("OggS".utf8) else { return nil }
            granule = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + 6 + $1]) << (8 * UInt64($1)) }
            let segments = Int(bytes[at + 26])
            var body = at + 27 + segments
            guard body <= bytes.count else { return nil }
            for lacing in bytes[(at + 27)..<(at + 27 + segments)] {
                guard body + Int(lacing) <= bytes.count else { return nil }
                current += bytes[body..<body + Int(lacing)]
                body += Int(lacing)
                if lacing < 255 {
                    if packets.count < 2 { packets.append(current) }
                    count += 1
                    current = []
                }
            }
            at = body
        }
        guard packets.count == 2 else { return nil }
        return Data(packets[0] + packets[1] + Array("packets=\(count) granule=\(granule)".utf8))
    }

    @Test func everyPresetRendersTheRecordedBytes() async throws {
        // Two at a time: the renders are independent.
        let all = try await withThrowingTaskGroup(of: (String, [String: String]).self) { group in
            var pending = Self.cases[...]
            var found: [String: [String: String]] = [:]
            for _ in 0..<2 {
                if let (key, name, rate, channels) = pending.popFirst() {
                    group.addTask { (key, try Self.hashes(of: name, rate: rate, channels: channels)) }
                }
            }
            while let (key, hashes) = try await group.next() {
                found[key] = hashes
                if let (key, name, rate, channels) = pending.popFirst() {
                    group.addTask { (key, try Self.hashes(of: name, rate: rate, channels: channels)) }
                }
            }
            return found
        }
        if Self.recording {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(all).write(to: URL(fileURLWithPath: Self.goldenFile))
            return
        }
        let recorded = try JSONDecoder().decode([String: [String: String]].self, from: Data(contentsOf: URL(fileURLWithPath: Self.goldenFile)))
        for (key, hashes) in all.sorted(by: { $0.key < $1.key }) {
            guard let expected = recorded[key] else {
                Issue.record("\(key): no recorded bytes; record them with MEDRENDER_RECORD_GOLDEN=1")
                continue
            }
            for (ext, hash) in hashes.sorted(by: { $0.key < $1.key }) {
                #expect(hash == expected[ext], "\(key).\(ext): the bytes changed")
            }
        }
        #expect(Set(all.keys) == Set(recorded.keys), "the recorded renders and the renders made differ")
        #expect(Set(Self.recordedNames).isSubset(of: Set(Self.library.presetNames())), "a recorded preset is gone from the library")
    }
}
