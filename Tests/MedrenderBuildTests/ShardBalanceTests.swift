import Foundation
import MedrenderBuild
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// Shards split a build by its work, not by its file names' hashes.
@Suite struct ShardBalanceTests {
    static let library = PresetLibrary(root: PackagePaths.root)

    /// On the stock library, the busiest of 4 or 8 shards has at most 1.25 times the mean's
    /// seconds of audio, and every output is in exactly one shard.
    @Test(arguments: [4, 8])
    func theStockLibrarySplitsEvenlyByWork(shards: Int) throws {
        let dir = TemporaryDirectory("shards")
        var settings = LibraryBuildSettings(presetFiles: Self.library.presetFiles(), outputDirectory: dir.path, library: Self.library)
        let all = LibraryBuild.plan(settings).jobs
        #expect(all.count == Self.library.presetFiles().count)
        var seen: [String] = []
        var seconds: [Double] = []
        for index in 1...shards {
            settings.shard = LibraryBuildShard(index: index, count: shards)
            let jobs = LibraryBuild.plan(settings).jobs
            seen += jobs.map(\.outputName)
            seconds.append(jobs.reduce(0) { $0 + Double($1.totalFrames) / Double($1.options.rate) })
        }
        #expect(seen.sorted() == all.map(\.outputName).sorted())
        let mean = seconds.reduce(0, +) / Double(shards)
        #expect(seconds.max()! <= 1.25 * mean, "\(seconds.map { Int($0) }) for a mean of \(Int(mean)) s")
    }

    /// The split is a function of the outputs alone: the same whatever order they come in.
    @Test func theSplitIsTheSameFromTheSameOutputs() {
        let outputs = (1...23).map { (name: "p\($0)-\($0 % 7 + 1)min.ogg", cost: Double(($0 % 7 + 1) * 60)) }
        let a = LibraryBuild.shardAssignment(outputs, count: 4)
        let b = LibraryBuild.shardAssignment(outputs.reversed(), count: 4)
        #expect(a == b)
        #expect(Set(a.values) == [1, 2, 3, 4])
        #expect(a.count == 23)
    }
}
