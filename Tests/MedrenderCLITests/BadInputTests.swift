import Foundation
import MedrenderTestSupport
import Testing

/// A 16-bit PCM WAV file's bytes, with whatever rate and channels its header should claim.
func waveBytes(rate: UInt32, channels: UInt16, frames: Int, value: Int16 = 1000) -> [UInt8] {
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
    let dataBytes = UInt32(frames) * UInt32(channels) * 2
    var bytes = Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(channels)
    bytes += le32(rate) + le32(rate &* UInt32(channels) &* 2) + le16(channels * 2) + le16(16) + Array("data".utf8) + le32(dataBytes)
    for i in 0..<(frames * Int(channels)) {
        let v = UInt16(bitPattern: i % 2 == 0 ? value : -value)
        bytes += le16(v)
    }
    return bytes
}

@Suite struct BadSoundTests {
    /// Renders a preset whose ambience bed is `bed` (a file written beside it).
    func render(bed: [UInt8]?, name: String = "bed.wav", extra: [String] = []) throws -> (ProcessResult, TemporaryDirectory) {
        let dir = TemporaryDirectory("badsound")
        if let bed { FileManager.default.createFile(atPath: dir.file(name), contents: Data(bed)) }
        dir.write("p.yaml", "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [\(name)]\n")
        let result = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "2", "--rate", "8000",
                                       "-o", dir.file("out.wav")] + extra)
        return (result, dir)
    }

    @Test(arguments: [
        ("not audio", Array("this is not a sound file, it is text\n".utf8), 65, "is not a sound file medrender can read"),
        ("zero frames", waveBytes(rate: 8000, channels: 1, frames: 0), 65, "holds no audio"),
        ("1 Hz rate", waveBytes(rate: 1, channels: 1, frames: 100), 65, "sample rate"),
        ("1 MHz rate", waveBytes(rate: 1_000_000, channels: 1, frames: 100), 65, "sample rate"),
        ("empty file", [UInt8](), 65, "is not a sound file"),
    ] as [(String, [UInt8], Int32, String)])
    func brokenSoundIsAClearError(what: String, bytes: [UInt8], code: Int32, message: String) throws {
        let (result, dir) = try render(bed: bytes)
        #expect(result.status == code, "\(what): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(what): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count <= 2, "one or two lines: \(result.stderr)")
        #expect(!dir.contents().contains("out.wav"))
        #expect(!dir.contents().contains { $0.hasPrefix(".") }, "no temporary file is left")
    }

    @Test(arguments: [
        ("one frame", waveBytes(rate: 8000, channels: 1, frames: 1)),
        ("four channels", waveBytes(rate: 44100, channels: 4, frames: 44100)),
        ("truncated", Array(waveBytes(rate: 8000, channels: 2, frames: 8000).prefix(9000))),
        ("odd rate", waveBytes(rate: 11111, channels: 2, frames: 5000)),
    ] as [(String, [UInt8])])
    func oddButReadableSoundRendersExactly(what: String, bytes: [UInt8]) throws {
        let (result, dir) = try render(bed: bytes)
        #expect(result.status == 0, "\(what): \(result.stderr)")
        let (_, channels, samples) = try readSound(dir.file("out.wav"))
        #expect(samples.count / channels == 20 * 8000, "settle 2 + 2 cycles of 8 s + closing 2")
    }

    @Test func missingSoundListsWhatSoundsOffersAndFallbackReplacesIt() throws {
        let (result, dir) = try render(bed: nil, name: "forest")
        #expect(result.status == 66)
        #expect(result.stderr.contains("the sound 'forest' was not found"))
        #expect(result.stderr.contains("Sounds/ offers: bell, chime, gong, ocean, rain, teacher-take, voice-breathe-in"))
        let fallback = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "2", "--rate", "8000",
                                         "-o", dir.file("out.wav"), "--fallback", "stock"])
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(fallback.stderr.contains("warning: "))
        #expect(fallback.stderr.contains("the ambience sound 'forest' was not found; using the bundled 'rain' instead"))
        #expect(dir.contents().contains("out.wav"))
    }

    @Test func soundThatIsTheOutputIsRefusedAndKept() throws {
        let dir = TemporaryDirectory("self")
        let bed = waveBytes(rate: 8000, channels: 1, frames: 8000)
        FileManager.default.createFile(atPath: dir.file("bed.wav"), contents: Data(bed))
        dir.write("p.yaml", "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [bed.wav]\n")
        let result = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "2", "-o", dir.file("bed.wav")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("is the output file"))
        #expect(FileManager.default.contents(atPath: dir.file("bed.wav")) == Data(bed))
    }

    /// A render writes its audio, cue sheet and stems together: when one of them cannot be written,
    /// none is, and the files already there are untouched.
    @Test func anOutputThatCannotBeWrittenChangesNoneOfThem() throws {
        let dir = TemporaryDirectory("together")
        let old = Data("the old file".utf8)
        let long = String(repeating: "b", count: 245)  // its stems' names would pass 255 bytes
        for name in ["a.ogg", "\(long).ogg"] { FileManager.default.createFile(atPath: dir.file(name), contents: old) }
        let cases: [([String], String)] = [
            (["-o", dir.file("a.ogg"), "--cues", dir.file("missing/a.json")], "does not exist"),
            (["-o", dir.file("a.ogg"), "--cues", dir.file("a.ogg/a.json")], "is a file, not a folder"),
            (["-o", dir.file("\(long).ogg"), "--stems", dir.path, "--cues", dir.file("c.json")], "names are at most 255"),
        ]
        for (arguments, message) in cases {
            let result = try runMedrender(["--preset", "box-breath", "--cycles", "1", "--rate", "8000"] + arguments)
            #expect(result.status == 73, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(dir.contents() == ["a.ogg", "\(long).ogg"], "\(arguments)")
            #expect(FileManager.default.contents(atPath: dir.file("a.ogg")) == old)
            #expect(FileManager.default.contents(atPath: dir.file("\(long).ogg")) == old)
        }
    }

    /// Writing over the preset itself, or the cue sheet over the audio, is a usage error that
    /// touches nothing.
    @Test func presetOrCueSheetThatIsTheOutputIsRefusedAndKept() throws {
        let dir = TemporaryDirectory("selfpreset")
        let text = "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\n"
        let preset = dir.write("p.yaml", text)
        let overPreset = try runMedrender(["--preset", preset, "--cycles", "1", "-o", dir.path + "/./p.yaml", "--format", "wav"])
        #expect(overPreset.status == 64, "\(overPreset.stderr)")
        #expect(overPreset.stderr.contains("the preset is the output file"), "\(overPreset.stderr)")
        #expect(try String(contentsOfFile: preset, encoding: .utf8) == text)
        let overAudio = try runMedrender(["--preset", preset, "--cycles", "1", "-o", dir.file("s.txt"), "--format", "wav",
                                          "--cues", dir.file("s.txt")])
        #expect(overAudio.status == 64, "\(overAudio.stderr)")
        #expect(overAudio.stderr.contains("is the audio output too"), "\(overAudio.stderr)")
        // The cue sheet (of render or of `cues`) onto the preset, a stem onto a sound it plays.
        let sheet = try runMedrender(["--preset", preset, "--cycles", "1", "-o", dir.file("s.ogg"), "--cues", dir.path + "/p.yaml"])
        let alone = try runMedrender(["cues", "--preset", preset, "--cycles", "1", "-o", dir.path + "/p.yaml"])
        for result in [sheet, alone] {
            #expect(result.status == 64 || result.status == 65, "\(result.stderr)")
            #expect(try String(contentsOfFile: preset, encoding: .utf8) == text)
        }
        #expect(dir.contents() == ["p.yaml"])
        let voice = dir.file("mix-voice.ogg")
        try FileManager.default.copyItem(atPath: PackagePaths.root + "/Sounds/voice-hold.ogg", toPath: voice)
        let before = FileManager.default.contents(atPath: voice)
        dir.write("v.yaml", "pattern: 4-0-4-0\nsettle: 5\nclosing: 2\nvoice: { intro: mix-voice.ogg }\n")
        let stem = try runMedrender(["--preset", dir.file("v.yaml"), "--cycles", "1", "-o", dir.file("mix.ogg"), "--stems", dir.path])
        #expect(stem.status == 64, "\(stem.stderr)")
        #expect(stem.stderr.contains("the sound 'mix-voice.ogg' is the output file"), "\(stem.stderr)")
        #expect(FileManager.default.contents(atPath: voice) == before)
        #expect(dir.contents() == ["mix-voice.ogg", "p.yaml", "v.yaml"])
    }

    /// A sound too long to hold in memory is refused before it is decoded (by its header) or
    /// before it is resampled (an hour at 8000 Hz is 24 times larger at 192000 Hz), never a crash.
    @Test func soundsTooLongToHoldAreRefused() throws {
        let sox = try #require(which("sox"))
        let dir = TemporaryDirectory("longsound")
        let hour = dir.file("hour.flac"), second = dir.file("second.flac")
        #expect(try runProcess(sox, ["-n", "-r", "8000", "-c", "1", "-b", "16", hour, "trim", "0", "3600"]).status == 0)
        #expect(try runProcess(sox, ["-n", "-r", "8000", "-c", "1", "-b", "16", second, "trim", "0", "1"]).status == 0)
        // A FLAC whose STREAMINFO claims 2^36 - 1 samples (its 36-bit field, all ones).
        var bytes = try #require(FileManager.default.contents(atPath: second)).map { $0 }
        bytes[8 + 13] |= 0x0F
        for i in 14..<18 { bytes[8 + i] = 0xFF }
        FileManager.default.createFile(atPath: dir.file("claims.flac"), contents: Data(bytes))
        for (sound, rate, message) in [("claims.flac", "8000", "is 2386:05:34 long; medrender holds each sound in memory"),
                                       ("hour.flac", "192000", "would take 1.3 GiB at 192000 Hz; medrender holds each sound in memory, up to 1 GiB")] {
            dir.write("p.yaml", "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [\(sound)]\n")
            let result = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "1", "--rate", rate, "-o", dir.file("out.wav")])
            #expect(result.status == 65, "\(sound): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(sound): \(result.stderr)")
        }
        // The hour itself is fine at a rate where it fits.
        let fits = try runMedrender(["--preset", dir.file("p.yaml"), "--cycles", "1", "--rate", "16000", "-o", dir.file("out.wav")])
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    /// A pipe where a sound or a preset should be is refused at once (opening it would wait for a
    /// writer for ever), in a render and in a build; so is a preset too large to be one.
    @Test func pipesAndHugePresetsAreRefusedWithoutWaiting() throws {
        let dir = TemporaryDirectory("pipes")
        #expect(mkfifo(dir.file("pipe.wav"), 0o644) == 0)
        #expect(mkfifo(dir.file("pipe.yaml"), 0o644) == 0)
        dir.write("p.yaml", "pattern: 4-0-4-0\nsettle: 2\nclosing: 2\nambience: [pipe.wav]\n")
        dir.write("huge.yaml", "pattern: 4-4-4-4\n" + String(repeating: "# padding\n", count: 120_000))
        let cases: [([String], Int32, String)] = [
            (["--preset", dir.file("p.yaml"), "--cycles", "1", "-o", dir.file("out.wav")], 66, "pipe.wav: is not a regular file"),
            (["build", dir.file("p.yaml"), "-o", dir.file("dist"), "--minutes", "1"], 66, "pipe.wav: is not a regular file"),
            (["--preset", dir.file("pipe.yaml"), "--cycles", "1", "-o", dir.file("out.wav")], 66, "pipe.yaml: is not a regular file"),
            (["validate", dir.file("pipe.yaml")], 66, "pipe.yaml: is not a regular file"),
            (["--preset", dir.file("huge.yaml"), "--cycles", "1", "-o", dir.file("out.wav")], 65, "a YAML file of at most 1024 KiB"),
        ]
        for (arguments, code, message) in cases {
            let result = try runMedrender(arguments, killAfter: 30)
            #expect(result.status == code, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
    }
}

@Suite struct BadOutputTests {
    /// Standard error closed or a pipe gone: messages are lost, never a crash; standard output
    /// that cannot be written is an I/O error (74).
    @Test func closedOrFullTerminalStreams() throws {
        let dir = TemporaryDirectory("streams")
        let exe = PackagePaths.executable
        // pipefail: a pipeline's status is medrender's, not the reader's.
        func sh(_ command: String) throws -> ProcessResult {
            try runProcess("/bin/bash", ["-c", "set -o pipefail; " + command], in: PackagePaths.root)
        }
        let ok = try sh("\(exe) --preset box-breath --cycles 1 --rate 8000 -o \(dir.file("a.ogg")) 2>&-")
        #expect(ok.status == 0, "\(ok.stdout)")
        #expect(FileManager.default.fileExists(atPath: dir.file("a.ogg")))
        #expect(try sh("\(exe) --preset no-such-preset -o \(dir.file("b.ogg")) 2>&-").status == 66)
        let piped = try sh("\(exe) build box-breath coherent -o \(dir.file("dist2")) --cycles 1 --rate 8000 -j 2 2>&1 | head -c 1 >/dev/null")
        #expect(piped.status == 0, "the build finishes though nobody reads its messages")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: dir.file("dist2"))).contains { $0.hasPrefix(".") })
        if FileManager.default.fileExists(atPath: "/dev/full") {
            for arguments in ["presets", "presets --json", "inspect \(dir.file("a.ogg"))", "validate box-breath"] {
                let full = try sh("\(exe) \(arguments) > /dev/full")
                #expect(full.status == 74, "\(arguments): \(full.stderr)")
                #expect(full.stderr.contains("standard output: the disk is full"), "\(arguments): \(full.stderr)")
            }
        }
    }

    @Test(arguments: [
        ("no-such-folder/out.ogg", 73, "does not exist (create it first)"),
        ("", 73, "is a folder"),
    ] as [(String, Int32, String)])
    func outputThatCannotBeCreatedIs73(relative: String, code: Int32, message: String) throws {
        let dir = TemporaryDirectory("badout")
        let target = relative.isEmpty ? dir.path : dir.file(relative)
        let result = try runMedrender(["--preset", "coherent", "--cycles", "1", "-o", target, "--format", "ogg"])
        #expect(result.status == code, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(dir.contents().isEmpty)
    }

    /// Root ignores permissions, so as root this runs as `nobody`.
    @Test func readOnlyFolderIs73AndStaysEmpty() throws {
        let dir = TemporaryDirectory("readonly")
        dir.write("p.yaml", "pattern: 4-4-4-4\n")
        let locked = dir.file("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        chmod(locked, 0o555)
        defer { chmod(locked, 0o755) }
        let result = try runMedrenderUnprivileged(["--preset", dir.file("p.yaml"), "--cycles", "1", "-o", locked + "/x.ogg"], dir: dir)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("check that the folder is writable"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: locked)) == [])
    }

    /// A sound that is there but cannot be read is missing input (66), named with its preset.
    @Test func unreadableSoundIs66() throws {
        let dir = TemporaryDirectory("unreadable")
        let sound = dir.file("rain.wav")
        FileManager.default.createFile(atPath: sound, contents: Data(waveBytes(rate: 8000, channels: 1, frames: 8000)))
        chmod(sound, 0o000)
        dir.write("p.yaml", "pattern: 4-4-4-4\nambience: [rain.wav]\n")
        let result = try runMedrenderUnprivileged(["--preset", dir.file("p.yaml"), "--cycles", "1", "-o", dir.file("x.ogg")], dir: dir)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("rain.wav"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.ogg")))
    }
}
