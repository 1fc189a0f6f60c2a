import Foundation
import Medrender
import MedrenderCore
import MedrenderIO

/// What `medrender build --merge` did.
public struct LibraryBuildMergeSummary: Codable, Sendable {
    /// The manifests read.
    public var manifests: [String]
    /// The merged manifest written.
    public var manifest: String
    public var outputs: Int
    /// Outputs (and cue sheets) copied into the target folder from a shard's folder.
    public var copied: [String]
}

extension LibraryBuild {
    /// The shard manifests (`manifest-K-of-N.json`) in `folder`, sorted by K.
    static func shardManifests(in folder: String) -> [(path: String, shard: LibraryBuildShard)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var found: [(String, LibraryBuildShard)] = []
        for name in names where name.hasPrefix("manifest-") && name.hasSuffix(".json") {
            let middle = name.dropFirst("manifest-".count).dropLast(".json".count)
            let parts = middle.components(separatedBy: "-of-")
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), let shard = LibraryBuildShard(index: k, count: n)
            else { continue }
            found.append((folder + "/" + name, shard))
        }
        return found.sorted { ($0.1.count, $0.1.index) < ($1.1.count, $1.1.index) }
    }

    /// Joins the shard manifests of `folders` into one `manifest.json` in `target`.
    ///
    /// Each folder gives its `manifest-K-of-N.json` files (or, when it has none, its
    /// `manifest.json`). The shards must all be of the same N and together be 1…N. An output that
    /// is not in `target` yet is copied there with its cue sheets (atomically), so the merged
    /// manifest describes the folder it is in.
    public static func merge(_ folders: [String], into target: String) throws -> LibraryBuildMergeSummary {
        let fm = FileManager.default
        var sources: [(path: String, folder: String)] = []
        var shards: [LibraryBuildShard] = []
        for folder in folders {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw RenderError("{merge} \(folder): no such folder", category: .missingInput)
            }
            let found = shardManifests(in: folder)
            if found.isEmpty {
                let plain = folder + "/" + manifestName(shard: nil)
                guard fm.fileExists(atPath: plain) else {
                    throw RenderError("{merge} \(folder): holds no manifest-K-of-N.json nor manifest.json; build into it first",
                                      category: .missingInput)
                }
                sources.append((plain, folder))
            } else {
                for (path, shard) in found {
                    sources.append((path, folder))
                    shards.append(shard)
                }
            }
        }
        if let n = shards.first?.count {
            if let other = shards.first(where: { $0.count != n }) {
                throw RenderError("{merge}: the shards are of different builds (\(shards[0]) and \(other)); give the folders of one build",
                                  category: .usage)
            }
            let missing = Set(1...n).subtracting(shards.map(\.index)).sorted()
            if !missing.isEmpty {
                throw RenderError("{merge}: shard \(missing.map { "\($0)/\(n)" }.joined(separator: ", ")) missing; give also the folder that holds manifest-\(missing[0])-of-\(n).json",
                                  category: .missingInput)
            }
        }

        var merged: [String: (LibraryBuildManifest.Entry, String)] = [:]
        var renderer = rendererVersion
        for (path, folder) in sources {
            let manifest = try LibraryBuildManifest.read(path)
            renderer = manifest.renderer
            for entry in manifest.outputs {
                if let (other, otherFolder) = merged[entry.file], other.sha256 != entry.sha256 {
                    throw RenderError("{merge}: \(entry.file) differs between \(otherFolder) and \(folder); build it again in one of them",
                                      category: .badData)
                }
                guard fileSize(folder + "/" + entry.file) == entry.bytes else {
                    throw RenderError("\(folder)/\(entry.file): listed in \(path) but missing or changed; build that shard again",
                                      category: .missingInput)
                }
                merged[entry.file] = (entry, folder)
            }
        }

        // Created only now, so a merge refused above leaves no folder behind.
        do {
            try fm.createDirectory(atPath: target, withIntermediateDirectories: true)
        } catch {
            throw RenderError("\(target): the output folder cannot be created (\(error.localizedDescription))", category: .cannotCreate)
        }
        let targetURL = FilePaths.resolved(target)
        var copied: [String] = []
        for (entry, folder) in merged.values.sorted(by: { $0.0.file < $1.0.file }) {
            let from = FilePaths.resolved(folder)
            guard from != targetURL else { continue }
            for name in [entry.file] + entry.cueSheets {
                let source = folder + "/" + name, destination = target + "/" + name
                if fileSize(destination) != nil, fileSize(destination) == fileSize(source),
                    name != entry.file || SHA256Hasher.hashFile(at: destination) == entry.sha256
                {
                    continue
                }
                try copyAtomically(source, to: destination)
                copied.append(name)
            }
        }
        let manifest = LibraryBuildManifest(renderer: renderer, shard: nil, outputs: merged.values.map(\.0))
        let manifestPath = target + "/" + manifestName(shard: nil)
        try manifest.write(to: manifestPath)
        return LibraryBuildMergeSummary(manifests: sources.map(\.path), manifest: manifestPath, outputs: merged.count,
                                        copied: copied)
    }

    /// Copies a file through a temporary file beside the destination, renamed into place.
    static func copyAtomically(_ source: String, to destination: String) throws {
        let file = try AtomicOutputFile(path: destination)
        try FileChunks.forEach(inFileAt: source) { try file.write($0) }
        try file.commit()
    }
}
