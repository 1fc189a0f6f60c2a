import Foundation

/// What a build would do, without rendering: every output of the build, whether it is up to date,
/// and the shard that renders it.
public struct LibraryBuildDryRun: Sendable {
    public struct Output: Sendable, Hashable {
        public var name: String
        public var preset: String
        /// Seconds of audio: the work the shards are balanced by.
        public var seconds: Double
        /// Whether a manifest in the folder already lists it with the same inputs.
        public var upToDate: Bool
        /// The shard (1-based) that renders it, of `shards`.
        public var shard: Int
    }

    public var outputs: [Output]
    public var shards: Int
    public var failures: [LibraryBuildFailure]

    /// Plans `settings` as a build would, all shards at once (`settings.shard` gives their number).
    public init(_ settings: LibraryBuildSettings) {
        var all = settings
        all.shard = nil
        let (jobs, failures) = LibraryBuild.plan(all)
        shards = settings.shard?.count ?? 1
        let owner = LibraryBuild.shardAssignment(jobs.map { ($0.outputName, $0.estimatedCost) }, count: shards)
        let folder = settings.outputDirectory
        let known = LibraryBuild.knownEntries(in: folder, ownManifest: settings.manifestPath)
        outputs = jobs.map { job in
            let upToDate = known[job.outputName]?.contains {
                $0.inputsHash == job.inputsHash && $0.cueSheets == job.cueSheetNames
                    && LibraryBuild.entryHolds($0, in: folder, verify: settings.verify)
            } ?? false
            return Output(name: job.outputName, preset: job.preset, seconds: job.estimatedCost, upToDate: upToDate,
                          shard: owner[job.outputName] ?? 1)
        }
        self.failures = failures
    }

    /// Each shard's seconds of audio to render (up-to-date outputs included: a fresh folder renders them all).
    public var shareSeconds: [Double] {
        var share = [Double](repeating: 0, count: shards)
        for output in outputs { share[output.shard - 1] += output.seconds }
        return share
    }
}
