import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// Bells struck more than once, and the gong and the chime beside the bell.
@Suite struct BellStrikeTests {
    /// The shipped bell, gong and chime ring out fully: before the file's last fade, each has
    /// fallen more than 55 dB below its strike, as decoded.
    @Test(arguments: ["bell", "gong", "chime"])
    func shippedStrikesRingOutFully(name: String) throws {
        let reader = try SoundFileReader(path: "\(PackagePaths.root)/Sounds/\(name).ogg")
        let sound = try reader.readAll()
        let rate = reader.rate
        let strike = sound.samples[0..<rate].map { abs($0) }.max()!
        // The last 50 ms before the file's final fade starts (its last 0.5 s at most).
        let end = sound.frameCount - rate / 2
        let tail = sound.samples[(end - rate / 20)..<end].map { abs($0) }.max()!
        #expect(20 * log10(Double(tail) / Double(strike)) < -55, "\(name): \(20 * log10(Double(tail) / Double(strike))) dB at its end")
    }

    /// `start: { sound: gong, strikes: 2, gap: 1.2 }` strikes twice, 1.2 s apart, each strike
    /// playing its whole sound over the other; the end chime strikes three times.
    @Test func aDoubleStrikeRingsTwiceAndWhole() throws {
        let dir = try TemporaryDirectory()
        let yaml = """
            pattern: 4-0-6-0
            settle: 20
            closing: 30
            bells:
              start: { sound: gong, strikes: 2, gap: 1.2 }
              end: { sound: chime, strikes: 3, gap: 0.8 }
            master: { fade-in: 0, fade-out: 0 }
            """
        let req = try request(yaml, minutes: 2, rate: 8000, layers: [.bells], format: .wav(.float32), output: dir.file("b.wav"), dir: dir)
        let plan = try Renderer.check(req)
        let gong = plan.clips.filter { $0.sound == .file(SoundRef("gong")) }
        let chime = plan.clips.filter { $0.sound == .file(SoundRef("chime")) }
        #expect(gong.map(\.startFrame) == [0, 9600])
        #expect(gong.allSatisfy { $0.maximumFrames >= 12 * 8000 })
        #expect(chime.count == 3)
        #expect(zip(chime.dropFirst(), chime).allSatisfy { $0.startFrame - $1.startFrame == 6400 })
        _ = try Renderer.render(req)
        let (rate, channels, samples) = try readSound(dir.file("b.wav"))
        // The second strike is heard: the level over the 100 ms after 1.2 s jumps above that of the 100 ms before.
        func level(_ from: Double) -> Double {
            let a = Int(from * Double(rate)) * channels, b = a + rate / 10 * channels
            return 10 * log10(samples[a..<b].map { Double($0) * Double($0) }.reduce(0, +) / Double(b - a))
        }
        #expect(level(1.2) - level(1.1) > 2, "second strike: \(level(1.2) - level(1.1)) dB")
    }

    @Test func strikesOutOfRangeAreRefused() {
        for (yaml, expected) in [("bells: { start: { sound: bell, strikes: 9 } }", "use 1 to 5 strikes"), ("bells: { end: { sound: bell, gap: 0.1 } }", "use 0.3 to 10 s"),
                                 ("bells: { start: { strikes: 2 } }", "missing 'sound'")] {
            do {
                _ = try PresetDecoder.decode("pattern: 4-0-6-0\n" + yaml + "\n", file: "p.yaml", defaultName: "p")
                Issue.record("no error for \(yaml)")
            } catch {
                #expect(error.description.hasPrefix("p.yaml:2:") && error.description.contains(expected), "\(error.description)")
            }
        }
    }
}
