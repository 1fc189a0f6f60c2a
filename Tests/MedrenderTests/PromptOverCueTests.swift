import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// A prompt and its phase's cue start on the same frame; the prompt must be heard over the cue.
/// Measured on the stems of a render with the shipped voice and the standard cues.
@Suite struct PromptOverCueTests {
    static let yaml = """
        pattern: 4-4-4-4
        settle: 2
        closing: 4
        voice: { prompts: { inhale: voice-breathe-in, hold: voice-hold, exhale: voice-breathe-out }, prompt-cycles: 2 }
        master: { fade-out: 0 }
        """

    static func rms(_ samples: [Float], channels: Int, frames: Range<Int>) -> Double {
        var sum = 0.0
        for f in frames { for c in 0..<channels { sum += Double(samples[f * channels + c]) * Double(samples[f * channels + c]) } }
        return 10 * log10(sum / Double(frames.count * channels) + 1e-20)
    }

    @Test func everyPromptIsWellOverItsCue() throws {
        let dir = TemporaryDirectory("prompts")
        let stems = dir.path + "/stems"
        try FileManager.default.createDirectory(atPath: stems, withIntermediateDirectories: true)
        var req = try request(Self.yaml, minutes: 1, rate: 16000, layers: [.voice, .cues], format: .wav(.float32),
                              output: dir.file("mix.wav"), dir: dir)
        req.stemsDirectory = stems
        _ = try Renderer.render(req)
        let (rate, channels, voice) = try readSound(stems + "/mix-voice.wav")
        let cues = try readSound(stems + "/mix-cues.wav").samples
        let plan = try Renderer.schedulePlan(req)
        var prompted = 0, unprompted: [Double] = [], underPrompt: [Double] = []
        for mark in plan.cueMarks {
            // The prompt's half second from the phase's first frame.
            let window = Int(mark.frame)..<(Int(mark.frame) + rate / 2)
            let cue = Self.rms(cues, channels: channels, frames: window)
            if mark.cycle <= 2 {
                prompted += 1
                let words = Self.rms(voice, channels: channels, frames: window)
                #expect(words - cue >= 10, "cycle \(mark.cycle) \(mark.kind): the prompt is \(words - cue) dB over its cue")
                underPrompt.append(cue)
            } else if mark.cycle <= 4 {
                unprompted.append(cue)
            }
        }
        #expect(prompted == 8)
        // The cue still marks the phase under the prompt, about 10 dB down from the same cue later on.
        for (under, alone) in zip(underPrompt, unprompted) {
            #expect(abs((alone - under) - 10) < 1, "the cue drops \(alone - under) dB under its prompt")
        }
    }
}
