import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// A sound's integrated loudness as it plays: in a stereo output, and folded into a mono one
/// (a stereo sound loses loudness in the fold, more the less its channels agree).
struct SoundLoudness: Sendable {
    var stereo: Double?
    var mono: Double?

    func forOutput(channels: Int) -> Double? { channels == 1 ? mono : stereo }
}

/// Decodes a resolved sound and resamples it once to the output rate, through a cache shared by
/// the renders that use it.
enum SoundLoader {
    static func load(_ sound: ResolvedSound, rate: Int, cache: SoundCache) throws -> (asset: AudioAsset, loudness: SoundLoudness) {
        let path = sound.path
        return try cache.sound(at: path, rate: rate) {
            let reader = try SoundFileReader(path: path)
            var asset = try reader.readAll()
            guard asset.frameCount > 0 else {
                throw IOError(.badData, "holds no audio; the sound '\(sound.ref)' needs at least one frame", path: path)
            }
            // Resampled, it must fit in memory too (a long sound at 192000 Hz is 4 times larger).
            let resampledSamples = Double(asset.samples.count) * Double(rate) / Double(reader.rate)
            guard resampledSamples <= Double(SoundFileReader.maximumSamples) else {
                let gib = resampledSamples * 4 / Double(1 << 30)
                throw IOError(.badData, String(format: "would take %.1f GiB at %d Hz; medrender holds each sound in memory, up to 2 GiB: render at a lower --rate or use a shorter sound", gib, rate), path: path)
            }
            asset = try Resampler.resample(asset.withoutDCOffset(), from: reader.rate, to: rate)
            let asPlayed = try loudness(of: asset, rate: rate)
            let folded = asset.channels == 2 ? try loudness(of: asset.foldedToMono(), rate: rate) : asPlayed
            return (asset, SoundLoudness(stereo: asPlayed, mono: folded))
        }
    }

    /// The integrated loudness of a sound, measured as it will play (mono as dual mono), by the
    /// BS.1770 gate pass 1 uses (it agrees with libebur128, several times faster).
    static func loudness(of asset: AudioAsset, rate: Int) throws(IOError) -> Double? {
        let meter = LoudnessGate(channels: asset.channels, rate: rate)
        asset.samples.withUnsafeBufferPointer { p in
            meter.add(p.baseAddress!, frameCount: asset.frameCount)
        }
        let value = meter.integratedLoudness
        return value.isFinite ? value : nil
    }
}
