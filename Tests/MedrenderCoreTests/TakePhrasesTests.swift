import Foundation
import MedrenderCore
import MedrenderTestSupport
import Testing

/// A one-take recording found as its phrases: within 10 ms of each phrase's sound, whatever the
/// take's own level, with the pauses inside a phrase kept in it.
@Suite struct TakePhrasesTests {
    static let rate = 44100
    /// Four phrases of 1 to 4 syllables (150 ms between syllables), 1 to 2.5 s apart.
    static let phrases: [(start: Double, syllables: Int)] = [(0.8, 3), (3.9, 1), (5.6, 4), (9.75, 2)]

    @Test(arguments: [0.0, -20.0])
    func eachPhraseIsFoundWithinTenMillisecondsAtAnyLevel(gainDecibels: Double) throws {
        let take = syntheticTake(rate: Self.rate, seconds: 12, phrases: Self.phrases)
        let gain = Float(pow(10, gainDecibels / 20))
        let asset = AudioAsset(channels: 1, samples: take.asset.samples.map { $0 * gain })
        let found = try TakePhrases(asset, rate: Self.rate).phrases
        #expect(found.count == Self.phrases.count, "\(found)")
        let tolerance = Self.rate / 100
        for (phrase, frames) in zip(found, take.frames) {
            #expect(abs(phrase.startFrame - frames.lowerBound) <= tolerance, "\(phrase) against \(frames)")
            #expect(abs(phrase.endFrame - frames.upperBound) <= tolerance, "\(phrase) against \(frames)")
        }
    }

    @Test func aShorterGapSplitsAPhraseAtItsPausesAndCutsSplitWhereTheyAreGiven() throws {
        let take = syntheticTake(rate: Self.rate, seconds: 12, phrases: Self.phrases)
        var settings = TakePhrases.Settings()
        settings.gap = SessionTime(milliseconds: 100)
        // Every syllable its own phrase: 3 + 1 + 4 + 2.
        #expect(try TakePhrases(take.asset, rate: Self.rate, settings: settings).phrases.count == 10)
        let parts = try TakePhrases.split(take.asset, rate: Self.rate, at: [SessionTime(seconds: 3)!, SessionTime(seconds: 8)!])
        #expect(parts.count == 3)
        #expect(abs(parts[0].startFrame - take.frames[0].lowerBound) <= Self.rate / 100)
        #expect(abs(parts[1].startFrame - take.frames[1].lowerBound) <= Self.rate / 100)
        #expect(abs(parts[1].endFrame - take.frames[2].upperBound) <= Self.rate / 100, "the second part runs over two phrases")
    }

    @Test func aSilentOrTooQuietTakeIsSaidSo() {
        #expect(throws: TakePhrases.Problem.silent) { try TakePhrases(AudioAsset(channels: 1, samples: [Float](repeating: 0, count: 44100)), rate: 44100) }
        let quiet = syntheticTake(rate: Self.rate, seconds: 4, phrases: [(1, 2)])
        let asset = AudioAsset(channels: 1, samples: quiet.asset.samples.map { $0 * 0.001 })
        #expect { try TakePhrases(asset, rate: Self.rate) } throws: { error in
            if case .tooQuiet(let loudest)? = error as? TakePhrases.Problem { loudest < TakePhrases.quietest } else { false }
        }
    }
}
