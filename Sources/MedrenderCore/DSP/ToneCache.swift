import Synchronization

/// Synthesized tones, each made once a process: a cue's tone is weighed when its level is set
/// (`CuePlan.loudestLUFS`) and rounded to 16 bits when the mix's assets are baked, and a build's
/// renders share their cues' timbres, pitches and lengths. A render's assets share the 16-bit
/// samples it holds, so a render holds no tone twice; it keeps them after the render, up to
/// `maximumSamples` in all, and past that starts again empty (a tone longer than that alone is
/// made and not kept).
public final class ToneCache: Sendable {
    /// A tone, rounded as it plays, and its loudest 400 ms as a mono cue (nil when silent).
    public struct Entry: Sendable {
        public let quantized: QuantizedAsset
        public let loudestLUFS: Double?
    }

    /// The one every render of this process uses.
    public static let shared = ToneCache(maximumSamples: 4 << 20)

    /// The most 16-bit samples it holds (8 MiB for the shared one).
    public let maximumSamples: Int
    private let entries = Mutex<(tones: [MixAssets.ToneKey: Entry], samples: Int)>(([:], 0))

    public init(maximumSamples: Int) { self.maximumSamples = maximumSamples }

    /// The 16-bit samples it holds now.
    public var heldSamples: Int { entries.withLock { $0.samples } }

    /// The tone of `key`, made now if it is not held (outside the lock: two renders asking for a
    /// new tone at once both make it, and get the same).
    public func entry(_ key: MixAssets.ToneKey) -> Entry {
        if let held = entries.withLock({ $0.tones[key] }) { return held }
        let tone = ToneSynth.tone(timbre: key.timbre, pitchHertz: key.pitchHertz, frameCount: key.frameCount, rate: key.rate)
        let made = Entry(quantized: QuantizedAsset(quantizing: tone), loudestLUFS: Self.loudest(tone, rate: key.rate))
        let count = made.quantized.samples.count
        guard count <= maximumSamples else { return made }
        entries.withLock { held in
            if held.samples + count > maximumSamples { held = ([:], 0) }
            if held.tones.updateValue(made, forKey: key) == nil { held.samples += count }
        }
        return made
    }

    /// The loudest 400 ms of a mono `tone` at unit gain: at least one whole block, silence after a
    /// shorter tone, as a meter hears it; nil when it is silent.
    static func loudest(_ tone: AudioAsset, rate: Int) -> Double? {
        var samples = tone.samples
        samples += [Float](repeating: 0, count: max(0, rate * 2 / 5 - samples.count))
        let gate = LoudnessGate(channels: 1, rate: rate)
        samples.withUnsafeBufferPointer { gate.add($0.baseAddress!, frameCount: $0.count) }
        let loudest = gate.momentaryMaximum
        return loudest.isFinite ? loudest : nil
    }
}
