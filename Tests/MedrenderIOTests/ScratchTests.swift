import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

@Test func scratchMargins() throws {
    let dir = TemporaryDirectory("scratch")
    try writeSoundFile(dir.file("f.wav"), format: .float32, channels: 2, rate: 48000, samples: [0.1, 0.2])
    print("SCRATCH chunks", riffChunkIDs(try fileBytes(dir.file("f.wav")))!)
    try writeSoundFile(dir.file("f24.wav"), format: .int24, channels: 2, rate: 48000, samples: [0.1, 0.2], tags: [(SoundFileTag.title, "x")])
    print("SCRATCH chunks", riffChunkIDs(try fileBytes(dir.file("f24.wav")))!)
    for (c, f) in [(SoundFileContainer.wav, SampleFormat.int16), (.flac, .int16), (.wav, .float32)] {
        let path = dir.file("cut.\(c.rawValue)")
        try writeSoundFile(path, container: c, format: f, channels: 2, rate: 48000, samples: sineWave(frames: 48001, rate: 48000, frequencies: [440, 550]))
        let bytes = try fileBytes(path)
        try writeBytes(Array(bytes[0..<(bytes.count / 2 | 1)]), to: path)
        do { let r = try SoundFileReader(path: path); print("SCRATCH trunc", c, r.frameCount, try r.readAll().frameCount) } catch { print("SCRATCH trunc", c, error) }
    }
    let o = dir.file("cut.ogg")
    try writeVorbisFile(o, channels: 2, rate: 44100, samples: sineWave(frames: 44100, rate: 44100, frequencies: [440, 550]))
    let ob = try fileBytes(o); try writeBytes(Array(ob[0..<(ob.count / 2 | 1)]), to: o)
    do { let r = try SoundFileReader(path: o); print("SCRATCH trunc ogg", r.frameCount, try r.readAll().frameCount) } catch { print("SCRATCH trunc ogg", error) }

    for (from, to, frequency) in [(44100, 48000, 1000.0), (48000, 44100, 1000.0), (48000, 22050, 2500.0), (8000, 96000, 440.0), (22050, 48000, 5000.0)] {
        let input = sineWave(frames: from, rate: from, frequencies: [frequency], amplitude: 0.5)
        let out = try Resampler.resample(AudioAsset(channels: 1, samples: input), from: from, to: to)
        let n = out.frameCount; let mid = (n/10)..<(n - n/10)
        let ideal = sineWave(frames: n, rate: to, frequencies: [frequency], amplitude: 0.5)
        let shifted = sineWave(frames: n, rate: to, frequencies: [frequency], amplitude: 0.5, phase: -2 * .pi * frequency / Double(to))
        print("SCRATCH resample", from, to, 1 - correlation(out.samples[mid], ideal[mid]), 1 - correlation(out.samples[mid], shifted[mid]), decibels(rms(out.samples[mid]) / (0.5 / 2.0.squareRoot())))
    }
    let input = sineWave(frames: 48000, rate: 48000, frequencies: [15000], amplitude: 0.5)
    let out = try Resampler.resample(AudioAsset(channels: 1, samples: input), from: 48000, to: 22050)
    print("SCRATCH alias", decibels(rms(out.samples[2205..<19845]) / (0.5 / 2.0.squareRoot())))
    for rate in [22050, 44100, 48000] {
        let input = sineWave(frames: 2 * rate, rate: rate, frequencies: [440, 1000], amplitude: 0.5)
        try writeVorbisFile(dir.file("v.ogg"), channels: 2, rate: rate, samples: input)
        let o = try SoundFileReader(path: dir.file("v.ogg")).readAll()
        for c in 0..<2 { let a = channel(input, c, of: 2), b = channel(o.samples, c, of: 2); print("SCRATCH vorbis", rate, c, 1 - correlation(a, b), rms(zip(a, b).map { $0 - $1 }) / rms(a), correlation(channel(input, 1-c, of: 2), b)) }
    }
    for ch in [1, 2] {
        let m = try LoudnessMeter(channels: ch, rate: 48000, withTruePeak: true, withRange: true)
        let s = sineWave(frames: 3 * 48000, rate: 48000, frequencies: Array(repeating: 997, count: ch), amplitude: 0.1)
        try s.withUnsafeBufferPointer { try m.add($0.baseAddress!, frameCount: 3 * 48000) }
        print("SCRATCH lufs", ch, try m.integratedLoudness(), try m.samplePeak(), try m.truePeak(), try m.loudnessRange())
    }
    let between = sineWave(frames: 48000, rate: 48000, frequencies: [12000], amplitude: 0.5, phase: .pi / 4)
    let m2 = try LoudnessMeter(channels: 1, rate: 48000, withTruePeak: true)
    try between.withUnsafeBufferPointer { try m2.add($0.baseAddress!, frameCount: 48000) }
    print("SCRATCH tp", try m2.samplePeak(), try m2.truePeak())
}
