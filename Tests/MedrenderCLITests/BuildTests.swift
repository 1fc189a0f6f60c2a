import Foundation
import Medrender
import MedrenderBuild
import MedrenderTestSupport
import Testing

/// `medrender build`: the library, incrementally, in shards, merged; and the SHA-256 it uses.
@Suite struct BuildTests {
    /// Small, fast presets: 1.2 minutes holds settle 20 s + closing 30 s + a 16-s box-breath cycle.
    static let presets = ["box-breath", "coherent", "calming"]
    static let fast = ["--minutes", "1.2", "--rate", "8000"]

    /// A folder with copies of `presets` in `presets/`, and `out/` as the output folder's path.
    static func library(_ dir: TemporaryDirectory, _ names: [String] = presets) throws -> (presets: String, out: String) {
        let folder = dir.file("presets")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(atPath: "\(PackagePaths.root)/Presets/\(name).yaml", toPath: "\(folder)/\(name).yaml")
        }
        return (folder, dir.file("out"))
    }

    struct Build {
        var status: Int32
        var stderr: String
        var rendered: [String]
        var skipped: [String]
        var failed: [[String: Any]]
        var warnings: [String]?
        var seconds: Double
    }

    static func build(_ arguments: [String]) throws -> Build {
        let result = try runMedrender(["build", "--json"] + arguments)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let summary = try #require(object, "no JSON summary: \(result.stderr)")
        return Build(status: result.status, stderr: result.stderr, rendered: summary["rendered"] as? [String] ?? [],
                     skipped: summary["skipped"] as? [String] ?? [], failed: summary["failed"] as? [[String: Any]] ?? [],
                     warnings: summary["warnings"] as? [String],
                     seconds: (summary["seconds"] as? NSNumber)?.doubleValue ?? -1)
    }

    static func manifest(_ path: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["outputs"] as? [[String: Any]])
    }

    static func modified(_ path: String) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    static func hiddenFiles(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".") }
    }

    @Test func shardsAreStableAndSplitByName() {
        #expect(LibraryBuildShard(parsing: "2/3") == LibraryBuildShard(index: 2, count: 3))
        #expect(LibraryBuildShard(parsing: "0/2") == nil)
        #expect(LibraryBuildShard(parsing: "3/2") == nil)
        #expect(LibraryBuildShard(parsing: "x") == nil)
        // The first 8 bytes of SHA-256("box-breath-15min.ogg") modulo N, + 1: fixed for every machine.
        let names = (1...40).map { "p\($0)-10min.ogg" }
        let counts = (1...3).map { k in names.filter { LibraryBuildShard.shardIndex(of: $0, count: 3) == k }.count }
        #expect(counts.reduce(0, +) == 40)
        #expect(counts.allSatisfy { $0 > 5 })
        #expect(LibraryBuild.lengthLabel(.duration(.init(milliseconds: 450_000))) == "7.5min")
        #expect(LibraryBuild.lengthLabel(.duration(.init(milliseconds: 900_000))) == "15min")
        #expect(LibraryBuild.lengthLabel(.cycles(40)) == "40cycles")
    }

    // MARK: Building

    @Test func buildsALibraryThenRebuildsNothing() throws {
        let dir = TemporaryDirectory("build")
        let (presets, out) = try Self.library(dir)
        let first = try Self.build([presets, "-o", out] + Self.fast + ["--format", "ogg,wav", "-j", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        let expected = Self.presets.flatMap { ["\($0)-1.2min.ogg", "\($0)-1.2min.wav"] }.sorted()
        #expect(first.rendered.sorted() == expected)
        let files = Set(dir.contents().isEmpty ? [] : try FileManager.default.contentsOfDirectory(atPath: out))
        for name in Self.presets {
            for ext in ["ogg", "wav"] { #expect(files.contains("\(name)-1.2min.\(ext)")) }
            // At 8000 Hz, the cue sheets' names say the rate (their frames depend on it).
            for ext in ["json", "vtt"] { #expect(files.contains("\(name)-1.2min-8000hz.\(ext)")) }
        }
        #expect(files.contains("manifest.json"))
        #expect(Self.hiddenFiles(out).isEmpty)

        let entries = try Self.manifest(out + "/manifest.json")
        #expect(entries.map { $0["file"] as! String } == expected)
        for entry in entries {
            let file = out + "/" + (entry["file"] as! String)
            #expect(entry["sha256"] as? String == SHA256Hasher.hashFile(at: file))
            #expect((entry["bytes"] as? NSNumber)?.int64Value == (try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value)
            #expect((entry["rate"] as? NSNumber)?.intValue == 8000)
            #expect((entry["frames"] as? NSNumber)?.intValue == 576_000)
            #expect((entry["minutes"] as? NSNumber)?.doubleValue == 1.2)
            #expect(["ogg", "wav"].contains(entry["format"] as? String))
            #expect(Self.presets.contains(entry["preset"] as? String ?? ""))
            // On target: the voice in a session levelled on it, else the whole file.
            let levelled = (entry["speechLoudnessLUFS"] ?? entry["loudnessLUFS"]) as? NSNumber
            #expect(abs((levelled?.doubleValue ?? 0) + 18) < 0.5, "\(entry)")
            #expect(((entry["truePeakDBTP"] as? NSNumber)?.doubleValue ?? 0) <= -0.9)
            #expect((entry["inputsHash"] as? String)?.count == 64)
        }
        let sheet = try String(contentsOfFile: out + "/coherent-1.2min-8000hz.json", encoding: .utf8)
        #expect(sheet.contains("\"frames\": 576000"))
        #expect(try String(contentsOfFile: out + "/coherent-1.2min-8000hz.vtt", encoding: .utf8).hasPrefix("WEBVTT"))

        let manifestTime = try Self.modified(out + "/manifest.json")
        let second = try Self.build([presets, "-o", out] + Self.fast + ["--format", "ogg,wav"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.rendered.isEmpty)
        #expect(second.skipped == expected)
        #expect(try Self.modified(out + "/manifest.json") == manifestTime)

        // Another option is another input: the rate changes every output's hash.
        let other = try Self.build([presets + "/coherent.yaml", "-o", out, "--minutes", "1.2", "--rate", "11025"])
        #expect(other.rendered == ["coherent-1.2min.ogg"])
        #expect(try Self.manifest(out + "/manifest.json").count == expected.count)

        // However the cores are shared out, the same bytes: the one job alone on 4 cores (each
        // OGG of a build is encoded by one encoder) and on 1.
        for jobs in ["4", "1"] {
            let alone = try Self.build([presets + "/coherent.yaml", "-o", dir.file("j\(jobs)"), "--minutes", "1.2", "--rate", "11025", "-j", jobs])
            #expect(alone.status == 0, "\(alone.stderr)")
            let bytes = FileManager.default.contents(atPath: dir.file("j\(jobs)/coherent-1.2min.ogg"))
            #expect(bytes != nil && bytes == FileManager.default.contents(atPath: out + "/coherent-1.2min.ogg"), "-j \(jobs)")
        }
    }

    @Test func changingOnePresetOrDeletingOneOutputRendersOnlyThat() throws {
        let dir = TemporaryDirectory("incremental")
        let (presets, out) = try Self.library(dir)
        let first = try Self.build([presets, "-o", out] + Self.fast)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.rendered.count == 3)
        let before = try Dictionary(uniqueKeysWithValues: Self.presets.map { ($0, try Self.modified("\(out)/\($0)-1.2min.ogg")) })

        // A changed preset: only its output.
        let file = presets + "/calming.yaml"
        try (String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "level: -28", with: "level: -30"))
            .write(toFile: file, atomically: true, encoding: .utf8)
        let changed = try Self.build([presets, "-o", out] + Self.fast)
        #expect(changed.rendered == ["calming-1.2min.ogg"])
        #expect(changed.skipped == ["box-breath-1.2min.ogg", "coherent-1.2min.ogg"])
        #expect(try Self.modified("\(out)/box-breath-1.2min.ogg") == before["box-breath"])
        #expect(try Self.modified("\(out)/coherent-1.2min.ogg") == before["coherent"])

        // A deleted output: only it.
        try FileManager.default.removeItem(atPath: "\(out)/coherent-1.2min.ogg")
        let deleted = try Self.build([presets, "-o", out] + Self.fast)
        #expect(deleted.rendered == ["coherent-1.2min.ogg"])
        #expect(deleted.skipped.count == 2)

        // A deleted cue sheet, or an output of another size: that output again.
        try FileManager.default.removeItem(atPath: "\(out)/box-breath-1.2min-8000hz.vtt")
        let handle = try #require(FileHandle(forWritingAtPath: "\(out)/calming-1.2min.ogg"))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        let again = try Self.build([presets, "-o", out] + Self.fast)
        #expect(again.rendered.sorted() == ["box-breath-1.2min.ogg", "calming-1.2min.ogg"])
        #expect(FileManager.default.fileExists(atPath: "\(out)/box-breath-1.2min-8000hz.vtt"))

        let settled = try Self.build([presets, "-o", out] + Self.fast)
        #expect(settled.rendered.isEmpty)
        #expect(Self.hiddenFiles(out).isEmpty)
    }

    @Test func twoShardsAreDisjointCoverEverythingAndMerge() throws {
        let dir = TemporaryDirectory("shards")
        let (presets, out) = try Self.library(dir)
        let lengths = ["--minutes", "1.2,1.3", "--rate", "8000"]
        let one = try Self.build([presets, "-o", out, "--shard", "1/2"] + lengths)
        let two = try Self.build([presets, "-o", out, "--shard", "2/2"] + lengths)
        #expect(one.status == 0 && two.status == 0, "\(one.stderr) \(two.stderr)")
        let all = Self.presets.flatMap { ["\($0)-1.2min.ogg", "\($0)-1.3min.ogg"] }.sorted()
        #expect(Set(one.rendered).isDisjoint(with: two.rendered))
        #expect((one.rendered + two.rendered).sorted() == all)
        // Each shard's own manifest, listing its own outputs.
        #expect(try Self.manifest(out + "/manifest-1-of-2.json").map { $0["file"] as! String }.sorted() == one.rendered.sorted())
        #expect(try Self.manifest(out + "/manifest-2-of-2.json").map { $0["file"] as! String }.sorted() == two.rendered.sorted())
        #expect(!FileManager.default.fileExists(atPath: out + "/manifest.json"))
        // The same shard again renders nothing.
        #expect(try Self.build([presets, "-o", out, "--shard", "1/2"] + lengths).rendered.isEmpty)

        let merge = try runMedrender(["build", "--merge", out])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try Self.manifest(out + "/manifest.json").map { $0["file"] as! String } == all)
        // After the merge, the whole build is up to date.
        let whole = try Self.build([presets, "-o", out] + lengths)
        #expect(whole.rendered.isEmpty)
        #expect(whole.skipped == all)

        // Shards in folders of their own (two machines) merge into a third, outputs copied over.
        let a = dir.file("a"), b = dir.file("b"), joined = dir.file("joined")
        #expect(try Self.build([presets, "-o", a, "--shard", "1/2"] + lengths).status == 0)
        let missing = try runMedrender(["build", "--merge", a, "-o", joined])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("shard 2/2 missing"))
        #expect(try Self.build([presets, "-o", b, "--shard", "2/2"] + lengths).status == 0)
        let merged = try runMedrender(["build", "--merge", a, b, "-o", joined])
        #expect(merged.status == 0, "\(merged.stderr)")
        let entries = try Self.manifest(joined + "/manifest.json")
        #expect(entries.map { $0["file"] as! String } == all)
        for entry in entries {
            #expect(SHA256Hasher.hashFile(at: joined + "/" + (entry["file"] as! String)) == entry["sha256"] as? String)
        }
        #expect(Self.hiddenFiles(joined).isEmpty)
    }

    /// `--shard auto` as a Slurm array task (`--array=1-4`) builds the shard `--shard K/4` builds, says
    /// so on stderr and in the JSON; as a Kubernetes pod it needs `--shards`; with no scheduler it is
    /// a one-line usage error.
    @Test func shardAutoTakesTheSchedulersIndex() throws {
        let dir = TemporaryDirectory("auto")
        let (presets, out) = try Self.library(dir)
        let lengths = ["--minutes", "1.2,1.3", "--rate", "8000"]
        func auto(_ environment: [String: String], _ extra: [String] = [], into folder: String) throws -> (ProcessResult, [String: Any]) {
            let result = try runProcess(PackagePaths.executable, ["build", "--json", presets, "-o", folder, "--shard", "auto"] + extra + lengths,
                                        in: PackagePaths.root, environment: environment)
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return (result, try #require(object, "no JSON summary: \(result.stderr)"))
        }
        var all: [String] = []
        for id in 1...4 {
            let environment = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4",
                               "SLURM_ARRAY_TASK_COUNT": "4"]
            let (result, summary) = try auto(environment, into: out)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("shard \(id)/4 from Slurm (SLURM_ARRAY_TASK_COUNT=4, SLURM_ARRAY_TASK_ID=\(id), "))
            let shard = try #require(summary["shard"] as? [String: Any])
            #expect(shard["shard"] as? String == "\(id)/4" && shard["index"] as? Int == id && shard["count"] as? Int == 4)
            #expect(shard["scheduler"] as? String == "slurm")
            #expect((shard["variables"] as? [String: String])?["SLURM_ARRAY_TASK_ID"] == "\(id)")
            let rendered = summary["rendered"] as? [String] ?? []
            #expect(try Self.manifest(out + "/manifest-\(id)-of-4.json").map { $0["file"] as! String }.sorted() == rendered.sorted())
            // The same outputs as --shard K/N, in a folder of its own.
            let explicit = try Self.build([presets, "-o", dir.file("explicit\(id)"), "--shard", "\(id)/4"] + lengths)
            #expect(explicit.rendered.sorted() == rendered.sorted())
            all += rendered
        }
        #expect(all.sorted() == Self.presets.flatMap { ["\($0)-1.2min.ogg", "\($0)-1.3min.ogg"] }.sorted())
        let merge = try runMedrender(["build", "--merge", out])
        #expect(merge.status == 0, "\(merge.stderr)")

        // A Kubernetes pod: the index from JOB_COMPLETION_INDEX, the count from --shards.
        let (pod, podSummary) = try auto(["JOB_COMPLETION_INDEX": "1"], ["--shards", "4"], into: dir.file("pod"))
        #expect(pod.status == 0, "\(pod.stderr)")
        #expect(pod.stderr.hasPrefix("shard 2/4 from Kubernetes (JOB_COMPLETION_INDEX=1, 4 shards asked for)"))
        #expect((podSummary["shard"] as? [String: Any])?["scheduler"] as? String == "kubernetes")
        // An explicit shard is in the JSON too, without a scheduler.
        let explicit = try runMedrender(["build", "--json", presets, "-o", dir.file("explicit1"), "--shard", "1/4"] + lengths)
        #expect(explicit.stdout.contains("\"shard\" : \"1/4\"") && !explicit.stdout.contains("scheduler"))

        for (environment, extra, message) in [
            ([:], [], "--shard auto: no scheduler's task index is set (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX)"),
            (["JOB_COMPLETION_INDEX": "1"], [], "give --shards N with N the Job's completions"),
            (["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6", "SLURM_ARRAY_TASK_COUNT": "4"], [],
             "the array has a step or is a list"),
        ] as [([String: String], [String], String)] {
            let result = try runProcess(PackagePaths.executable, ["build", presets, "-o", dir.file("refused"), "--shard", "auto"] + extra + lengths,
                                        in: PackagePaths.root, environment: environment)
            #expect(result.status == 64, "\(environment): \(result.stderr)")
            #expect(result.stderr.hasPrefix("medrender: error: --shard auto: ") && result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("refused")))
        let shardsWithoutAuto = try runMedrender(["build", presets, "-o", dir.file("refused"), "--shard", "1/2", "--shards", "2"])
        #expect(shardsWithoutAuto.status == 64)
        #expect(shardsWithoutAuto.stderr.contains("--shards 2 is for --shard auto"))
    }

    /// A hand-edited shard manifest cannot make a merge read or write outside its folders, and a
    /// refused merge creates nothing.
    @Test(arguments: [
        ("file", "../victim.txt", "is not a file name in its folder"),
        ("file", "/tmp/victim.txt", "is not a file name in its folder"),
        ("cueSheets", ["../victim.txt"], "is not a file name in its folder"),
        ("bytes", "many", "has the wrong type"),
    ] as [(String, any Sendable, String)])
    func aTamperedManifestIsRefused(key: String, value: any Sendable, message: String) throws {
        let dir = TemporaryDirectory("tamper")
        let (presets, _) = try Self.library(dir, ["coherent"])
        let shard = dir.file("shard")
        #expect(try Self.build([presets, "-o", shard, "--shard", "1/1"] + Self.fast).status == 0)
        let victim = dir.write("victim.txt", "keep me")
        let path = shard + "/manifest-1-of-1.json"
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var outputs = try #require(object["outputs"] as? [[String: Any]])
        outputs[0][key] = value
        object["outputs"] = outputs
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        let joined = dir.file("joined")
        let result = try runMedrender(["build", "--merge", shard, "-o", joined])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("CodingKeys"), "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        #expect(!FileManager.default.fileExists(atPath: joined))
    }

    @Test func aBadPresetIsReportedAndTheOthersStillLand() throws {
        let dir = TemporaryDirectory("failing")
        let (presets, out) = try Self.library(dir, ["box-breath", "coherent"])
        try "name: broken\npattern: [4, 4\nminutes: 5\n".write(toFile: presets + "/broken.yaml", atomically: true, encoding: .utf8)
        try "name: nosound\npattern: 4-4-4-4\nbells: { start: no-such-bell }\n"
            .write(toFile: presets + "/nosound.yaml", atomically: true, encoding: .utf8)
        let result = try Self.build([presets, "-o", out] + Self.fast)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.rendered.sorted() == ["box-breath-1.2min.ogg", "coherent-1.2min.ogg"])
        let failed = Dictionary(uniqueKeysWithValues: result.failed.map { ($0["preset"] as! String, $0) })
        #expect(Set(failed.keys) == ["broken", "nosound"])
        #expect((failed["broken"]?["error"] as? String)?.contains("broken.yaml:") == true)
        #expect((failed["broken"]?["exitCode"] as? NSNumber)?.intValue == 65)
        #expect((failed["nosound"]?["error"] as? String)?.contains("no-such-bell") == true)
        #expect(result.stderr.contains("medrender: error:"))
        #expect(Self.hiddenFiles(out).isEmpty)
        #expect(try Self.manifest(out + "/manifest.json").count == 2)

        // Only the missing sound left: its own code.
        try FileManager.default.removeItem(atPath: presets + "/broken.yaml")
        let second = try Self.build([presets, "-o", out] + Self.fast)
        #expect(second.status == 66)
        #expect(second.rendered.isEmpty)

        // A length shorter than one cycle fails that output only, with the plan's reason.
        let short = try Self.build([presets + "/coherent.yaml", presets + "/box-breath.yaml", "-o", out, "--minutes", "0.15",
                                    "--rate", "8000"])
        #expect(short.status != 0)
        #expect(short.failed.count == 2)
        #expect(Self.hiddenFiles(out).isEmpty)

        // A job that fails once its sounds are known (a clip after the end) leaves no cue sheets.
        try "pattern: 4-0-4-0\nsettle: 5\nclosing: 5\nvoice: { clips: [ { sound: voice-hold, at: 5000 } ] }\n"
            .write(toFile: presets + "/late.yaml", atomically: true, encoding: .utf8)
        let late = try Self.build([presets + "/late.yaml", "-o", out] + Self.fast)
        #expect(late.status == 65, "\(late.stderr)")
        #expect(late.failed.count == 1)
        #expect(!Self.files(out).contains { $0.hasPrefix("late-") }, "\(Self.files(out))")
        #expect(Self.hiddenFiles(out).isEmpty)
    }

    static func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// Builds at two rates into one folder keep each output's cue sheets its own (a sheet's frames
    /// depend on the rate); `--verify` finds a damaged sheet and renders its output again.
    @Test func cueSheetsOfEachRateStayTheirsAndVerifyChecksThem() throws {
        let dir = TemporaryDirectory("sheetrates")
        let (presets, out) = try Self.library(dir, ["box-breath"])
        let one = ["--cycles", "1"]
        #expect(try Self.build([presets, "-o", out, "--rate", "16000", "--format", "ogg"] + one).status == 0)
        #expect(try Self.build([presets, "-o", out, "--rate", "8000", "--format", "wav"] + one).status == 0)
        let entries = try Self.manifest(out + "/manifest.json")
        #expect(entries.count == 2)
        for entry in entries {
            let sheets = entry["cueSheets"] as! [String]
            let json = sheets.first { $0.hasSuffix(".json") }!
            let data = try Data(contentsOf: URL(fileURLWithPath: out + "/" + json))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((object["rate"] as? NSNumber)?.intValue == (entry["rate"] as? NSNumber)?.intValue, "\(json)")
        }
        try "garbage\n".write(toFile: out + "/box-breath-1cycles-16000hz.vtt", atomically: true, encoding: .utf8)
        let plain = try Self.build([presets, "-o", out, "--rate", "16000", "--format", "ogg"] + one)
        #expect(plain.rendered.isEmpty, "without --verify, only sizes and presence are checked")
        let verified = try Self.build([presets, "-o", out, "--rate", "16000", "--format", "ogg", "--verify"] + one)
        #expect(verified.rendered == ["box-breath-1cycles.ogg"])
        #expect(try String(contentsOfFile: out + "/box-breath-1cycles-16000hz.vtt", encoding: .utf8).hasPrefix("WEBVTT"))
    }

    /// Two builds into one folder at once keep each other's outputs in the manifest; a build
    /// removes the temporary files a killed build left (untouched for an hour), not fresh ones.
    @Test func concurrentBuildsShareTheManifestAndAbandonedFilesGo() throws {
        let dir = TemporaryDirectory("together")
        let (presets, out) = try Self.library(dir, ["box-breath", "coherent"])
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let old = out + "/.box-breath-9min.ogg.medrender-abcdef", fresh = out + "/.calming-9min.ogg.medrender-ghijkl"
        for path in [old, fresh] { FileManager.default.createFile(atPath: path, contents: Data("left".utf8)) }
        var times = [timeval(tv_sec: time(nil) - 7200, tv_usec: 0), timeval(tv_sec: time(nil) - 7200, tv_usec: 0)]
        #expect(utimes(old, &times) == 0)

        final class Box: @unchecked Sendable { var result: Build? }
        let other = Box()
        let thread = ThreadJoin { other.result = try? Self.build([presets, "-o", out, "--cycles", "1", "--rate", "8000", "-j", "1"]) }
        let mine = try Self.build([presets, "-o", out, "--cycles", "2", "--rate", "8000", "-j", "1"])
        try #require(thread.join(), "the other build did not end")
        #expect(mine.status == 0 && other.result?.status == 0, "\(mine.stderr) \(other.result?.stderr ?? "")")
        let listed = try Self.manifest(out + "/manifest.json").map { $0["file"] as! String }.sorted()
        #expect(listed == ["box-breath-1cycles.ogg", "box-breath-2cycles.ogg", "coherent-1cycles.ogg", "coherent-2cycles.ogg"])
        let again = try Self.build([presets, "-o", out, "--cycles", "1,2", "--rate", "8000"])
        #expect(again.rendered.isEmpty && again.skipped.count == 4)
        #expect(!FileManager.default.fileExists(atPath: old), "an hour-old temporary file is removed")
        #expect(FileManager.default.fileExists(atPath: fresh), "a fresh one may be another build's")
        #expect(mine.stderr.contains("removed 1 unfinished file") || other.result?.stderr.contains("removed 1 unfinished file") == true)
    }

    /// A manifest that cannot be written stops the build before any render.
    @Test func aManifestThatCannotBeWrittenStopsTheBuildFirst() throws {
        let dir = TemporaryDirectory("nomanifest")
        let (presets, out) = try Self.library(dir, ["coherent"])
        try FileManager.default.createDirectory(atPath: out + "/manifest.json", withIntermediateDirectories: true)
        let result = try Self.build([presets, "-o", out] + Self.fast)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.rendered.isEmpty)
        #expect(result.failed.count == 1)
        #expect(Self.files(out) == ["manifest.json"])
    }

    /// A render that cannot reach its target says so in the build's output and its summary.
    @Test func aRenderUnderItsTargetIsAWarningInTheSummary() throws {
        let dir = TemporaryDirectory("buildwarn")
        let (presets, out) = try Self.library(dir, ["coherent"])
        try "name: loud\npattern: 4-0-4-0\nsettle: 2\nclosing: 2\nmaster: { loudness: -6 }\n"
            .write(toFile: presets + "/loud.yaml", atomically: true, encoding: .utf8)
        let result = try Self.build([presets, "-o", out] + Self.fast)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.rendered.sorted() == ["coherent-1.2min.ogg", "loud-1.2min.ogg"])
        let warnings = try #require(result.warnings)
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.hasPrefix("loud-1.2min.ogg: the output is") == true, "\(warnings)")
        #expect(result.stderr.contains("medrender: warning: loud-1.2min.ogg: "), "\(result.stderr)")
    }

    @Test func anInterruptedBuildKeepsWhatFinishedAndResumes() throws {
        let dir = TemporaryDirectory("interrupt")
        let (presets, out) = try Self.library(dir)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PackagePaths.executable)
        process.arguments = ["build", presets, "-o", out, "-j", "1"] + Self.fast
        process.currentDirectoryURL = URL(fileURLWithPath: PackagePaths.root)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupt once the first output is in the manifest, while the second renders.
        waitUntil(deadline: 120) { !((try? Self.manifest(out + "/manifest.json"))?.isEmpty ?? true) || !process.isRunning }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let listed = try Self.manifest(out + "/manifest.json").map { $0["file"] as! String }
        #expect(process.terminationStatus == 130)
        #expect(!listed.isEmpty && listed.count < 3)
        #expect(Self.hiddenFiles(out).isEmpty)
        let resumed = try Self.build([presets, "-o", out] + Self.fast)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.skipped == listed)
        #expect(resumed.rendered.count == 3 - listed.count)
    }

    /// A signal while a build replaces an output: the old file stays as it was, no temporary file is
    /// left, and the exit code is the signal's.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalDuringABuildKeepsTheOldOutput(signal: Int32) throws {
        let dir = TemporaryDirectory("buildsignal")
        let (presets, out) = try Self.library(dir, ["box-breath"])
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let old = out + "/box-breath-600min.ogg"
        let existing = Data("the old file".utf8)
        FileManager.default.createFile(atPath: old, contents: existing)
        let (sawTemporary, status) = try runMedrender(["build", presets, "-o", out, "--minutes", "600", "-j", "1"], signal: signal,
                                                      whenFileIn: out, startsWith: ".box-breath-600min.ogg.medrender-")
        #expect(sawTemporary, "the build writes through a temporary file beside the target")
        #expect(status == (signal == SIGINT ? 130 : 143))
        #expect(FileManager.default.contents(atPath: old) == existing)
        #expect(Self.hiddenFiles(out).isEmpty)
        // The cue sheets go in place with the audio: none for the output that was not finished.
        #expect(Self.files(out) == ["box-breath-600min.ogg", "manifest.json"])
    }

    /// On a terminal (here a pseudo-terminal made by `script`), a live line with done/total, what is
    /// rendering, the time so far and the time left; elsewhere plain lines without escapes.
    @Test func progressIsALiveLineOnATerminalAndPlainLinesElsewhere() throws {
        let dir = TemporaryDirectory("progress")
        let (presets, out) = try Self.library(dir, ["box-breath", "coherent"])
        let script = try #require(which("script"), "script (util-linux) makes the pseudo-terminal")
        let command = ([PackagePaths.executable, "build", presets, "-o", out, "-j", "1"] + Self.fast).joined(separator: " ")
        let live = try runProcess(script, ["-qec", command, "/dev/null"], in: PackagePaths.root)
        #expect(live.status == 0, "\(live.stdout)")
        let redraws = live.stdout.components(separatedBy: "\r\u{1B}[K")
        #expect(redraws.count > 3, "the line is redrawn in place: \(live.stdout)")
        #expect(live.stdout.contains("[0/2] "), "\(live.stdout)")
        #expect(live.stdout.contains("[2/2] 100%"), "\(live.stdout)")
        #expect(live.stdout.contains("rendering box-breath-1.2min.ogg"), "\(live.stdout)")
        #expect(live.stdout.contains(" elapsed, ETA "), "\(live.stdout)")
        #expect(live.stdout.contains("rendered coherent-1.2min.ogg ("), "\(live.stdout)")

        let plain = try runMedrender(["build", presets, "-o", dir.file("plain"), "-j", "1"] + Self.fast)
        #expect(plain.status == 0, "\(plain.stderr)")
        // One plain line per output and the summary (warnings about a session, such as a bell
        // with no room in a shorter session, are lines of their own).
        let lines = plain.stderr.split(separator: "\n").filter { !$0.hasPrefix("medrender: warning:") }
        #expect(lines.count == 3, "\(plain.stderr)")
        #expect(lines.first?.hasPrefix("rendered box-breath-1.2min.ogg (") == true, "\(plain.stderr)")
        #expect(!plain.stderr.contains("\u{1B}") && !plain.stderr.contains("\r"), "\(plain.stderr)")
    }

    @Test func usageErrors() throws {
        #expect(try runMedrender(["build", "Presets"]).status == 64)
        #expect(try runMedrender(["build", "-o", "/tmp/x", "--shard", "3/2"]).status == 64)
        #expect(try runMedrender(["build", "-o", "/tmp/x", "--format", "ogg,aiff"]).status == 64)
        #expect(try runMedrender(["build", "-o", "/tmp/x", "--minutes", "5,,10"]).status == 64)
        #expect(try runMedrender(["build", "--merge"]).status == 64)
        let missing = try runMedrender(["build", "no-such-preset", "-o", TemporaryDirectory("usage").path])
        #expect(missing.status == 66, "\(missing.stderr)")
        for (arguments, message) in [
            (["--minutes", "1.2,abc"], "--minutes abc is not a number"),
            (["--minutes", "1.2,2000"], "--minutes 2000 is out of range"),
            (["--cycles", "2.5"], "--cycles 2.5 is not a whole number"),
            (["--shard", "1/99999999999999999999"], "is not a shard; give K/N, two whole numbers"),
        ] {
            let result = try runMedrender(["build", "-o", "/tmp/x"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
