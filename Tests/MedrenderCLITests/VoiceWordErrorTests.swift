import Foundation
import MedrenderTestSupport
import Testing

/// The voice itself, heard by a recognizer: Piper at the default pace makes pocketsphinx miss no
/// more of a script's words than festival does (its word error rate on the voice alone, line by
/// line over the cue sheet's frames). `make bench` reports every engine at 90, 120 and 160 words a
/// minute (`scripts/bench-voice.py`).
@Suite struct VoiceWordErrorTests {
    static let sentences = [
        "Let your shoulders drop and your jaw soften.",
        "Breathe in slowly through your nose, and feel your chest rise.",
        "Notice the weight of your body resting on the floor.",
        "With each breath out, let a little more tension go.",
        "There is nothing you need to do right now.",
        "Bring your attention to the soles of your feet.",
        "If your mind wanders, gently come back to the breath.",
        "Feel the cool air entering, and the warm air leaving.",
        "Let the sounds around you come and go.",
        "When you are ready, slowly open your eyes.",
    ]

    /// Prints the word errors and the words of the lines of a voice's render: the cue sheet, then
    /// the WAV (16 kHz mono 16-bit).
    static let recognizer = """
        import json, re, sys, wave
        from pocketsphinx import Decoder
        decoder = Decoder(samprate=16000, logfn="/dev/null")
        lines = [e for e in json.load(open(sys.argv[1]))["events"] if e["type"] == "voice" and e.get("text")]
        with wave.open(sys.argv[2]) as w:
            data = w.readframes(w.getnframes())
        def distance(a, b):
            row = list(range(len(b) + 1))
            for i, x in enumerate(a, 1):
                previous, row[0] = row[0], i
                for j, y in enumerate(b, 1):
                    previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
            return row[-1]
        wrong = total = 0
        for e in lines:
            decoder.start_utt(); decoder.process_raw(data[2 * e["frame"]:2 * (e["endFrame"] + 4800)], full_utt=True); decoder.end_utt()
            heard = [re.sub(r"\\(\\d+\\)$", "", s.word) for s in decoder.seg() if not s.word.startswith(("<", "["))]
            said = re.sub(r"[^a-z' ]", " ", e["text"].lower()).split()
            wrong += distance(said, heard); total += len(said)
        print(json.dumps({"wrong": wrong, "words": total}))
        """

    struct Result: Decodable { var wrong: Int; var words: Int }

    /// The word errors of the ten sentences spoken by `voice` at the default pace.
    static func wordErrors(_ voice: String, dir: TemporaryDirectory) throws -> Result {
        let lines = sentences.map { "    - say: \"\($0)\"\n      pause: 1\n" }.joined()
        let preset = dir.write("\(voice.prefix(5)).yaml", "name: words\nminutes: fit\npattern: 4-0-6-0\nsettle: 5\nclosing: 5\n"
            + "guide:\n  voice: \(voice)\n  lines:\n\(lines)")
        let out = dir.file("\(voice.prefix(5)).wav"), cues = dir.file("\(voice.prefix(5)).json")
        let render = try runProcess(PackagePaths.executable, ["--preset", preset, "--rate", "16000", "--channels", "1", "--bits", "16",
                                                              "--layers", "voice", "-o", out, "--cues", cues],
                                    environment: ["XDG_CACHE_HOME": dir.file("cache")])
        #expect(render.status == 0, "\(render.stderr)")
        let run = try runProcess(try #require(which("python3")), [dir.write("recognize.py", recognizer), cues, out])
        #expect(run.status == 0, "pocketsphinx (make test-deps installs it): \(run.stderr)")
        return try JSONDecoder().decode(Result.self, from: Data(run.stdout.utf8))
    }

    @Test(.enabled(if: piperProgram != nil && which("text2wave") != nil, "piper and festival are installed by make test-deps"))
    func piperAtTheDefaultPaceIsHeardAtLeastAsWellAsFestival() throws {
        let dir = TemporaryDirectory("voice-wer")
        let piper = try Self.wordErrors("piper:en_US-joe-medium", dir: dir)
        let festival = try Self.wordErrors("festival", dir: dir)
        #expect(piper.words == festival.words && piper.words >= 80, "\(piper), \(festival)")
        #expect(piper.wrong <= festival.wrong, "pocketsphinx missed \(piper.wrong) of Piper's \(piper.words) words and \(festival.wrong) of festival's")
    }
}
