import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import PropertyBased
import Testing

/// Hostile input in bulk: mutated presets and mutated sound files must give an error or a valid
/// result, never a crash. (The fuzz targets in Fuzz/ do the same, unbounded, under libFuzzer.)
@Suite struct RobustnessPropertyTests {
    static let library = PresetLibrary(root: PackagePaths.root)
    static let presetTexts: [String] = library.presetFiles().compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }

    static let replacements = ["-1", "0", "0.0001", "1e9", ".nan", ".inf", "-.inf", "60.001", "abc", "[]", "{}", "~",
                               "''", "4-4", "1:2:3", "99999999999999999999", "3.5", "-0", "0x10", "\"\""]

    /// Applies one of several mutations, chosen by `choice`, at a position chosen by `position`.
    static func mutate(_ text: String, choice: Int, position: Int, pick: Int) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return text }
        let i = position % lines.count
        switch choice % 7 {
        case 0:  // replace the first number on a line with a hostile value
            if let range = lines[i].range(of: #"-?[0-9]+(\.[0-9]+)?"#, options: .regularExpression) {
                lines[i].replaceSubrange(range, with: replacements[pick % replacements.count])
            }
        case 1: lines.remove(at: i)
        case 2: lines.insert(lines[i], at: i)
        case 3:  // break the indentation
            lines[i] = (pick % 2 == 0 ? "   " : "") + lines[i].trimmingCharacters(in: .whitespaces)
        case 4:  // cut the file
            return String(text.prefix(position % max(1, text.count)))
        case 5:  // a random character somewhere
            let chars = Array(":-[]{}#&*!|>'\"%@`,?\t")
            var c = Array(lines[i])
            c.insert(chars[pick % chars.count], at: c.isEmpty ? 0 : pick % c.count)
            lines[i] = String(c)
        default:  // a key misspelt
            if let colon = lines[i].firstIndex(of: ":") { lines[i].insert("x", at: colon) }
        }
        return lines.joined(separator: "\n")
    }

    @Test func mutatedPresetsGiveAnErrorOrAValidPlanNeverACrash() async throws {
        let rendered = Mutex2(0), decoded = Mutex2(0), errors = Mutex2(0)
        await propertyCheck(
            count: 1200,
            input: Gen.int(in: 0..<10_000), Gen.int(in: 0..<10_000), Gen.int(in: 0..<10_000), Gen.int(in: 0..<10_000),
            Gen.int(in: 1...3)
        ) { which, choice, position, pick, rounds in
            var text = Self.presetTexts[which % Self.presetTexts.count]
            for r in 0..<rounds { text = Self.mutate(text, choice: choice &+ r * 3, position: position &+ r * 7, pick: pick &+ r) }
            let session: Session
            do {
                session = try PresetDecoder.decode(text, file: "mutant.yaml", defaultName: "mutant")
            } catch let error as PresetError {
                // An error is a fine answer; it must say where.
                #expect(error.description.hasPrefix("mutant.yaml"))
                #expect([.badData, .missingInput].contains(error.category))
                errors.add(1)
                return
            }
            decoded.add(1)
            for length in [session.defaultLength, .cycles(1)] {
                do {
                    let plan = try RenderPlan(session: session, options: RenderOptions(rate: 8000, length: length))
                    #expect(plan.totalFrames == plan.total.frame(atRate: 8000))
                    #expect(plan.schedule.end <= plan.total)
                } catch {
                    // A plan that cannot be made says so in one line of words, as the plan's own
                    // error: no type name or optional leaking from the code.
                    let text = "\(error)"
                    #expect(error is PlanError, "\(type(of: error)): \(text)")
                    #expect(!text.contains("\n") && text.count > 20, "\(text)")
                    #expect(!text.contains("Optional(") && !text.contains("PlanError."), "\(text)")
                }
            }
            // Render a sample of the mutants that decode, to a file, at the shortest length.
            guard rendered.value < 40 else { return }
            rendered.add(1)
            let dir = TemporaryDirectory("mutant")
            let request = RenderRequest(
                session: session, presetFile: PackagePaths.root + "/Presets/mutant.yaml",
                options: RenderOptions(rate: 8000, length: .cycles(1)), format: .wav(.int16), destination: .file(dir.file("m.wav")),
                library: Self.library)
            do {
                let report = try Renderer.render(request)
                let (_, channels, samples) = try readSound(dir.file("m.wav"))
                #expect(Int64(samples.count / channels) == report.frames)
            } catch let error as any DiagnosedError {
                // One line that names the preset or the file it is about, and is the input's fault.
                let text = error.description
                #expect(text.contains("mutant.yaml") || text.contains("m.wav") || text.contains("Sounds/"), "\(text)")
                #expect(!text.contains("\n"), "\(text)")
                #expect(error.category != .internal, "\(text)")
                #expect(!dir.contents().contains { $0.hasPrefix(".") })
            }
        }
        // Enough of the mutants must get past decoding for the later stages to be exercised.
        print("mutated presets: \(decoded.value) decoded, \(errors.value) refused, \(rendered.value) rendered")
        #expect(decoded.value > 50, "\(decoded.value) decoded, \(errors.value) refused")
        #expect(errors.value > 50)
    }

    /// Small valid files to mutate: WAV, FLAC and OGG Vorbis of a short tone.
    static func seedFiles(in dir: TemporaryDirectory) throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        let tone = (0..<1600).map { Float(sin(Double($0) * 0.1) * 0.5) }
        for (name, container) in [("s.wav", SoundFileContainer.wav), ("s.flac", .flac)] {
            let file = try AtomicOutputFile(path: dir.file(name))
            let writer = try SoundFileWriter(file: file, container: container, sampleFormat: .int16, channels: 2, rate: 16000)
            try tone.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 800) }
            try writer.finish()
            try file.commit()
            seeds.append(Array(FileManager.default.contents(atPath: dir.file(name))!))
        }
        let file = try AtomicOutputFile(path: dir.file("s.ogg"))
        let encoder = try VorbisEncoder(sink: file, channels: 2, rate: 16000, quality: 2)
        try tone.withUnsafeBufferPointer { try encoder.write($0.baseAddress!, frameCount: 800) }
        try encoder.finish()
        try file.commit()
        seeds.append(Array(FileManager.default.contents(atPath: dir.file("s.ogg"))!))
        return seeds
    }

    @Test func mutatedSoundFilesDecodeOrGiveAnErrorNeverACrash() async throws {
        let dir = TemporaryDirectory("mutated-sounds")
        let seeds = try Self.seedFiles(in: dir)
        let decoded = Mutex2(0), refused = Mutex2(0)
        await propertyCheck(
            count: 1200,
            input: Gen.int(in: 0..<3), Gen.int(in: 0..<6), Gen.int(in: 0..<1_000_000), Gen.int(in: 0..<256), Gen.int(in: 1...8)
        ) { which, kind, position, byte, count in
            var bytes = seeds[which]
            let at = position % bytes.count
            switch kind {
            case 0: for k in 0..<count { bytes[(at + k * 31) % bytes.count] = UInt8(truncatingIfNeeded: byte &+ k) }
            case 1: bytes = Array(bytes.prefix(at))
            case 2: for k in 0..<count { bytes[(at + k) % 64] ^= UInt8(1 << (k % 8)) }  // the header
            case 3: bytes.removeSubrange(at..<min(bytes.count, at + count * 100))
            case 4: bytes.insert(contentsOf: [UInt8](repeating: UInt8(byte), count: count * 50), at: at)
            default: bytes[at % min(bytes.count, 48)] = UInt8(byte)
            }
            let path = dir.file("m\(which)-\(kind)-\(position)-\(byte)-\(count)")
            FileManager.default.createFile(atPath: path, contents: Data(bytes))
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                let reader = try SoundFileReader(path: path)
                let asset = try reader.readAll()
                #expect(asset.channels == 1 || asset.channels == 2)
                #expect(asset.samples.allSatisfy { $0.isFinite })
                if asset.frameCount > 0 {
                    let resampled = try Resampler.resample(asset, from: reader.rate, to: 8000)
                    #expect(resampled.frameCount == Resampler.targetLength(frameCount: asset.frameCount, from: reader.rate, to: 8000))
                }
                decoded.add(1)
            } catch let error as IOError {
                #expect([.badData, .missingInput].contains(error.kind), "\(error)")
                refused.add(1)
            }
        }
        print("mutated sounds: \(decoded.value) decoded, \(refused.value) refused")
        #expect(decoded.value + refused.value >= 1000)
        #expect(refused.value > 10)
    }
}

/// A counter shared by a property's cases.
final class Mutex2: @unchecked Sendable {
    private let lock = NSLock()
    private var count: Int
    init(_ value: Int) { count = value }
    var value: Int { lock.withLock { count } }
    func add(_ n: Int) { lock.withLock { count += n } }
}
