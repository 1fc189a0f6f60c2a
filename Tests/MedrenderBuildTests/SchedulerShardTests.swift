import Medrender
import MedrenderBuild
import Testing

/// `--shard auto`: the shard each scheduler's environment gives, 1-based as `--shard K/N`, and a
/// usage error naming the variable for each way the environment can be missing or wrong.
@Suite struct SchedulerShardTests {
    typealias Resolved = LibraryBuildSchedulerShard

    static func shard(_ environment: [String: String], shards: Int? = nil) throws -> String {
        try Resolved.resolve(environment, shards: shards).shard.description
    }

    /// The usage error's message (and that it is a usage error).
    static func error(_ environment: [String: String], shards: Int? = nil) -> String {
        do {
            let resolved = try Resolved.resolve(environment, shards: shards)
            return "no error: \(resolved)"
        } catch let error as RenderError {
            #expect(error.category == .usage)
            #expect(error.description.hasPrefix("--shard auto: "))
            #expect(!error.description.contains("\n"))
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    static func slurm(_ id: Int, _ min: Int, _ max: Int, count: Int? = nil) -> [String: String] {
        var env = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_MAX": "\(max)",
                   "SLURM_ARRAY_JOB_ID": "77", "SLURM_JOB_ID": "78", "HOME": "/root"]
        if let count { env["SLURM_ARRAY_TASK_COUNT"] = "\(count)" }
        return env
    }

    @Test func slurmArraysFromZeroAndFromOneGiveTheSameShards() throws {
        // --array=0-3 and --array=1-4: the first task is shard 1 of 4, the last shard 4 of 4.
        for first in [0, 1, 10] {
            let shards = try (first...(first + 3)).map { try Self.shard(Self.slurm($0, first, first + 3, count: 4)) }
            #expect(shards == ["1/4", "2/4", "3/4", "4/4"])
            // Without SLURM_ARRAY_TASK_COUNT (older Slurm), MIN and MAX say the same.
            #expect(try Self.shard(Self.slurm(first + 2, first, first + 3)) == "3/4")
        }
        // Only COUNT with MIN.
        #expect(try Self.shard(["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_COUNT": "2"]) == "2/2")
        // One task is the whole build.
        #expect(try Self.shard(Self.slurm(0, 0, 0, count: 1)) == "1/1")
        // --shards that agrees is accepted.
        #expect(try Self.shard(Self.slurm(1, 0, 3, count: 4), shards: 4) == "2/4")

        let resolved = try Resolved.resolve(Self.slurm(1, 0, 3, count: 4))
        #expect(resolved.scheduler == .slurm)
        #expect(resolved.variables == ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
                                       "SLURM_ARRAY_TASK_COUNT": "4"])
        #expect(resolved.description
            == "shard 2/4 from Slurm (SLURM_ARRAY_TASK_COUNT=4, SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_MAX=3, SLURM_ARRAY_TASK_MIN=0)")
    }

    @Test func slurmErrors() {
        // A stepped array (--array=0-6:2) or a list (--array=0,3): indices have gaps.
        #expect(Self.error(Self.slurm(2, 0, 6, count: 4)).contains("SLURM_ARRAY_TASK_COUNT=4 but 0-6 spans 7 indices"))
        #expect(Self.error(Self.slurm(2, 0, 6, count: 4)).contains("--array=0-3"))
        // Outside the array.
        #expect(Self.error(Self.slurm(5, 0, 3)).contains("SLURM_ARRAY_TASK_ID=5 is outside the array 0-3"))
        #expect(Self.error(Self.slurm(0, 1, 4)).contains("SLURM_ARRAY_TASK_ID=0 is outside the array 1-4"))
        // Missing MIN; missing both MAX and COUNT.
        #expect(Self.error(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MAX": "3"]).contains("not SLURM_ARRAY_TASK_MIN"))
        #expect(Self.error(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0"])
            .contains("neither SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT"))
        // Not numbers, negative, MAX below MIN.
        #expect(Self.error(["SLURM_ARRAY_TASK_ID": "one", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"])
            .contains("SLURM_ARRAY_TASK_ID=one is not a whole number"))
        #expect(Self.error(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "-1", "SLURM_ARRAY_TASK_MAX": "3"])
            .contains("SLURM_ARRAY_TASK_MIN=-1 is below 0"))
        #expect(Self.error(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_MAX": "1"])
            .contains("SLURM_ARRAY_TASK_MAX=1 is below SLURM_ARRAY_TASK_MIN=3"))
        #expect(Self.error(Self.slurm(1, 0, 3, count: 0)).contains("SLURM_ARRAY_TASK_COUNT=0 is below 1"))
        // --shards that disagrees with the array.
        #expect(Self.error(Self.slurm(1, 0, 3, count: 4), shards: 3).contains("--shards 3 but SLURM_ARRAY_TASK_COUNT gives 4 tasks"))
        #expect(Self.error(Self.slurm(1, 0, 3), shards: 2).contains("--shards 2 but SLURM_ARRAY_TASK_MIN/MAX gives 4 tasks"))
    }

    @Test func kubernetesIndexedJobWithShards() throws {
        #expect(try (0..<3).map { try Self.shard(["JOB_COMPLETION_INDEX": "\($0)"], shards: 3) } == ["1/3", "2/3", "3/3"])
        let resolved = try Resolved.resolve(["JOB_COMPLETION_INDEX": "1", "KUBERNETES_SERVICE_HOST": "10.0.0.1"], shards: 4)
        #expect(resolved.scheduler == .kubernetes)
        #expect(resolved.variables == ["JOB_COMPLETION_INDEX": "1"])
        #expect(resolved.description == "shard 2/4 from Kubernetes (JOB_COMPLETION_INDEX=1, 4 shards asked for)")

        #expect(Self.error(["JOB_COMPLETION_INDEX": "1"]).contains("give --shards N with N the Job's completions"))
        #expect(Self.error(["JOB_COMPLETION_INDEX": "4"], shards: 4).contains("JOB_COMPLETION_INDEX=4 is outside --shards 4 (indices 0 to 3)"))
        #expect(Self.error(["JOB_COMPLETION_INDEX": "x"], shards: 4).contains("JOB_COMPLETION_INDEX=x is not a whole number"))
        #expect(Self.error(["JOB_COMPLETION_INDEX": "0"], shards: 0).contains("--shards 0 is not a number of shards"))
    }

    @Test func awsBatchArrayWithSizeOrShards() throws {
        #expect(try (0..<2).map { try Self.shard(["AWS_BATCH_JOB_ARRAY_INDEX": "\($0)", "AWS_BATCH_JOB_ARRAY_SIZE": "2"]) } == ["1/2", "2/2"])
        #expect(try Self.shard(["AWS_BATCH_JOB_ARRAY_INDEX": "4"], shards: 5) == "5/5")
        #expect(try Self.shard(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "3"], shards: 3) == "1/3")
        #expect(try Resolved.resolve(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "3"]).scheduler == .awsBatch)

        #expect(Self.error(["AWS_BATCH_JOB_ARRAY_INDEX": "0"]).contains("not AWS_BATCH_JOB_ARRAY_SIZE"))
        #expect(Self.error(["AWS_BATCH_JOB_ARRAY_INDEX": "2"], shards: 2).contains("AWS_BATCH_JOB_ARRAY_INDEX=2 is outside an array of 2"))
        #expect(Self.error(["AWS_BATCH_JOB_ARRAY_INDEX": "3", "AWS_BATCH_JOB_ARRAY_SIZE": "3"])
            .contains("AWS_BATCH_JOB_ARRAY_INDEX=3 is outside an array of 3"))
        #expect(Self.error(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "3"], shards: 2)
            .contains("--shards 2 but AWS_BATCH_JOB_ARRAY_SIZE gives 3 tasks"))
        #expect(Self.error(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "zero"])
            .contains("AWS_BATCH_JOB_ARRAY_SIZE=zero is not a whole number"))
    }

    @Test func noSchedulerOrMoreThanOne() {
        let none = Self.error(["HOME": "/root", "SLURM_JOB_ID": "7", "SLURM_ARRAY_TASK_ID": ""])
        #expect(none.contains("no scheduler's task index is set"))
        #expect(none.contains("SLURM_ARRAY_TASK_ID") && none.contains("JOB_COMPLETION_INDEX") && none.contains("AWS_BATCH_JOB_ARRAY_INDEX"))
        #expect(none.contains("give --shard K/N"))
        let both = Self.error(["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "1",
                               "JOB_COMPLETION_INDEX": "0"], shards: 2)
        #expect(both.contains("SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are both set"))
    }
}
