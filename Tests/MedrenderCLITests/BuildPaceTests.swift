@testable import MedrenderCLI
import Testing

/// The build's ETA goes by the pace of the last seconds, so that when the last render runs alone
/// (one core of two busy) the ETA does not reach 0:00 while half of its work is left.
@Suite struct BuildPaceTests {
    @Test func theEtaFollowsTheCoresStillBusy() throws {
        var pace = BuildPace()
        // Two renders side by side: 2 units a second for 10 s; then one alone: 1 a second.
        for t in 0...10 { pace.add(time: Double(t), done: 2 * Double(t)) }
        for t in 11...20 { pace.add(time: Double(t), done: 20 + Double(t - 10)) }
        // 30 done of 40 at 20 s: 10 s are left at one render's pace (the build's average, 1.5 a
        // second, would say 6.7 s).
        let left = try #require(pace.remainingSeconds(total: 40))
        #expect(abs(left - 10) < 0.01, "\(left)")
        // Nothing done for a while: no pace to go by, no ETA.
        var stalled = BuildPace()
        stalled.add(time: 0, done: 5)
        stalled.add(time: 5, done: 5)
        #expect(stalled.remainingSeconds(total: 10) == nil)
        #expect(BuildPace().remainingSeconds(total: 10) == nil)
    }
}
