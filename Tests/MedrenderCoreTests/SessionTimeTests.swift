import MedrenderCore
import Testing

@Suite struct SessionTimeTests {
    @Test(arguments: [
        (0.0, 0 as Int64), (5.5, 5500), (0.1, 100), (0.0005, 1), (-0.0005, -1), (4.7, 4700), (0.3, 300),
        (6.3, 6300), (1.1, 1100), (86400, 86_400_000),
    ])
    func secondsBecomeExactMilliseconds(seconds: Double, milliseconds: Int64) {
        #expect(SessionTime(seconds: seconds)?.milliseconds == milliseconds)
    }

    @Test func nonFiniteSecondsAreRejected() {
        #expect(SessionTime(seconds: .nan) == nil)
        #expect(SessionTime(seconds: .infinity) == nil)
        #expect(SessionTime(minutes: -.infinity) == nil)
        #expect(SessionTime(minutes: 1e300) == nil)
    }

    @Test(arguments: [8000, 22050, 44100, 48000, 96000, 192_000])
    func frameIsRoundedProductOfExactTime(rate: Int) {
        // Compare with an independent computation in exact decimal arithmetic via Double on values
        // where Double is exact (ms × rate < 2^53), ties rounding up.
        for ms: Int64 in [0, 1, 7, 10, 999, 5500, 15 * 60_000, 3 * 3_600_000, 86_400_000] {
            let exactTwice = ms * Int64(rate) * 2  // 2000 × (t × rate), an integer
            let expected = (exactTwice + 1000) / 2000
            let viaDouble = Int64((Double(ms) * Double(rate) / 1000).rounded(.toNearestOrAwayFromZero))
            #expect(SessionTime(milliseconds: ms).frame(atRate: rate) == expected)
            #expect(expected == viaDouble)
        }
    }

    @Test func tiesRoundUp() {
        // 10 ms at 22050 Hz is 220.5 frames.
        #expect(SessionTime(milliseconds: 10).frame(atRate: 22050) == 221)
        // 30 ms at 22050 Hz is 661.5 frames.
        #expect(SessionTime(milliseconds: 30).frame(atRate: 22050) == 662)
    }

    @Test func fifteenMinutesAt48kIsExactly43_200_000Frames() {
        #expect(SessionTime(minutes: 15)!.frame(atRate: 48000) == 43_200_000)
    }

    @Test func printsAsPeopleWriteIt() {
        #expect(SessionTime(milliseconds: 5500).description == "5.5")
        #expect(SessionTime(milliseconds: 4000).description == "4")
        #expect(SessionTime(milliseconds: 125).description == "0.125")
        #expect(SessionTime(milliseconds: 3_723_045).clockString == "01:02:03.045")
    }
}
