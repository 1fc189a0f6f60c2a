import Foundation
import Medrender

/// A shard taken from a batch scheduler's environment (`--shard auto`): a Slurm array task, a
/// Kubernetes Indexed Job's pod or an AWS Batch array job's child, each told its index there.
///
/// Schedulers count from 0 (or, in Slurm, from the array's first index); shards count from 1, as
/// in `--shard K/N`. So the first task of a Slurm `--array=1-4`, of `--array=0-3`, the pod of
/// completion index 0 and the AWS Batch child of index 0 all build shard 1.
public struct LibraryBuildSchedulerShard: Hashable, Sendable, CustomStringConvertible {
    public enum Scheduler: String, Hashable, Sendable, CaseIterable {
        case slurm
        case kubernetes
        case awsBatch = "aws-batch"

        /// The variable that says a process is one task of this scheduler's array.
        public var indexVariable: String {
            switch self {
            case .slurm: "SLURM_ARRAY_TASK_ID"
            case .kubernetes: "JOB_COMPLETION_INDEX"
            case .awsBatch: "AWS_BATCH_JOB_ARRAY_INDEX"
            }
        }

        public var displayName: String {
            switch self {
            case .slurm: "Slurm"
            case .kubernetes: "Kubernetes"
            case .awsBatch: "AWS Batch"
            }
        }
    }

    public var shard: LibraryBuildShard
    public var scheduler: Scheduler
    /// The variables read, by name, as they were set.
    public var variables: [String: String]
    /// The `--shards N` given, when it was read.
    public var shards: Int?

    /// `shard 2/4 from Slurm (SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_MAX=3, SLURM_ARRAY_TASK_MIN=0)`.
    public var description: String {
        var read = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if let shards { read.append("\(shards) shards asked for") }
        return "shard \(shard) from \(scheduler.displayName) (\(read.joined(separator: ", ")))"
    }

    /// The shard that `environment` gives, with `shards` the `--shards N` option (the number of
    /// shards, needed where the scheduler does not say it: Kubernetes; a check elsewhere).
    /// Throws a usage error that says which variable is missing or wrong and how to fix it.
    public static func resolve(_ environment: [String: String], shards: Int? = nil) throws -> LibraryBuildSchedulerShard {
        if let shards, shards < 1 {
            throw usage("{shards} \(shards) is not a number of shards; give a whole number of 1 or more")
        }
        let present = Scheduler.allCases.filter { !(environment[$0.indexVariable] ?? "").isEmpty }
        guard let scheduler = present.first else {
            throw usage("no scheduler's task index is set (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX); "
                        + "run it as a Slurm array task, a Kubernetes Indexed Job or an AWS Batch array job, or give {shard} K/N")
        }
        guard present.count == 1 else {
            throw usage("\(present.map(\.indexVariable).joined(separator: " and ")) are both set, so the scheduler is unclear; "
                        + "unset all but one, or give {shard} K/N")
        }
        var reader = EnvironmentReader(environment: environment, shards: shards)
        let index0: Int, count: Int
        switch scheduler {
        case .slurm: (index0, count) = try reader.slurmTask()
        case .kubernetes: (index0, count) = try reader.kubernetesPod()
        case .awsBatch: (index0, count) = try reader.awsBatchChild()
        }
        return LibraryBuildSchedulerShard(shard: LibraryBuildShard(index: index0 + 1, count: count)!, scheduler: scheduler,
                                          variables: reader.read, shards: shards)
    }

    /// A usage error of `--shard auto` that says `message`.
    static func usage(_ message: String) -> RenderError { RenderError("{shard} auto: " + message, category: .usage) }

    /// A scheduler's variables, read as they are needed and kept, as they were set, to be shown.
    struct EnvironmentReader {
        let environment: [String: String]
        /// The `--shards N` given, if any.
        let shards: Int?
        /// The variables read, by name, as they were set.
        private(set) var read: [String: String] = [:]

        init(environment: [String: String], shards: Int?) {
            self.environment = environment
            self.shards = shards
        }

        /// A whole number from `name`, or nil when it is not set; an error when it is not a number.
        mutating func number(_ name: String, minimum: Int) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            read[name] = text
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw usage("\(name)=\(text) is not a whole number; it is the scheduler's to set, so unset it or give {shard} K/N")
            }
            guard value >= minimum else {
                throw usage("\(name)=\(text) is below \(minimum); it is the scheduler's to set, so unset it or give {shard} K/N")
            }
            return value
        }

        /// The count the scheduler gives, checked against `--shards` when both are there.
        func agreeing(_ count: Int, _ name: String, _ fix: String) throws -> Int {
            if let shards, shards != count {
                throw usage("{shards} \(shards) but \(name) gives \(count) tasks; leave out {shards} or \(fix)")
            }
            return count
        }

        /// A Slurm array task's index from the array's first (`SLURM_ARRAY_TASK_MIN`), and the
        /// array's length, which must have no gaps.
        mutating func slurmTask() throws -> (index0: Int, count: Int) {
            let id = try number("SLURM_ARRAY_TASK_ID", minimum: 0)!
            guard let min = try number("SLURM_ARRAY_TASK_MIN", minimum: 0) else {
                throw usage("SLURM_ARRAY_TASK_ID=\(id) is set but not SLURM_ARRAY_TASK_MIN (Slurm sets both for an array task); "
                            + "submit with sbatch --array, or give {shard} K/N")
            }
            let max = try number("SLURM_ARRAY_TASK_MAX", minimum: 0)
            let taskCount = try number("SLURM_ARRAY_TASK_COUNT", minimum: 1)
            if let max, max < min {
                throw usage("SLURM_ARRAY_TASK_MAX=\(max) is below SLURM_ARRAY_TASK_MIN=\(min); submit a range such as --array=0-3, or give {shard} K/N")
            }
            if let max, let taskCount, taskCount != max - min + 1 {
                throw usage("SLURM_ARRAY_TASK_COUNT=\(taskCount) but \(min)-\(max) spans \(max - min + 1) indices: the array has a step or "
                            + "is a list; submit a range without gaps, such as --array=0-\(taskCount - 1)")
            }
            guard let n = taskCount ?? max.map({ $0 - min + 1 }) else {
                throw usage("SLURM_ARRAY_TASK_ID=\(id) is set but neither SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT "
                            + "(Slurm sets them for an array task); submit with sbatch --array, or give {shard} K/N")
            }
            guard id >= min, id - min < n else {
                throw usage("SLURM_ARRAY_TASK_ID=\(id) is outside the array \(min)-\(min + n - 1); submit a range without gaps, "
                            + "such as --array=0-\(n - 1), or give {shard} K/N")
            }
            return (id - min, try agreeing(n, taskCount != nil ? "SLURM_ARRAY_TASK_COUNT" : "SLURM_ARRAY_TASK_MIN/MAX",
                                           "submit --array=0-\(shards.map { $0 - 1 } ?? 0)"))
        }

        /// Checks that `index`, read from `variable`, is one of the `count` indices of `what` (from
        /// 0); else a usage error that says so and how to `fix` it.
        func check(_ index: Int, of variable: String, isWithin count: Int, _ what: String, else fix: String) throws {
            guard index < count else {
                throw usage("\(variable)=\(index) is outside \(what) (indices 0 to \(count - 1)); \(fix)")
            }
        }

        /// A Kubernetes Indexed Job's pod: its completion index, and `--shards` (which Kubernetes
        /// does not say) as the count.
        mutating func kubernetesPod() throws -> (index0: Int, count: Int) {
            let index = try number("JOB_COMPLETION_INDEX", minimum: 0)!
            guard let shards else {
                throw usage("JOB_COMPLETION_INDEX=\(index) is set but Kubernetes does not say how many pods there are; "
                            + "give {shards} N with N the Job's completions")
            }
            try check(index, of: "JOB_COMPLETION_INDEX", isWithin: shards, "{shards} \(shards)", else: "give {shards} equal to the Job's completions")
            return (index, shards)
        }

        /// An AWS Batch array job's child: its index, and the array's size (or `--shards`).
        mutating func awsBatchChild() throws -> (index0: Int, count: Int) {
            let index = try number("AWS_BATCH_JOB_ARRAY_INDEX", minimum: 0)!
            let size = try number("AWS_BATCH_JOB_ARRAY_SIZE", minimum: 1)
            guard let n = try size.map({ try agreeing($0, "AWS_BATCH_JOB_ARRAY_SIZE", "submit an array of that size") })
                ?? shards
            else {
                throw usage("AWS_BATCH_JOB_ARRAY_INDEX=\(index) is set but not AWS_BATCH_JOB_ARRAY_SIZE (AWS Batch sets both for "
                            + "an array child); give {shards} N with N the array's size")
            }
            try check(index, of: "AWS_BATCH_JOB_ARRAY_INDEX", isWithin: n, "an array of \(n)",
                      else: "give {shards} equal to the job's arrayProperties size")
            return (index, n)
        }
    }
}
