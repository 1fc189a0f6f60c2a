import Foundation
@testable import MedrenderCore
import Testing

/// A tone from the cache is the tone synthesized and rounded afresh, weighed as a cue's level is,
/// and the cache never holds more samples than its bound.
@Suite struct ToneCacheTests {
    @Test(arguments: CueTimbre.allCases)
    func anEntryIsTheToneMadeAfresh(_ timbre: CueTimbre) {
        let cache = ToneCache(maximumSamples: 1 << 20)
        for (frames, rate) in [(48_000, 48_000), (2_205, 22_050), (9_600, 8_000)] {
            let key = MixAssets.ToneKey(timbre: timbre, pitchHertz: 392, frameCount: frames, rate: rate)
            let tone = ToneSynth.tone(timbre: timbre, pitchHertz: 392, frameCount: frames, rate: rate)
            let fresh = QuantizedAsset(quantizing: tone)
            for _ in 0..<2 {
                let entry = cache.entry(key)
                #expect(entry.quantized.samples == fresh.samples, "\(timbre) \(frames) at \(rate)")
                #expect(entry.quantized.scale == fresh.scale)
                #expect(entry.loudestLUFS == ToneCache.loudest(tone, rate: rate))
            }
        }
    }

    /// A short tone is weighed over a whole 400-ms block, silence after it: quieter than the same
    /// tone's first 400 ms of a longer one; a silent (empty) tone has no loudest level.
    @Test func aShortToneIsWeighedOverAWholeBlock() throws {
        let cache = ToneCache(maximumSamples: 1 << 20)
        let short = try #require(cache.entry(.init(timbre: .pure, pitchHertz: 440, frameCount: 2_400, rate: 48_000)).loudestLUFS)
        let long = try #require(cache.entry(.init(timbre: .pure, pitchHertz: 440, frameCount: 48_000, rate: 48_000)).loudestLUFS)
        #expect(short < long - 3)
        #expect(cache.entry(.init(timbre: .pure, pitchHertz: 440, frameCount: 0, rate: 48_000)).loudestLUFS == nil)
    }

    /// Past its bound the cache starts again: an entry made then is still the tone made afresh.
    @Test func itStaysWithinItsBound() {
        let cache = ToneCache(maximumSamples: 100_000)
        for pitch in stride(from: 200.0, to: 1_000, by: 100) {
            let entry = cache.entry(.init(timbre: .bell, pitchHertz: pitch, frameCount: 30_000, rate: 48_000))
            #expect(entry.quantized.samples.count == 30_000)
            #expect(cache.heldSamples <= 100_000)
        }
        // A tone longer than the bound alone is made, and not kept.
        let long = cache.entry(.init(timbre: .pure, pitchHertz: 440, frameCount: 150_000, rate: 48_000))
        #expect(long.quantized.samples.count == 150_000)
        #expect(cache.heldSamples <= 100_000)
    }
}
