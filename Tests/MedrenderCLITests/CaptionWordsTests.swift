import Foundation
import MedrenderTestSupport
import Testing

/// A listener reads words: every caption of every stock preset's WebVTT is the words spoken (a
/// script's line, a spoken prompt or lead-in), a section's name, or a recording's short name in
/// brackets, never a sound's hash (`speech-…`), a path or a file's extension.
@Suite struct CaptionWordsTests {
    static let presets = StockAudioTests.presets

    /// The caption lines of a WebVTT file: in each cue, the lines after its timing line.
    static func captions(_ vtt: String) -> [String] {
        var lines: [String] = []
        for cue in vtt.components(separatedBy: "\n\n") {
            let rows = cue.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            guard let timing = rows.firstIndex(where: { $0.contains("-->") }) else { continue }
            lines += rows[(timing + 1)...]
        }
        return lines
    }

    static let fileExtension = try! NSRegularExpression(pattern: #"\.(wav|ogg|oga|flac|mp3|opus|m4a|aac|aiff?)\b"#, options: [.caseInsensitive])

    @Test(arguments: presets)
    func everyCaptionIsWords(preset: String) throws {
        let dir = TemporaryDirectory("caption-words")
        let out = dir.file("\(preset).vtt")
        let result = try runMedrender(["cues", "--preset", preset, "--rate", "8000", "-o", out])
        try #require(result.status == 0, "\(preset): \(result.stderr)")
        let captions = Self.captions(try String(contentsOfFile: out, encoding: .utf8))
        #expect(!captions.isEmpty)
        for caption in captions {
            let range = NSRange(caption.startIndex..., in: caption)
            #expect(!caption.contains("speech-") && !caption.contains("/")
                        && Self.fileExtension.firstMatch(in: caption, range: range) == nil,
                    "\(preset): the caption '\(caption)' shows a hash, a path or a file name")
        }
    }

    /// The captions of the cue sheet `medrender cues` writes for the preset file `preset`.
    static func captions(ofPreset preset: String, in dir: TemporaryDirectory) throws -> [String] {
        let out = dir.file(URL(fileURLWithPath: preset).deletingPathExtension().lastPathComponent + ".vtt")
        let result = try runMedrender(["cues", "--preset", preset, "--rate", "8000", "-o", out])
        try #require(result.status == 0, "\(result.stderr)")
        return captions(try String(contentsOfFile: out, encoding: .utf8))
    }

    /// The spoken prompts and lead-in are captioned with what they say.
    @Test func spokenPromptsAreCaptionedWithTheirWords() throws {
        let dir = TemporaryDirectory("caption-prompts")
        let preset = dir.write("spoken.yaml", """
            name: spoken
            minutes: 2
            pattern: 4-0-6-0
            settle: 10
            voice: { prompts: spoken, lead-in: spoken, prompt-cycles: 1 }
            guide: { voice: espeak-ng, lines: [{ say: "Settle in", pause: 1 }] }
            """)
        let captions = try Self.captions(ofPreset: preset, in: dir)
        #expect(captions.contains("Settle in"), "\(captions)")
        #expect(!captions.contains { $0.hasPrefix("[voice") }, "a spoken prompt is captioned by its sound: \(captions)")
    }

    /// A recording given with its words (`text:`) is captioned with them; one without, by its name.
    @Test func aRecordingIsCaptionedWithItsText() throws {
        let dir = TemporaryDirectory("caption-recordings")
        let preset = dir.write("recorded.yaml", """
            name: recorded
            minutes: 3
            pattern: 4-0-6-0
            settle: 20
            voice:
              intro: { sound: voice-intro, text: "Welcome. Sit comfortably and let the breath settle." }
              outro: voice-outro
              clips: [{ sound: voice-intro, at: 90, text: "Welcome. Sit comfortably and let the breath settle." }]
            """)
        let captions = try Self.captions(ofPreset: preset, in: dir)
        #expect(captions.filter { $0.contains("Welcome. Sit comfortably and let the breath settle.") }.count == 2, "\(captions)")
        #expect(captions.contains { $0.contains("voice-outro") }, "\(captions)")
        // Words that are not one line of plain text are refused where they stand.
        let bad = dir.write("bad.yaml", "minutes: 3\npattern: 4-0-6-0\nvoice:\n  intro: { sound: voice-intro, text: \"\" }\n")
        let refused = try runMedrender(["cues", "--preset", bad, "--rate", "8000", "-o", dir.file("bad.vtt")])
        #expect(refused.status == 65 && refused.stderr.contains("bad.yaml:4:") && refused.stderr.contains("text"), "\(refused.stderr)")
    }
}
