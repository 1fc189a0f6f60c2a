import MedrenderBuild

/// A build's summary as `build --json` prints it: the library's summary, with each failure's and
/// the build's exit code beside its category, for scripts that act on exit codes.
struct BuildSummaryJSON: Encodable {
    struct Failure: Encodable {
        var preset: String
        var output: String?
        var error: String
        var category: String
        var exitCode: Int32
    }
    var rendered: [String]
    var skipped: [String]
    var failed: [Failure]
    var warnings: [String]
    var seconds: Double
    var manifest: String
    var exitCode: Int32
    /// The shard built, when one was: `K/N`, and where it came from with `--shard auto`.
    var shard: Shard?

    struct Shard: Encodable {
        var shard: String
        var index: Int
        var count: Int
        /// slurm, kubernetes or aws-batch; absent for `--shard K/N`.
        var scheduler: String?
        /// The environment variables read, as set.
        var variables: [String: String]?
    }

    init(_ summary: LibraryBuildSummary, shard: LibraryBuildShard? = nil, scheduled: LibraryBuildSchedulerShard? = nil) {
        self.shard = shard.map {
            Shard(shard: $0.description, index: $0.index, count: $0.count, scheduler: scheduled?.scheduler.rawValue,
                  variables: scheduled?.variables)
        }
        rendered = summary.rendered
        skipped = summary.skipped
        failed = summary.failed.map {
            Failure(preset: $0.preset, output: $0.output, error: $0.error, category: $0.category.rawValue,
                    exitCode: SysExit($0.category).rawValue)
        }
        warnings = summary.warnings
        seconds = summary.seconds
        manifest = summary.manifest
        exitCode = summary.category.map { SysExit($0).rawValue } ?? 0
    }
}
