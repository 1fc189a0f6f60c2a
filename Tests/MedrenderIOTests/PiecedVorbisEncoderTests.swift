import Foundation
import MedrenderCore
@testable import MedrenderIO
import MedrenderTestSupport
import Testing

/// A session-like test signal: two slow tones, a quiet noise bed, and struck sounds with sharp
/// attacks at irregular times (so the encoder chooses runs of short blocks of many lengths, which
/// move its block grid), with silent stretches between some of them.
func sessionSignal(frames: Int, rate: Int, channels: Int, seed: UInt64 = 7) -> [Float] {
    var samples = [Float](repeating: 0, count: frames * channels)
    var random = SplitMix64(seed: seed)
    let r = Double(rate)
    // Strikes: every 0.3–2.3 s, a decaying 600–2600 Hz partial with a one-sample attack.
    var strikes: [(frame: Int, frequency: Double)] = []
    var at = Int(0.4 * r)
    while at < frames {
        strikes.append((at, 600 + Double(random.next() % 2000)))
        at += Int((0.3 + Double(random.next() % 2000) / 1000) * r)
    }
    for n in 0..<frames {
        let t = Double(n) / r
        // The pad fades out for 3 s of every 40, leaving the noise and the strikes alone.
        let cycle = t.truncatingRemainder(dividingBy: 40)
        let pad = cycle > 30 && cycle < 33 ? 0.0 : 0.25
        let tone = pad * (sin(2 * .pi * 220 * t) + 0.5 * sin(2 * .pi * 331 * t)) * (0.7 + 0.3 * sin(2 * .pi * 0.1 * t))
        for c in 0..<channels {
            samples[n * channels + c] = Float(tone * (c == 0 ? 1 : 0.8)) + 0.01 * random.nextSample()
        }
    }
    for strike in strikes {
        let length = min(Int(0.25 * r), frames - strike.frame)
        for i in 0..<length {
            let t = Double(i) / r
            let value = Float(0.5 * exp(-t * 18) * sin(2 * .pi * strike.frequency * t + 0.3))
            for c in 0..<channels { samples[(strike.frame + i) * channels + c] += value }
        }
    }
    return samples
}

/// What a pieced encode gives: the file's bytes and where its pieces meet.
struct PiecedResult {
    var bytes: [UInt8]
    var splices: [Int64]
    var longBlock: Int
    /// The most audio the encoder held at once, in samples.
    var mostHeld: Int
}

/// Encodes `samples` in pieces, handing them over in blocks of `feed` frames.
func encodePieced(_ samples: [Float], channels: Int, rate: Int, threads: Int, pieceSeconds: Double, quality: Double = 4,
                  feed: Int = 4096) throws -> PiecedResult {
    let sink = MemorySink()
    let frames = samples.count / channels
    let encoder = try PiecedVorbisEncoder(sink: sink, channels: channels, rate: rate, quality: quality, tags: [("TITLE", "pieces")],
                                          totalFrames: frames, threads: threads, pieceSeconds: pieceSeconds)
    try samples.withUnsafeBufferPointer { (p) throws(IOError) in
        var at = 0
        while at < frames {
            let n = min(feed, frames - at)
            try encoder.write(p.baseAddress! + at * channels, frameCount: n)
            at += n
        }
    }
    try encoder.finish()
    return PiecedResult(bytes: sink.bytes, splices: encoder.splices, longBlock: encoder.longBlockFrames, mostHeld: encoder.mostHeld)
}

/// Encodes `samples` with one `VorbisEncoder`.
func encodeSingle(_ samples: [Float], channels: Int, rate: Int, quality: Double = 4) throws -> [UInt8] {
    let sink = MemorySink()
    let encoder = try VorbisEncoder(sink: sink, channels: channels, rate: rate, quality: quality, tags: [("TITLE", "pieces")])
    try samples.withUnsafeBufferPointer { (p) throws(IOError) in try encoder.write(p.baseAddress!, frameCount: samples.count / channels) }
    try encoder.finish()
    return sink.bytes
}

/// Decodes an OGG with ffmpeg's own Vorbis decoder (not libvorbis): an independent reader.
func decodeWithFFmpeg(_ bytes: [UInt8], channels: Int, in dir: TemporaryDirectory, name: String) throws -> [Float] {
    let input = dir.file("\(name).ogg"), output = dir.file("\(name).f32")
    try Data(bytes).write(to: URL(fileURLWithPath: input))
    let result = try runProcess(which("ffmpeg")!, ["-v", "error", "-y", "-i", input, "-f", "f32le", "-c:a", "pcm_f32le", output])
    try #require(result.status == 0, "ffmpeg failed: \(result.stderr)")
    let data = try Data(contentsOf: URL(fileURLWithPath: output))
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

func rmsDifference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
    var sum = 0.0
    for (x, y) in zip(a, b) { sum += Double(x - y) * Double(x - y) }
    return (sum / Double(max(1, min(a.count, b.count)))).squareRoot()
}

func largestStep(_ samples: [Float], frames: Range<Int>, channels: Int) -> Float {
    var step: Float = 0
    for n in frames.dropFirst() where n < samples.count / channels {
        for c in 0..<channels { step = max(step, abs(samples[n * channels + c] - samples[(n - 1) * channels + c])) }
    }
    return step
}

@Suite("PiecedVorbisEncoder")
struct PiecedVorbisEncoderTests {
    static let hasFFmpeg = which("ffmpeg") != nil

    @Test("a 10-minute stream is continuous at every splice and within the codec's own noise of one encoder",
          .enabled(if: hasFFmpeg, "needs ffmpeg"))
    func splicesAreContinuous() throws {
        let dir = TemporaryDirectory("io-pieced")
        let rate = 22050, channels = 1, frames = 600 * rate
        let input = sessionSignal(frames: frames, rate: rate, channels: channels)
        let pieced = try encodePieced(input, channels: channels, rate: rate, threads: 2, pieceSeconds: 15)
        // 600 s in pieces of about 15 s (whole steps of 4096 frames), the last one longer: a
        // splice near every boundary.
        let piece = 4096 * Int((15 * Double(rate) / 4096).rounded())
        #expect(pieced.splices.count == frames / piece - 1)
        let single = try encodeSingle(input, channels: channels, rate: rate)
        // The codec's own noise: what one encoder changes between two neighbouring qualities
        // (4 and 4.1, the smallest step oggenc's -q is given in).
        let neighbour = try encodeSingle(input, channels: channels, rate: rate, quality: 4.1)
        let a = try decodeWithFFmpeg(pieced.bytes, channels: channels, in: dir, name: "pieced")
        let b = try decodeWithFFmpeg(single, channels: channels, in: dir, name: "single")
        let c = try decodeWithFFmpeg(neighbour, channels: channels, in: dir, name: "neighbour")
        try #require(a.count == frames * channels && b.count == frames * channels && c.count == frames * channels)
        let noise = rmsDifference(b[...], c[...])
        let difference = rmsDifference(a[...], b[...])
        #expect(noise > 0, "two qualities decoded the same")
        #expect(difference <= noise, "pieced vs one encoder \(difference), codec noise \(noise)")
        // At each splice, over the two long blocks either side: no step larger than one encoder's
        // largest there (plus the codec noise's own scale), and no difference from one encoder
        // larger than between two qualities there. A splice whose blocks do not meet leaves an
        // aliasing error of the signal's own size (0.1 or more here).
        let half = pieced.longBlock / 2
        for splice in pieced.splices {
            let window = max(0, Int(splice) - 2 * pieced.longBlock)..<min(frames, Int(splice) + half + 2 * pieced.longBlock)
            let samples = (window.lowerBound * channels)..<(window.upperBound * channels)
            let step = largestStep(a, frames: window, channels: channels)
            let reference = largestStep(b, frames: window, channels: channels)
            #expect(step <= reference * 1.1 + 0.01, "splice at \(splice): step \(step) against \(reference)")
            let local = rmsDifference(a[samples], b[samples])
            let localNoise = rmsDifference(b[samples], c[samples])
            #expect(local <= max(localNoise, noise), "splice at \(splice): difference \(local), codec noise \(localNoise)")
        }
    }

    @Test("the stream has its exact length, mono and stereo, at every rate", arguments: [8000, 22050, 44100, 48000, 96000], [1, 2])
    func exactLength(rate: Int, channels: Int) throws {
        let dir = TemporaryDirectory("io-pieced")
        // Three pieces of about 1.5 s, and an odd number of frames.
        let frames = Int(4.9 * Double(rate)) + 7
        let input = sessionSignal(frames: frames, rate: rate, channels: channels)
        let pieced = try encodePieced(input, channels: channels, rate: rate, threads: 2, pieceSeconds: 1.5, feed: 1000)
        #expect(pieced.splices.count == 2)
        let path = dir.file("pieces.ogg")
        try Data(pieced.bytes).write(to: URL(fileURLWithPath: path))
        // libvorbisfile (through libsndfile) and ffmpeg both read every frame and no more.
        let reader = try SoundFileReader(path: path)
        #expect(reader.frameCount == Int64(frames))
        #expect(reader.rate == rate && reader.channels == channels)
        if Self.hasFFmpeg {
            let decoded = try decodeWithFFmpeg(pieced.bytes, channels: channels, in: dir, name: "ffmpeg")
            #expect(decoded.count == frames * channels)
        }
    }

    @Test("the same bytes with 1, 2 and 4 threads, however the audio is handed over")
    func sameBytesAnyThreads() throws {
        let rate = 22050, channels = 2
        let input = sessionSignal(frames: 20 * rate, rate: rate, channels: channels, seed: 11)
        let one = try encodePieced(input, channels: channels, rate: rate, threads: 1, pieceSeconds: 2)
        #expect(one.splices.count >= 8)
        let two = try encodePieced(input, channels: channels, rate: rate, threads: 2, pieceSeconds: 2, feed: 333)
        let four = try encodePieced(input, channels: channels, rate: rate, threads: 4, pieceSeconds: 2, feed: 65536)
        #expect(one.bytes == two.bytes)
        #expect(one.bytes == four.bytes)
        #expect(one.splices == four.splices)
    }

    @Test("the stream holds its audio in 16 bits: the audio rounded first gives the same bytes, every sample within half a step")
    func holdsSixteenBits() throws {
        let rate = 22050, channels = 2
        let input = sessionSignal(frames: 12 * rate, rate: rate, channels: channels, seed: 3)
        let rounded = input.map { Float(Int16(held: $0)) * Int16.heldStep }
        #expect(zip(input, rounded).allSatisfy { abs($0 - $1) <= Int16.heldStep / 2 })
        #expect(zip(input, rounded).contains { $0 != $1 }, "the signal must have samples off the 16-bit grid")
        let a = try encodePieced(input, channels: channels, rate: rate, threads: 2, pieceSeconds: 2)
        let b = try encodePieced(rounded, channels: channels, rate: rate, threads: 2, pieceSeconds: 2)
        #expect(a.bytes == b.bytes)
        // Full scale and 6 dB over it fit; past that, the held range's ends.
        #expect(Float(Int16(held: 1)) * Int16.heldStep == 1)
        #expect(Float(Int16(held: -1.9)) * Int16.heldStep == Float(-1.9).rounded(toStep: Int16.heldStep))
        #expect(Int16(held: 3) == Int16.max && Int16(held: -3) == Int16.min)
    }

    @Test("a piece is encoded as its audio arrives: the stream holds about one piece's audio, whatever the threads")
    func holdsAboutOnePiece() throws {
        let rate = 22050, channels = 2, seconds = 8.0
        let input = sessionSignal(frames: 120 * rate, rate: rate, channels: channels, seed: 5)
        let piece = 4096 * Int((seconds * Double(rate) / 4096).rounded())
        for threads in [1, 2, 4] {
            let result = try encodePieced(input, channels: channels, rate: rate, threads: threads, pieceSeconds: seconds, feed: 4096)
            #expect(result.splices.count >= 12)
            // One piece, the next one's start (a pre-roll, the starts tried: under half a
            // piece here) and a block handed over: never two pieces, let alone one a thread.
            #expect(result.mostHeld <= piece * channels * 3 / 2, "threads \(threads): held \(result.mostHeld) samples, a piece is \(piece * channels)")
        }
    }

    @Test("ogginfo finds nothing wrong", .enabled(if: which("ogginfo") != nil, "needs ogginfo (vorbis-tools)"))
    func ogginfoClean() throws {
        let dir = TemporaryDirectory("io-pieced")
        let rate = 44100, channels = 2
        let input = sessionSignal(frames: 12 * rate, rate: rate, channels: channels, seed: 3)
        let pieced = try encodePieced(input, channels: channels, rate: rate, threads: 2, pieceSeconds: 2)
        let path = dir.file("pieces.ogg")
        try Data(pieced.bytes).write(to: URL(fileURLWithPath: path))
        let result = try runProcess(which("ogginfo")!, [path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let text = result.stdout + result.stderr
        #expect(!text.contains("WARNING") && !text.contains("ERROR"), "\(text)")
        #expect(text.contains("Vorbis stream 1"))
    }

    /// Where no two long blocks follow each other for half a piece (a run of clicks), there is no
    /// splice: the piece runs on, in one encoder, to the next boundary that has one, and the stream
    /// is as whole, as long and as independent of the threads as anywhere else.
    @Test("a stretch with no splice is encoded whole by one piece", .enabled(if: hasFFmpeg, "needs ffmpeg"))
    func aStretchWithNoSpliceIsEncodedWhole() throws {
        let dir = TemporaryDirectory("io-pieced")
        let rate = 22050, channels = 1, frames = 20 * rate
        var input = sessionSignal(frames: frames, rate: rate, channels: channels, seed: 5)
        // From 4 to 12 s, a sharp click every 12 ms: the encoder takes short blocks throughout.
        let clicks = (4 * rate)..<(12 * rate)
        for start in stride(from: clicks.lowerBound, to: clicks.upperBound, by: rate * 12 / 1000) {
            for i in 0..<8 { input[start + i] += i % 2 == 0 ? 0.6 : -0.6 }
        }
        let one = try encodePieced(input, channels: channels, rate: rate, threads: 1, pieceSeconds: 2)
        let two = try encodePieced(input, channels: channels, rate: rate, threads: 2, pieceSeconds: 2, feed: 777)
        #expect(one.bytes == two.bytes)
        #expect(one.splices == two.splices)
        // Splices before the clicks and after them, none among them.
        let inside = one.splices.filter { clicks.contains(Int($0)) }
        #expect(inside.isEmpty, "splices among the clicks: \(inside)")
        #expect(one.splices.contains { $0 < Int64(clicks.lowerBound) }, "\(one.splices)")
        #expect(one.splices.contains { $0 > Int64(clicks.upperBound) }, "\(one.splices)")
        let decoded = try decodeWithFFmpeg(one.bytes, channels: channels, in: dir, name: "clicks")
        #expect(decoded.count == frames * channels)
        // Within the codec's own noise of one encoder (two neighbouring qualities), clicks and all.
        let single = try decodeWithFFmpeg(try encodeSingle(input, channels: channels, rate: rate), channels: channels, in: dir, name: "single")
        let neighbour = try decodeWithFFmpeg(try encodeSingle(input, channels: channels, rate: rate, quality: 4.1), channels: channels,
                                             in: dir, name: "neighbour")
        let difference = rmsDifference(decoded[...], single[...]), noise = rmsDifference(single[...], neighbour[...])
        #expect(noise > 0 && difference <= noise, "pieced vs one encoder \(difference), codec noise \(noise)")
    }

    @Test("a stream shorter than two pieces is one piece: no splice", arguments: [0, 1, 4096, 44100])
    func shortStreams(frames: Int) throws {
        let input = sessionSignal(frames: frames, rate: 44100, channels: 2)
        let pieced = try encodePieced(input, channels: 2, rate: 44100, threads: 2, pieceSeconds: 1)
        #expect(pieced.splices.isEmpty)
        let dir = TemporaryDirectory("io-pieced")
        let path = dir.file("short.ogg")
        try Data(pieced.bytes).write(to: URL(fileURLWithPath: path))
        let reader = try SoundFileReader(path: path)
        #expect(reader.frameCount == Int64(frames))
    }

    /// Why the packet observer of `aFailingWatcherStopsTheStream` stops.
    struct WatcherStopped: Error {}

    @Test("a stream whose watcher fails stops with its error, and one abandoned part-way ends its pieces",
          .timeLimit(.minutes(2)), arguments: [1, 2, 4])
    func aFailingWatcherStopsTheStream(threads: Int) throws {
        let rate = 22050, channels = 2
        let input = sessionSignal(frames: 30 * rate, rate: rate, channels: channels, seed: 9)
        let reference = try encodePieced(input, channels: channels, rate: rate, threads: threads, pieceSeconds: 2)
        // The watcher throws at the 200th packet, a few pieces in: the write that gets there
        // throws the watcher's error, named.
        var seen = 0
        let sink = MemorySink()
        let failing = try PiecedVorbisEncoder(sink: sink, channels: channels, rate: rate, quality: 4, totalFrames: 30 * rate, threads: threads,
                                              pieceSeconds: 2)
        failing.packetObserver = { _ in
            seen += 1
            if seen == 200 { throw WatcherStopped() }
        }
        let thrown = #expect(throws: IOError.self) {
            try input.withUnsafeBufferPointer { (p) throws(IOError) in
                var at = 0
                while at < 30 * rate {
                    let n = min(1000, 30 * rate - at)
                    try failing.write(p.baseAddress! + at * channels, frameCount: n)
                    at += n
                }
            }
            try failing.finish()
        }
        #expect(thrown?.description.contains("WatcherStopped") == true, "\(String(describing: thrown))")
        #expect(seen == 200)
        // Abandoned before its end, in the middle of a piece (pieces of 45,056 frames here) and
        // while a splice is looked for:
        // its pieces stop and the encoder goes (its `deinit` waits for them), and the next stream
        // is whole.
        for frames in [3 * rate, 4 * rate - 5000] {
            let abandoned = try PiecedVorbisEncoder(sink: MemorySink(), channels: channels, rate: rate, quality: 4, totalFrames: 30 * rate,
                                                    threads: threads, pieceSeconds: 2)
            try input.withUnsafeBufferPointer { (p) throws(IOError) in try abandoned.write(p.baseAddress!, frameCount: frames) }
        }
        let again = try encodePieced(input, channels: channels, rate: rate, threads: threads, pieceSeconds: 2)
        #expect(again.bytes == reference.bytes)
    }
}

extension Float {
    /// The nearest multiple of `step`.
    fileprivate func rounded(toStep step: Float) -> Float { (self / step).rounded() * step }
}
