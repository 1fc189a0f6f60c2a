import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// A sound's integrated loudness as it plays: in a stereo output, and folded into a mono one
/// (a stereo sound loses loudness in the fold, more the less its channels agree).
struct SoundLoudness: Sendable {
    var stereo: Double?
    var mono: Double?
    /// The loudest 400 ms (momentary loudness), LUFS, the same two ways.
    var loudestStereo: Double?
    var loudestMono: Double?

    func forOutput(channels: Int) -> Double? { channels == 1 ? mono : stereo }

    func loudestForOutput(channels: Int) -> Double? { channels == 1 ? loudestMono : loudestStereo }
}

/// Decodes a resolved sound and resamples it once to the output rate, through a cache shared by
/// the renders that use it.
enum SoundLoader {
    /// Loads `sounds` (in their order), two at a time when `parallel`: the largest files first,
    /// so the longest decode starts at once and the short ones share the other core. When some
    /// fail, the first of them in `sounds`' order gives the error, whichever failed first.
    /// The sounds `held` chooses (beds) are loaded in 16 bits. Each sound is handed to `keep` as
    /// soon as it is loaded, on the thread that loaded it: what
    /// `keep` makes of it is what is held until all are loaded (a sound played as it is, rounded
    /// to 16 bits at once, is half the memory while a long bed still decodes).
    static func load<Kept: Sendable>(_ sounds: [ResolvedSound], rate: Int, cache: SoundCache, parallel: Bool,
                                     held: @escaping @Sendable (ResolvedSound) -> Bool,
                                     keep: @escaping @Sendable (ResolvedSound, DecodedSound, SoundLoudness) -> Kept) throws -> [Kept] {
        let size = { (sound: ResolvedSound) -> Int64 in
            ((try? FileManager.default.attributesOfItem(atPath: sound.path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        let order = sounds.indices.map { ($0, size(sounds[$0])) }.sorted { $0.1 > $1.1 }.map(\.0)
        let results = Handoff<[Result<Kept, any Error>?]>(Array(repeating: nil, count: sounds.count))
        let lock = NSLock()
        let loadOne: @Sendable (Int) -> Void = { k in
            let i = order[k]
            let result = Result {
                let (asset, loudness) = try load(sounds[i], rate: rate, cache: cache, held: held(sounds[i]))
                return keep(sounds[i], asset, loudness)
            }
            lock.withLock { results.value[i] = result }
        }
        if parallel, sounds.count > 1 {
            DispatchQueue.concurrentPerform(iterations: sounds.count, execute: loadOne)
        } else {
            for k in sounds.indices { loadOne(k) }
        }
        return try results.value.map { try $0!.get() }
    }

    /// Loads a sound at `rate`: `held` (a bed) in 16 bits at `Int16.heldStep`, decoded (and
    /// resampled) straight into them a block at a time; otherwise in floats.
    static func load(_ sound: ResolvedSound, rate: Int, cache: SoundCache, held: Bool) throws -> (asset: DecodedSound, loudness: SoundLoudness) {
        let path = sound.path
        return try cache.sound(at: path, rate: rate, held: held) {
            let reader = try SoundFileReader(path: path)
            let empty = IOError(.badData, "holds no audio; the sound '\(sound.ref)' needs at least one frame", path: path)
            // Resampled, it must fit in memory too (a long sound at 192000 Hz is 4 times larger):
            // by the header's length here, and by the frames decoded as it is read.
            func refuseLarger(samples: Double, bytesPerSample: Int) throws {
                guard samples > Double(SoundFileReader.maximumSamples) else { return }
                let gib = samples * Double(bytesPerSample) / Double(1 << 30)
                let most = Double(SoundFileReader.maximumSamples * bytesPerSample) / Double(1 << 30)
                throw IOError(.badData, String(format: "would take %.1f GiB at %d Hz; medrender holds each sound in memory, up to %.0f GiB: render at a lower {rate} or use a shorter sound", gib, rate, most), path: path)
            }
            let channels = min(reader.channels, 2)
            if held {
                // Decoded, resampled when the file is at another rate, and rounded to 16 bits a
                // block at a time (a 31-s stereo bed is 5.5 MiB so, where its floats would be
                // 11 MiB, and as much again at another rate).
                // (A header that claims more than any sound may hold is refused by its length, as it is read.)
                if reader.rate != rate, reader.frameCount <= Int64(SoundFileReader.maximumSamples / channels) {
                    try refuseLarger(samples: Double(reader.frameCount * Int64(channels)) * Double(rate) / Double(reader.rate), bytesPerSample: 2)
                }
                var asset = try reader.readAllHeld(resampledTo: rate)
                guard asset.frameCount > 0 else { throw empty }
                // The offset comes out in place (one copy of a long bed at a time, not two).
                var samples = asset.samples
                asset = QuantizedAsset(channels: channels, held: [])
                AudioAsset.removeDCOffset(from: &samples, channels: channels)
                asset = QuantizedAsset(channels: channels, held: samples)
                return (.held(asset), loudness(of: asset.samples, channels: channels, rate: rate))
            }
            let copy = sound.keepsRates && reader.rate != rate ? Self.copyPath(path, rate: rate) : nil
            if let copy, let kept = Self.readCopy(copy, of: reader, channels: channels, rate: rate) {
                return (.floats(kept), loudness(of: kept.samples, channels: kept.channels, rate: rate))
            }
            var asset = try reader.readAll()
            guard asset.frameCount > 0 else { throw empty }
            try refuseLarger(samples: Double(asset.samples.count) * Double(rate) / Double(reader.rate), bytesPerSample: 4)
            // The offset comes out in place (one copy of a sound at a time, not two).
            var samples = asset.samples
            asset = AudioAsset(channels: channels, samples: [])
            AudioAsset.removeDCOffset(from: &samples, channels: channels)
            asset = try Resampler.resample(AudioAsset(channels: channels, samples: samples), from: reader.rate, to: rate)
            if let copy { Self.writeCopy(asset, to: copy, rate: rate) }
            return (.floats(asset), loudness(of: asset.samples, channels: asset.channels, rate: rate))
        }
    }

    /// Where a kept sound (a spoken line, `ResolvedSound.keepsRates`) resampled to `rate` is
    /// kept: under the line's folder, in one for the rate (`16000/<line>`), in 32-bit floats, the
    /// resampled samples exactly.
    static func copyPath(_ path: String, rate: Int) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent("\(rate)").appendingPathComponent(url.lastPathComponent).path
    }

    /// The copy at `copy` of what `reader` resamples to `rate`, when it is one: the rate, the
    /// channels and the length resampling gives; nil otherwise (none yet, or not whole).
    static func readCopy(_ copy: String, of reader: SoundFileReader, channels: Int, rate: Int) -> AudioAsset? {
        guard let kept = try? SoundFileReader(path: copy), kept.rate == rate, kept.channels == channels,
              kept.frameCount == Int64(Resampler.targetLength(frameCount: Int(reader.frameCount), from: reader.rate, to: rate)),
              let asset = try? kept.readAll(), asset.frameCount == Int(kept.frameCount) else { return nil }
        return asset
    }

    /// Keeps `asset` at `copy`, atomically; a cache that cannot be written is only resampled again
    /// next time.
    static func writeCopy(_ asset: AudioAsset, to copy: String, rate: Int) {
        var samples = asset.samples
        try? FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard let file = try? AtomicOutputFile(path: copy),
              let writer = try? SoundFileWriter(file: file, container: .wav, sampleFormat: .float32, channels: asset.channels, rate: rate)
        else { return }
        let written: Bool = samples.withUnsafeMutableBufferPointer { buffer in
            (try? writer.write(buffer.baseAddress!, frameCount: asset.frameCount)) != nil
        }
        guard written, (try? writer.finish()) != nil else { return }
        try? file.commit()
    }

    /// A sound's integrated loudness as it plays (mono as dual mono) and, for a stereo sound,
    /// folded into mono, by the BS.1770 gate pass 1 uses (it agrees with libebur128, several times
    /// faster): floats or 16-bit samples, read a block at a time, so a long bed is held once.
    static func loudness<Sample: SoundSample>(of samples: [Sample], channels: Int, rate: Int) -> SoundLoudness {
        let frameCount = samples.count / channels
        let meter = LoudnessGate(channels: channels, rate: rate)
        let foldedMeter = channels == 2 ? LoudnessGate(channels: 1, rate: rate) : nil
        let block = 4096
        var floats = [Float](repeating: 0, count: block * channels)
        var folded = [Float](repeating: 0, count: block)
        samples.withUnsafeBufferPointer { p in
            var at = 0
            while at < frameCount {
                let n = min(block, frameCount - at)
                for i in 0..<(n * channels) { floats[i] = p[at * channels + i].soundValue }
                floats.withUnsafeBufferPointer { meter.add($0.baseAddress!, frameCount: n) }
                if let foldedMeter {
                    for f in 0..<n { folded[f] = (floats[2 * f] + floats[2 * f + 1]) * 0.5 }
                    folded.withUnsafeBufferPointer { foldedMeter.add($0.baseAddress!, frameCount: n) }
                }
                at += n
            }
        }
        let stereo = meter.integratedLoudness, mono = foldedMeter?.integratedLoudness ?? stereo
        let loudest = meter.momentaryMaximum, loudestMono = foldedMeter?.momentaryMaximum ?? loudest
        let finite = { (x: Double) in x.isFinite ? x : nil }
        return SoundLoudness(stereo: finite(stereo), mono: finite(mono), loudestStereo: finite(loudest), loudestMono: finite(loudestMono))
    }
}
