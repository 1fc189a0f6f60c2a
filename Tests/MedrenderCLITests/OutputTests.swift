import Foundation
import MedrenderIO
import MedrenderTestSupport
import Testing

/// Counts the frames ffmpeg decodes from `path` (or from standard input with `input`).
func ffmpegFrames(_ path: String) throws -> Int {
    let ffmpeg = try #require(which("ffmpeg"))
    let dir = TemporaryDirectory("decode")
    let raw = dir.file("raw.pcm")
    let result = try runProcess(ffmpeg, ["-v", "error", "-i", path, "-f", "s16le", "-ac", "1", raw])
    #expect(result.status == 0, "\(result.stderr)")
    let size = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? 0
    return (size ?? 0) / 2
}

func ffprobe(_ path: String, _ entries: String) throws -> String {
    let ffprobe = try #require(which("ffprobe"))
    return try runProcess(ffprobe, ["-v", "error", "-show_entries", entries, "-of", "default=noprint_wrappers=1", path]).stdout
}

@Suite struct OutputTests {
    static let cases: [(String, Int)] = ["ogg", "wav", "flac", "mp3"].flatMap { f in [22050, 44100, 48000].map { (f, $0) } }
        + [("opus", 48000)]

    @Test(arguments: cases)
    func everyFormatHasItsRateChannelsExactLengthAndTitle(format: String, rate: Int) throws {
        let dir = TemporaryDirectory("format")
        let out = dir.file("s.\(format)")
        let result = try runMedrender(["--preset", "coherent", "--cycles", "1", "--rate", String(rate), "-o", out,
                                       "--title", "Evening Breath"])
        #expect(result.status == 0, "\(result.stderr)")
        // Settle 20 s + one 11-s cycle + closing 30 s.
        let frames = 61 * rate
        let probe = try ffprobe(out, "stream=sample_rate,channels:stream_tags=title,TITLE:format_tags=title")
        #expect(probe.contains("sample_rate=\(rate)"), "\(probe)")
        #expect(probe.contains("channels=2"))
        #expect(probe.lowercased().contains("title=evening breath"), "\(probe)")
        // ffmpeg removes MP3's encoder delay and padding (LAME's gapless tag); allow one MP3 frame of slack.
        let decoded = try ffmpegFrames(out)
        if format == "mp3" {
            #expect(abs(decoded - frames) <= 1152, "\(decoded) frames decoded for \(frames)")
        } else {
            #expect(decoded == frames, "\(decoded) frames decoded for \(frames)")
        }
        // sox reads it too (sox has no Opus reader here; ffmpeg covers Opus).
        if format != "opus" {
            let soxi = try #require(which("soxi"))
            let info = try runProcess(soxi, ["-r", out])
            #expect(info.status == 0, "\(info.stderr)")
            #expect(info.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(rate))
        }
    }

    @Test(arguments: ["ogg", "wav", "flac", "opus", "mp3"])
    func sameRenderTwiceGivesTheSameBytes(format: String) throws {
        let dir = TemporaryDirectory("bytes")
        for name in ["a", "b"] {
            let result = try runMedrender(["--preset", "box-breath", "--cycles", "1", "-o", dir.file("\(name).\(format)")])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let a = FileManager.default.contents(atPath: dir.file("a.\(format)"))
        #expect(a != nil && a == FileManager.default.contents(atPath: dir.file("b.\(format)")))
    }

    /// `-o` naming a pipe writes into it (OGG streams, FLAC follows when done): the reader gets the
    /// same bytes as a file, and the pipe stays a pipe.
    @Test(arguments: ["ogg", "flac"])
    func outputToAPipeStreamsIntoIt(format: String) throws {
        let dir = TemporaryDirectory("pipeout")
        let pipe = dir.file("pipe")
        #expect(mkfifo(pipe, 0o644) == 0)
        final class Received: @unchecked Sendable { var data: Data? }
        let received = Received()
        let reader = ThreadJoin {
            received.data = try? FileHandle(forReadingAtPath: pipe)?.readToEnd() ?? Data()
        }
        let streamed = try runMedrender(["--preset", "coherent", "--cycles", "1", "--rate", "16000", "--format", format, "-o", pipe],
                                        killAfter: 600)
        #expect(streamed.status == 0, "\(streamed.stderr)")
        // The reader ends at the pipe's end of file. (A writer that never opened the pipe leaves
        // it waiting in open: a writer of our own, opened and closed, lets it go.)
        if !reader.join(deadline: 120) {
            Issue.record("the pipe's reader did not end")
            close(open(pipe, O_WRONLY | O_NONBLOCK))
            reader.join(deadline: 120)
        }
        let file = dir.file("file.\(format)")
        let written = try runMedrender(["--preset", "coherent", "--cycles", "1", "--rate", "16000", "-o", file])
        #expect(written.status == 0, "\(written.stderr)")
        let bytes = try #require(received.data)
        #expect(bytes.count > 1000 && bytes == FileManager.default.contents(atPath: file))
        var status = stat()
        #expect(stat(pipe, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)
    }

    @Test func unsupportedRateIsRaisedToTheNearestTheFormatTakes() throws {
        let dir = TemporaryDirectory("opusrate")
        let result = try runMedrender(["--preset", "coherent", "--cycles", "1", "--rate", "44100", "-o", dir.file("s.opus")])
        #expect(result.status == 0)
        #expect(result.stderr.contains("rendering at 48000 Hz"))
        #expect(try ffprobe(dir.file("s.opus"), "stream=sample_rate").contains("sample_rate=48000"))
    }

    /// Every format with chapters carries the sections as the cue sheet gives them, one chapter a
    /// section, as ffprobe reads them.
    @Test(arguments: ["ogg", "flac", "mp3", "opus"])
    func chaptersReadBackAsTheCueSheetSaysThem(format: String) throws {
        let dir = TemporaryDirectory("chapters")
        // Opus is decoded at 48 kHz whatever its rate: it is written at that rate, to count its frames.
        let rate = format == "opus" ? 48000 : 8000
        let result = try runMedrender(["--preset", "wind-down", "--minutes", "4", "--rate", String(rate), "--layers", "cues",
                                       "-o", dir.file("s.\(format)"), "--cues", dir.file("s.json")])
        #expect(result.status == 0, "\(result.stderr)")
        let sheet = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: dir.file("s.json")))) as! [String: Any]
        let sections = sheet["sections"] as! [[String: Any]]
        #expect(sections.map { $0["name"] as! String } == ["Settle", "Energize", "Box", "Relax", "Closing"])
        let probe = try runProcess(try #require(which("ffprobe")), ["-v", "error", "-show_chapters", "-of", "json", dir.file("s.\(format)")])
        let chapters = (try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as! [String: Any])["chapters"] as! [[String: Any]]
        #expect(chapters.map { ($0["tags"] as? [String: String])?["title"] ?? "" } == sections.map { $0["name"] as! String }, "\(probe.stdout)")
        for (chapter, section) in zip(chapters, sections) {
            let start = Double(chapter["start_time"] as! String)!, seconds = (section["seconds"] as! NSNumber).doubleValue
            #expect(abs(start - seconds) < 0.0005, "\(chapter) \(section)")
        }
        // inspect reads them back too.
        let inspect = try runMedrender(["inspect", "--json", dir.file("s.\(format)")])
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        let read = (report["chapters"] as? [[String: Any]]) ?? []
        #expect(read.map { $0["name"] as? String ?? "" } == sections.map { $0["name"] as! String }, "\(inspect.stdout)")
        #expect(read.map { ($0["seconds"] as? NSNumber)?.doubleValue ?? -1 } == sections.map { ($0["seconds"] as! NSNumber).doubleValue })
        // The audio is whole after the header grew: every frame decodes (MP3 within one frame of
        // 1152, as its encoder delay and padding are trimmed).
        let decoded = try ffmpegFrames(dir.file("s.\(format)"))
        #expect(abs(decoded - 4 * 60 * rate) <= (format == "mp3" ? 1152 : 0), "\(decoded) frames")
    }

    @Test func oggChaptersAndWaveMarkersReadBack() throws {
        let dir = TemporaryDirectory("chapters")
        for format in ["ogg", "wav"] {
            let result = try runMedrender(["--preset", "wind-down", "-o", dir.file("s.\(format)"), "--rate", "8000"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let chapters = try ffprobe(dir.file("s.ogg"), "chapter=start_time:chapter_tags=title")
        for name in ["Settle", "Energize", "Box", "Relax", "Closing"] {
            #expect(chapters.contains("title=\(name)"), "\(chapters)")
        }
        // The first segment starts with the breathing: one chapter there, the named one.
        #expect(!chapters.contains("title=Breathing"), "\(chapters)")
        #expect(chapters.contains("start_time=0.000000"))
        #expect(chapters.contains("start_time=20.000000"))
        // libsndfile reads the WAV cue points with their labels, on the sections' frames.
        let cues = try SoundFileReader(path: dir.file("s.wav")).cuePoints()
        #expect(cues.map(\.name) == ["Settle", "Energize", "Box", "Relax", "Closing"])
        #expect(cues[1].frame == 20 * 8000)
        let inspect = try runMedrender(["inspect", "--json", dir.file("s.wav")])
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        #expect((report["chapters"] as! [[String: Any]]).count == 5)
        #expect((report["frames"] as! NSNumber).intValue == 15 * 60 * 8000)
        #expect((report["tags"] as! [String: String])["copyright"]?.contains("bell.ogg: medrender authors, CC0-1.0") == true)
    }

    /// Two renders into the same audio, cue sheet and stems at once: whichever lands last, the
    /// three agree (the set is put in place under the folders' lock).
    @Test func concurrentRendersLeaveAConsistentSet() throws {
        let dir = TemporaryDirectory("race")
        let stems = dir.file("stems")
        try FileManager.default.createDirectory(atPath: stems, withIntermediateDirectories: true)
        for _ in 0..<3 {
            let common = ["--rate", "8000", "--layers", "cues", "-o", dir.file("o.wav"), "--cues", dir.file("o.json"), "--stems", stems]
            let first = ["--preset", "coherent", "--cycles", "1"] + common
            let other = ThreadJoin { _ = try? runMedrender(first) }
            _ = try runMedrender(["--preset", "coherent", "--cycles", "2"] + common)
            try #require(other.join(), "the other render did not end")
            let (_, channels, samples) = try readSound(dir.file("o.wav"))
            let sheet = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("o.json")))) as? [String: Any])
            #expect((sheet["frames"] as? NSNumber)?.intValue == samples.count / channels)
            let (_, stemChannels, stem) = try readSound(stems + "/o-cues.wav")
            #expect(stem.count / stemChannels == samples.count / channels)
        }
    }

    /// `--layers` only chooses what is mixed: the bells alone ring on the same frames as in the full
    /// mix (the end bell waits for the outro even when the voice is left out).
    @Test func aLayerAloneKeepsItsTimesInTheMix() throws {
        let dir = TemporaryDirectory("layeralone")
        let common = ["--preset", "box-breath", "--cycles", "1", "--rate", "8000", "--bits", "32f"]
        #expect(try runMedrender(common + ["--layers", "bells", "-o", dir.file("bells.wav")]).status == 0)
        let stems = dir.file("stems")
        try FileManager.default.createDirectory(atPath: stems, withIntermediateDirectories: true)
        #expect(try runMedrender(common + ["-o", dir.file("mix.wav"), "--stems", stems]).status == 0)
        func sounding(_ path: String) throws -> [Int] {
            let (_, channels, samples) = try readSound(path)
            return stride(from: 0, to: samples.count, by: channels).filter { samples[$0] != 0 || samples[$0 + channels - 1] != 0 }
                .map { $0 / channels }
        }
        let alone = try sounding(dir.file("bells.wav")), inMix = try sounding(stems + "/mix-bells.wav")
        #expect(!alone.isEmpty && alone.first == inMix.first && alone.last == inMix.last,
                "bells from \(alone.first ?? -1) to \(alone.last ?? -1) alone, \(inMix.first ?? -1) to \(inMix.last ?? -1) in the mix")
    }

    /// The lowest quality is written as the help says, `--quality -1`, in render and build.
    @Test func negativeQualityIsTakenAsAValue() throws {
        let dir = TemporaryDirectory("quality")
        let render = try runMedrender(["--preset", "coherent", "--cycles", "1", "--rate", "8000", "--quality", "-1", "-o", dir.file("q.ogg")])
        #expect(render.status == 0, "\(render.stderr)")
        let build = try runMedrender(["build", "coherent", "-o", dir.file("dist"), "--cycles", "1", "--rate", "8000", "--quality", "-0.5"])
        #expect(build.status == 0, "\(build.stderr)")
    }

    /// `inspect` says when a file was cut short (and not when it is whole).
    @Test func inspectSaysWhenAFileIsCutShort() throws {
        let dir = TemporaryDirectory("cutshort")
        #expect(try runMedrender(["--preset", "coherent", "--cycles", "1", "-o", dir.file("o.opus")]).status == 0)
        let opus = try runMedrender(["inspect", dir.file("o.opus")])
        #expect(opus.stdout.contains("format    Opus, 48000 Hz"), "\(opus.stdout)")
        for format in ["ogg", "wav", "flac"] {
            let whole = dir.file("s.\(format)")
            let result = try runMedrender(["--preset", "box-breath", "--cycles", "2", "--rate", "8000", "-o", whole])
            #expect(result.status == 0, "\(result.stderr)")
            let full = try runMedrender(["inspect", "--json", whole])
            #expect(full.status == 0 && !full.stderr.contains("warning"), "\(full.stderr)")
            let bytes = try #require(FileManager.default.contents(atPath: whole))
            let cut = dir.file("cut.\(format)")
            FileManager.default.createFile(atPath: cut, contents: bytes.prefix(bytes.count / 3))
            let inspect = try runMedrender(["inspect", "--json", cut])
            #expect(inspect.status == 0, "\(inspect.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
            let warnings = report["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("cut short") }, "\(format): \(warnings)")
            // OGG keeps its chapters in its first pages (WAV's markers follow the audio, and are cut off).
            if format == "ogg" { #expect(warnings.contains { $0.contains("lies after the end") }, "\(warnings)") }
            #expect(inspect.stderr.contains("medrender: warning: \(cut): "), "\(inspect.stderr)")
        }
    }

    /// MP3's ID3 text survives whole: what Latin-1 lacks (LAME writes Latin-1) is written again in
    /// UTF-16; and the credits ride in the comment, as ID3 has no copyright here.
    @Test func mp3TagsAreReadableAndCarryTheCredits() throws {
        let dir = TemporaryDirectory("mp3tags")
        let out = dir.file("s.mp3")
        let result = try runMedrender(["--preset", "box-breath", "--cycles", "1", "--rate", "16000", "--album", "é☔ Café — calm", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let tags = try ffprobe(out, "format_tags=album,comment")
        #expect(tags.contains("TAG:album=é☔ Café — calm"), "\(tags)")
        #expect(tags.contains("Box breathing, 4-4-4-4 — in, hold, out, hold"), "\(tags)")
        #expect(tags.contains("Credits: ") && tags.contains("bell.ogg: medrender authors, CC0-1.0"), "\(tags)")
    }

    /// A library whose CREDITS.yaml is broken, or does not list a sound, still renders; the file
    /// says "credits not known" and the user is told why.
    @Test(arguments: [
        ("rain.ogg: [ broken\n", "is not a YAML mapping of sound file names"),
        ("ocean.ogg: { author: someone, license: CC0-1.0 }\n", "gives no author and license for rain.ogg"),
        (nil, "CREDITS.yaml is missing or unreadable"),
    ] as [(String?, String)])
    func creditsThatCannotBeGivenAreAWarning(credits: String?, message: String) throws {
        let dir = TemporaryDirectory("credits")
        let library = dir.file("library")
        for folder in ["Presets", "Sounds"] {
            try FileManager.default.createDirectory(atPath: library + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: PackagePaths.root + "/Sounds/rain.ogg", toPath: library + "/Sounds/rain.ogg")
        if let credits { try credits.write(toFile: library + "/Sounds/CREDITS.yaml", atomically: true, encoding: .utf8) }
        try "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [rain]\n"
            .write(toFile: library + "/Presets/p.yaml", atomically: true, encoding: .utf8)
        let home = ["MEDRENDER_HOME": library]
        let result = try runProcess(PackagePaths.executable, ["--preset", "p", "--cycles", "1", "--rate", "8000", "-o", dir.file("s.wav")],
                                    in: dir.path, environment: home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("medrender: warning: ") && result.stderr.contains(message), "\(result.stderr)")
        let inspect = try runMedrender(["inspect", "--json", dir.file("s.wav")])
        let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        #expect((report["tags"] as! [String: String])["copyright"]?.contains("rain.ogg: credits not known") == true)
    }

    @Test(arguments: ["ogg", "wav", "flac"])
    func standardOutputCarriesTheWholeSession(format: String) throws {
        let dir = TemporaryDirectory("stdout")
        let out = dir.file("piped.\(format)")
        let command = "'\(PackagePaths.executable)' --preset coherent --cycles 1 --format \(format) -o - > '\(out)'"
        let result = try runProcess("/bin/bash", ["-c", command], in: PackagePaths.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try ffmpegFrames(out) == 61 * 48000)
        #expect(dir.contents() == ["piped.\(format)"])
        // The sections as chapters or markers, in a stream too (WAV's go before the audio).
        let names = format == "flac" ? [] : ["Settle", "Breathing", "Closing"]
        if format == "wav" { #expect(try SoundFileReader(path: out).cuePoints().map(\.name) == names) }
        if format == "ogg" {
            let inspect = try runMedrender(["inspect", out])
            for name in names { #expect(inspect.stdout.contains(name), "\(inspect.stdout)") }
        }
    }

    @Test func readerClosingThePipeIsAnIOError() throws {
        let command = "set -o pipefail; '\(PackagePaths.executable)' --preset coherent --cycles 1 --format wav -o - | head -c 100 > /dev/null"
        let result = try runProcess("/bin/bash", ["-c", command], in: PackagePaths.root)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("closed the pipe"), "\(result.stderr)")
    }
}
