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

    init(_ summary: LibraryBuildSummary) {
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
