import Foundation
@testable import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Synchronization
import Testing

/// An OGG render is one Vorbis stream encoded in pieces (`PiecedVorbisEncoder`): read by decoders
/// that are not libvorbis, it is continuous at every splice, within the codec's own noise of one
/// encoder, of its exact length, and the same bytes on any number of threads.
@Suite struct PiecedRenderTests {
    static let hasFFmpeg = which("ffmpeg") != nil

    /// A render of a stock preset, with where its pieces met.
    struct Rendered {
        var report: RenderReport
        var splices: [Int64]
        /// The Vorbis encoders it started.
        var encoders: Int
        var bytes: Data
        var path: String
    }

    static func render(_ preset: String, seconds: Double, rate: Int, channels: Int, quality: Double = 4, threads: Int = 2,
                       oneEncoder: Bool = false, viaDefault: Bool = false, dir: TemporaryDirectory, name: String) throws -> Rendered {
        let file = try library.presetPath(preset)
        let out = dir.file("\(name).ogg")
        var request = RenderRequest(
            session: try PresetDecoder.load(path: file), presetFile: file,
            options: RenderOptions(rate: rate, channels: channels, length: .duration(try #require(SessionTime(seconds: seconds)))),
            format: .ogg(quality: quality), destination: .file(out), library: library)
        request.threads = threads
        var job = try request.job()
        // In pieces on any number of threads unless one encoder is asked for; with `viaDefault`, as
        // the thread count chooses.
        if !viaDefault { job.oggInPieces = !oneEncoder }
        let seen = Mutex<(splices: [Int64], encoders: Int)>(([], 0))
        job.vorbisObserver = { splices, encoders in seen.withLock { $0 = (splices, encoders) } }
        let report = try job.run(to: request.destination)
        let (splices, encoders) = seen.withLock { $0 }
        return Rendered(report: report, splices: splices, encoders: encoders, bytes: try Data(contentsOf: URL(fileURLWithPath: out)), path: out)
    }

    /// libvorbisfile, the reference decoder's library (`scripts/vorbisfile-seek.py`, through
    /// ctypes), seeks sample-accurately in a pieced file: at every splice, a frame after it and
    /// between splices, what it reads after `ov_pcm_seek` is what a decode from the start has there.
    @Test func libvorbisfileSeeksToTheSampleAcrossEverySplice() throws {
        let dir = TemporaryDirectory("pieced-seek")
        let rendered = try Self.render("box-breath", seconds: 180, rate: 8000, channels: 1, dir: dir, name: "seek")
        try #require(rendered.splices.count >= 4, "\(rendered.splices)")
        let script = PackagePaths.root + "/scripts/vorbisfile-seek.py"
        func seek(_ arguments: [String]) throws -> [String: Any] {
            let result = try runProcess("/usr/bin/env", ["python3", script, rendered.path] + arguments)
            try #require(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
        // Every 5 s (with a frame after and 777 after), then also at each splice and the frame after it.
        let answer = try seek(["5"])
        #expect(answer["frames"] as? Int == 180 * 8000 && answer["decodedFrames"] as? Int == 180 * 8000, "\(answer)")
        #expect((answer["seeks"] as? Int ?? 0) >= 100, "\(answer)")
        #expect((answer["wrong"] as? [Any])?.isEmpty == true, "\(answer)")
        let spliceAnswer = try seek(["5", rendered.splices.map(String.init).joined(separator: ",")])
        #expect((spliceAnswer["wrong"] as? [Any])?.isEmpty == true, "\(spliceAnswer)")
        #expect((spliceAnswer["seeks"] as? Int ?? 0) >= (answer["seeks"] as? Int ?? 0) + 2 * rendered.splices.count, "\(spliceAnswer)")
    }

    /// ffmpeg's own Vorbis decoder (not libvorbis), to 32-bit float.
    static func decode(_ path: String, dir: TemporaryDirectory) throws -> [Float] {
        let raw = path + ".f32"
        let result = try runProcess(which("ffmpeg")!, ["-v", "error", "-y", "-i", path, "-f", "f32le", "-c:a", "pcm_f32le", raw])
        try #require(result.status == 0, "ffmpeg: \(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func rms(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var sum = 0.0
        for (x, y) in zip(a, b) { sum += Double(x - y) * Double(x - y) }
        return (sum / Double(max(1, min(a.count, b.count)))).squareRoot()
    }

    /// The largest change from one frame to the next, over `frames`.
    static func largestStep(_ samples: [Float], frames: Range<Int>, channels: Int) -> Float {
        var step: Float = 0
        for n in frames.dropFirst() where n < samples.count / channels {
            for c in 0..<channels { step = max(step, abs(samples[n * channels + c] - samples[(n - 1) * channels + c])) }
        }
        return step
    }

    @Test("a 10-minute render: continuous at every splice, within the codec's own noise of one encoder, ogginfo clean",
          .enabled(if: hasFFmpeg, "needs ffmpeg"))
    func tenMinutesAreContinuousAtEverySplice() throws {
        let dir = TemporaryDirectory("pieced-render")
        let rate = 8000, channels = 2
        let pieced = try Self.render("box-breath", seconds: 600, rate: rate, channels: channels, dir: dir, name: "pieced")
        let single = try Self.render("box-breath", seconds: 600, rate: rate, channels: channels, oneEncoder: true, dir: dir, name: "single")
        // The codec's own noise: one encoder at the neighbouring quality (oggenc's -q step, 0.1).
        let neighbour = try Self.render("box-breath", seconds: 600, rate: rate, channels: channels, quality: 4.1, oneEncoder: true,
                                        dir: dir, name: "neighbour")
        // Pieces of 30 s at 8 kHz stereo: a splice near every boundary but the last.
        let piece = 4096 * Int((PiecedVorbisEncoder.pieceSeconds(rate: rate, channels: channels) * Double(rate) / 4096).rounded())
        #expect(pieced.splices.count == 600 * rate / piece - 1, "\(pieced.splices)")
        #expect(single.splices.isEmpty)
        #expect(pieced.bytes != single.bytes)
        // The same mix went into all three (no lossy correction made one of them louder).
        #expect(pieced.report.gainDecibels == single.report.gainDecibels)
        #expect(neighbour.report.gainDecibels == single.report.gainDecibels)

        let a = try Self.decode(pieced.path, dir: dir), b = try Self.decode(single.path, dir: dir)
        let c = try Self.decode(neighbour.path, dir: dir)
        try #require(a.count == 600 * rate * channels && b.count == a.count && c.count == a.count)
        let noise = Self.rms(b[...], c[...]), difference = Self.rms(a[...], b[...])
        #expect(noise > 0)
        #expect(difference <= noise, "pieced against one encoder \(difference), two qualities \(noise)")
        // No click: at each splice the largest step is the signal's own, within 10 % of one
        // encoder's there and no larger than the pieced file's largest anywhere else.
        let long = 2048, frames = a.count / channels
        let windows = pieced.splices.map { max(0, Int($0) - 2 * long)..<min(frames, Int($0) + 3 * long) }
        // The signal's own largest step, away from every splice.
        var elsewhere: Float = 0
        var from = 0
        for window in windows + [frames..<frames] {
            if window.lowerBound > from { elsewhere = max(elsewhere, Self.largestStep(a, frames: from..<window.lowerBound, channels: channels)) }
            from = max(from, window.upperBound)
        }
        #expect(elsewhere > 0)
        for (splice, window) in zip(pieced.splices, windows) {
            let step = Self.largestStep(a, frames: window, channels: channels)
            let reference = Self.largestStep(b, frames: window, channels: channels)
            #expect(step <= reference * 1.1 + 0.002, "splice at \(splice): step \(step), one encoder \(reference)")
            #expect(step <= elsewhere, "splice at \(splice): step \(step), the signal's largest elsewhere \(elsewhere)")
            let samples = (window.lowerBound * channels)..<(window.upperBound * channels)
            let local = Self.rms(a[samples], b[samples]), localNoise = Self.rms(b[samples], c[samples])
            #expect(local <= max(localNoise, noise), "splice at \(splice): difference \(local), codec noise \(localNoise)")
        }
        if let ogginfo = which("ogginfo") {
            let result = try runProcess(ogginfo, [pieced.path])
            let text = result.stdout + result.stderr
            #expect(result.status == 0 && !text.contains("WARNING") && !text.contains("ERROR"), "\(text)")
        }
    }

    @Test("exact length, mono and stereo, at every rate", arguments: [8000, 22050, 44100, 48000, 96000], [1, 2])
    func exactLength(rate: Int, channels: Int) throws {
        let dir = TemporaryDirectory("pieced-length")
        // Two and a bit pieces (and one breath cycle, 11 s, at least), and a length in
        // milliseconds that is no whole number of blocks.
        let pieces = (2.3 * PiecedVorbisEncoder.pieceSeconds(rate: rate, channels: channels) * 1000).rounded() / 1000
        let seconds = max(12, pieces) + 0.007
        let rendered = try Self.render("coherent", seconds: seconds, rate: rate, channels: channels, dir: dir, name: "length")
        let frames = Int64((seconds * Double(rate)).rounded())
        #expect(rendered.report.frames == frames)
        #expect(rendered.splices.count >= 1)
        let reader = try SoundFileReader(path: rendered.path)
        #expect(reader.frameCount == frames && reader.rate == rate && reader.channels == channels)
        if Self.hasFFmpeg {
            #expect(try Self.decode(rendered.path, dir: dir).count == Int(frames) * channels)
        }
    }

    @Test("the same bytes with 1, 2 and 4 threads")
    func sameBytesAnyThreads() throws {
        let dir = TemporaryDirectory("pieced-threads")
        let one = try Self.render("box-breath", seconds: 40, rate: 48000, channels: 2, threads: 1, dir: dir, name: "one")
        let two = try Self.render("box-breath", seconds: 40, rate: 48000, channels: 2, threads: 2, dir: dir, name: "two")
        let four = try Self.render("box-breath", seconds: 40, rate: 48000, channels: 2, threads: 4, dir: dir, name: "four")
        #expect(one.splices.count >= 3)
        #expect(one.splices == four.splices)
        let same = one.bytes == two.bytes && one.bytes == four.bytes
        #expect(same, "\(one.bytes.count), \(two.bytes.count), \(four.bytes.count) bytes")
    }

    /// One thread (`--threads 1`, a build's share) pays nothing for pieces: one Vorbis encoder is
    /// started (no scout, no pre-roll, no start tried), and the file is one encoder's bytes. Two
    /// threads encode in pieces, the pieced stream's bytes.
    @Test("one thread starts one encoder; two encode in pieces")
    func oneThreadStartsOneEncoder() throws {
        let dir = TemporaryDirectory("pieced-one")
        let one = try Self.render("box-breath", seconds: 40, rate: 48000, channels: 2, threads: 1, viaDefault: true, dir: dir, name: "one")
        let single = try Self.render("box-breath", seconds: 40, rate: 48000, channels: 2, oneEncoder: true, dir: dir, name: "single")
        let two = try Self.render("box-breath", seconds: 40, rate: 48000, channels: 2, threads: 2, viaDefault: true, dir: dir, name: "two")
        let pieced = try Self.render("box-breath", seconds: 40, rate: 48000, channels: 2, threads: 1, dir: dir, name: "pieced")
        #expect(one.encoders == 1 && one.splices.isEmpty, "one thread: \(one.encoders) encoders, splices \(one.splices)")
        #expect(one.bytes == single.bytes)
        // Two threads: the scout, a piece's encoder for each of the four pieces at least.
        #expect(two.splices.count >= 3 && two.encoders >= two.splices.count + 2, "two threads: \(two.encoders) encoders")
        #expect(two.bytes == pieced.bytes && two.bytes != one.bytes)
        #expect(one.report.frames == two.report.frames)
    }
}
